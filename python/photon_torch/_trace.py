"""Runtime trace: a model run on the meta device under a TorchDispatchMode, recorded as an op
trace (docs/torch.md "Op trace format"), the workload `photon run --workload FILE.ptrace` reads.

On the meta device every ATen op computes only shapes and dtypes, so a 70B-parameter model is
traced without weights and without arithmetic. The trace is in SSA form: an in-place op's result
is a new value, and "aliases" records which argument an output is a view of or writes.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_map

from . import _meta_kernels
from ._errors import TraceError

FORMAT = "photon-op-trace"
VERSION = 1
MAX_CONSTANT_ELEMENTS = 65536  # constants up to this size are written with their values
MAX_ELEMENTS = 1 << 40  # a tensor has fewer elements (the reader's limit, docs/torch.md)
# The dtypes a trace may hold (docs/torch.md "Op trace format").
DTYPES = {"float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex32", "complex64", "complex128"}

# Ops whose result depends on tensor values (Python scalars, data-dependent shapes): a trace on
# the meta device cannot follow them.
_VALUE_OPS = {
    "aten::_local_scalar_dense", "aten::is_nonzero", "aten::item", "aten::equal", "aten::nonzero",
    "aten::unique_dim", "aten::_unique2", "aten::masked_select", "aten::allclose",
}


def _dtype_name(dt: torch.dtype) -> str:
    return str(dt).replace("torch.", "")


def _literal(v: Any) -> Any:
    """A non-tensor argument value as JSON (docs/torch.md "Arguments")."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if math.isinf(v):
            return {"float": "inf" if v > 0 else "-inf"}
        if math.isnan(v):
            return {"float": "nan"}
        return v
    if isinstance(v, torch.dtype):
        return _dtype_name(v)
    if isinstance(v, (torch.device, torch.layout, torch.memory_format)):
        return str(v).replace("torch.", "")
    if isinstance(v, (list, tuple)):
        return [_literal(e) for e in v]
    return str(v)


def _check_path(path) -> str:
    """An op trace's output path as a string; TraceError if it is a directory or its directory
    does not exist."""
    try:
        path = os.fspath(path)
    except TypeError:
        raise TraceError(f"the trace path must be a file name, not {type(path).__name__}") from None
    if os.path.isdir(path):
        raise TraceError(f"cannot write the op trace {path}: it is a directory")
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise TraceError(f"cannot write the op trace {path}: directory {d} does not exist")
    return path


class OpTrace:
    """An op trace in memory: `data` is the JSON document of docs/torch.md."""

    def __init__(self, data: dict):
        self.data = data
        self.path: Optional[str] = None

    @property
    def ops(self) -> List[dict]:
        return self.data["ops"]

    def op_counts(self) -> Dict[str, int]:
        """ATen op name (without overload) -> calls."""
        counts: Dict[str, int] = {}
        for op in self.ops:
            name = op["op"].split(".")[0]
            counts[name] = counts.get(name, 0) + 1
        return counts

    def save(self, path: str) -> str:
        """Writes the trace to `path` (through a temporary file and a rename); returns path."""
        path = _check_path(path)
        d = os.path.dirname(os.path.abspath(path))
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(prefix=".ptrace.", dir=d)
            # mkstemp creates the file 0600; a trace is an ordinary output file (mode 0666 less
            # the umask, as open() would create it).
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fd, 0o666 & ~umask)
            with os.fdopen(fd, "w") as f:
                # allow_nan=False: never write the non-JSON tokens NaN / Infinity (non-finite
                # values are {"float": ...} objects, docs/torch.md).
                json.dump(self.data, f, separators=(",", ":"), allow_nan=False)
            os.replace(tmp, path)
        except BaseException as e:
            if tmp is not None and os.path.exists(tmp):
                os.unlink(tmp)
            if isinstance(e, (OSError, ValueError)):
                raise TraceError(f"cannot write the op trace {path}: {e}") from None
            raise
        self.path = path
        return path

    def run(self, config: Optional[str] = None, set: Optional[Dict[str, Any]] = None) -> dict:
        """Runs the trace on the platform (`photon run`) and returns the report."""
        from ._runner import run_workload
        if self.path is None:
            raise TraceError("OpTrace.run: save the trace first (OpTrace.save(path))")
        return run_workload(self.path, config=config, set=set)


class _Recorder:
    """Tensor values and ops of one trace."""

    def __init__(self):
        self.tensors: List[dict] = []
        self.ops: List[dict] = []
        self._vid: Dict[int, int] = {}   # id(tensor object) -> current value id
        self._keep: List[torch.Tensor] = []  # keeps traced objects alive (ids stay unique)
        self.module_stack: List[str] = []
        self.phase = ""                  # "backward" while the backward pass runs
        self.model = ""                  # model class name (error messages)
        self.names = set()               # tensor names in use
        self.current = ""                # the op being recorded (error messages)
        self.failed = ""                 # the op whose kernel raised (error messages)

    def where(self) -> str:
        """The model, the op being recorded and its module, for error messages."""
        s = self.model
        if self.current:
            s += f": {self.current}"
        if self.module():
            s += f" in module '{self.module()}'"
        return s

    def add(self, t: torch.Tensor, kind: str, name: Optional[str] = None) -> int:
        vid = len(self.tensors)
        dtype = _dtype_name(t.dtype)
        # What the reader accepts (workloads/torch/op_trace.cpp): refuse here, naming the op,
        # rather than write a file `photon run` rejects.
        if dtype not in DTYPES:
            raise TraceError(f"{self.where()}: a tensor of dtype {dtype}, which an op trace cannot hold "
                             f"(dtypes: {', '.join(sorted(DTYPES))})")
        if t.numel() >= MAX_ELEMENTS:
            raise TraceError(f"{self.where()}: a tensor of shape {list(t.shape)} has 2^40 or more elements, "
                             f"more than an op trace holds")
        entry = {"kind": kind, "shape": list(t.shape), "dtype": dtype}
        if name is not None:
            while name in self.names:  # unique names (a parameter may be called "input")
                name += "_"
            self.names.add(name)
            entry["name"] = name
        if kind == "constant":
            entry["data"] = [_literal(v) for v in t.detach().reshape(-1).tolist()]
        self.tensors.append(entry)
        self._vid[id(t)] = vid
        self._keep.append(t)
        return vid

    def value_of(self, t: torch.Tensor) -> int:
        vid = self._vid.get(id(t))
        if vid is not None:
            return vid
        # A tensor the program holds that is neither an input nor a registered parameter or
        # buffer (e.g. a tensor attribute): a constant with values if small and real, else a
        # parameter without data.
        if t.device.type != "meta" and t.numel() <= MAX_CONSTANT_ELEMENTS and not t.is_complex():
            return self.add(t, "constant", f"const{len(self.tensors)}")
        return self.add(t, "param", f"tensor{len(self.tensors)}")

    def module(self) -> str:
        if self.phase:
            return self.phase
        return self.module_stack[-1] if self.module_stack else ""

    def record(self, func, args, kwargs, out):
        schema = func._schema
        name = schema.name + "." + (schema.overload_name or "default")
        self.current = name
        if schema.name in _VALUE_OPS:
            where = f"module '{self.module()}'" if self.module() else f"{self.model}.forward"
            raise TraceError(f"{self.model}: {name} in {where} needs tensor values (data-dependent control flow, "
                             f".item() or a value-dependent shape); a trace on the meta device has none")
        arg_values: Dict[str, Any] = {}
        alias_sets: Dict[str, tuple] = {}
        for i, a in enumerate(schema.arguments):
            if i < len(args) and not a.kwarg_only:
                v = args[i]
            elif a.name in kwargs:
                v = kwargs[a.name]
            elif a.has_default_value():
                v = a.default_value
            else:
                v = None
            arg_values[a.name] = self._arg(v)
            if a.alias_info is not None:
                alias_sets[a.name] = (tuple(sorted(a.alias_info.before_set)), a.alias_info.is_write)
        outs, aliases = [], []
        # One return (a Tensor or a Tensor[] such as split's) or a tuple of returns.
        flat_out = (out,) if len(schema.returns) == 1 else out
        for r, o in zip(schema.returns, flat_out):
            items = o if isinstance(o, (list, tuple)) else [o]
            alias = None
            if r.alias_info is not None:
                before = tuple(sorted(r.alias_info.before_set))
                for arg_name, (sets, write) in alias_sets.items():
                    if sets == before:
                        alias = {"arg": arg_name, "write": bool(write)}
            for item in items:
                if isinstance(item, torch.Tensor):
                    if alias is not None and alias["write"] and item._is_view() and item._base is not None \
                            and id(item._base) in self._vid:
                        raise TraceError(f"{self.model}: {name} in module '{self.module()}' writes in place into "
                                         f"a view of another tensor; an op trace is a value graph: clone the view "
                                         f"first")
                    outs.append(self.add(item, "value"))
                    aliases.append(alias)
                elif item is None:
                    outs.append(None)
                    aliases.append(None)
        self.current = ""
        op = {"op": name, "args": arg_values, "outputs": outs}
        if any(a is not None for a in aliases):
            op["aliases"] = aliases
        m = self.module()
        if m:
            op["module"] = m
        self.ops.append(op)

    def _arg(self, v):
        if isinstance(v, torch.Tensor):
            return {"tensor": self.value_of(v)}
        if isinstance(v, (list, tuple)) and v and any(isinstance(e, torch.Tensor) for e in v):
            return {"tensors": [self.value_of(e) if isinstance(e, torch.Tensor) else None for e in v]}
        return _literal(v)


    def output_ids(self, outs: List[torch.Tensor]) -> List[int]:
        """Tensor ids of the graph outputs. An output no op produced (the model returns its
        input, a parameter or a constant) becomes the result of an aten::alias op, a view of it,
        as torch.onnx.export puts an Identity node there: the reader wants every output
        produced by an op."""
        if not outs:
            raise TraceError(f"{self.model}: the model returns no tensor; an op trace needs an output")
        ids = []
        for o in outs:
            vid = self.value_of(o)
            if self.tensors[vid]["kind"] != "value":
                alias = self.add(o.detach(), "value")
                op = {"op": "aten::alias.default", "args": {"self": {"tensor": vid}}, "outputs": [alias],
                      "aliases": [{"arg": "self", "write": False}]}
                if self.module():
                    op["module"] = self.module()
                self.ops.append(op)
                vid = alias
            ids.append(vid)
        return ids


class _Mode(TorchDispatchMode):
    def __init__(self, rec: _Recorder):
        super().__init__()
        self.rec = rec

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func._schema.name in _VALUE_OPS:
            self.rec.record(func, args, kwargs, None)  # raises TraceError naming the op
        try:
            out = func(*args, **kwargs)
        except Exception as e:
            # The op that failed (a shape error, a missing meta kernel), not the last one recorded.
            s = func._schema
            self.rec.failed = s.name + "." + (s.overload_name or "default")
            inner = next((v for v in _VALUE_OPS if f"'{v}'" in str(e)), None)
            if inner is not None:  # e.g. index with a boolean mask calls nonzero inside its kernel
                rec = self.rec
                where = f"module '{rec.module()}'" if rec.module() else f"{rec.model}.forward"
                raise TraceError(f"{rec.model}: {rec.failed} in {where} needs tensor values ({inner} inside it: a "
                                 f"boolean mask or another value-dependent shape); a trace on the meta device has none"
                                 ) from None
            raise
        self.rec.record(func, args, kwargs, out)
        return out


def _refresh_flat_weights(rnn: torch.nn.RNNBase) -> None:
    # What RNNBase.__init__ does (torch/nn/modules/rnn.py, 1.13), from the current attributes.
    rnn._flat_weights = [getattr(rnn, n) if hasattr(rnn, n) else None for n in rnn._flat_weights_names]


def _to_meta(x):
    if isinstance(x, torch.Tensor):
        m = torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device="meta")
        m.requires_grad_(x.requires_grad)
        return m
    return x


def trace(model: torch.nn.Module, example_inputs, train: bool = False, path: Optional[str] = None,
          loss_fn: Optional[Callable] = None) -> OpTrace:
    """Traces one call of `model` on the meta device and returns the op trace.

    example_inputs: a tensor or a tuple of positional arguments (tensors are replaced by meta
    tensors of the same shape, dtype and strides; their values are never read). The model's
    parameters and buffers are replaced by meta tensors for the call
    (torch.nn.utils.stateless.functional_call), so the model itself is not changed and may live on
    any device, or on "meta" (built without weights).

    train=False: model in eval mode, no autograd; the trace holds the forward ops.
    train=True: model in train mode, parameters require gradients, and the trace also holds the
    backward ops of loss_fn(output) (default: a gradient of ones for every output) and the
    parameter gradients as outputs. The optimizer step is not traced.

    path: where the trace is written (OpTrace.save); default "<model class>.ptrace" in the
    current directory. Raises TraceError naming the op and module when the model needs tensor
    values (data-dependent control flow); nothing is written then.
    """
    _meta_kernels.register()
    if not isinstance(model, torch.nn.Module):
        raise TraceError(f"photon_torch.trace expects a torch.nn.Module, got {type(model).__name__}")
    if loss_fn is not None and not callable(loss_fn):
        raise TraceError(f"loss_fn must be callable, got {type(loss_fn).__name__}")
    path = _check_path(path if path is not None else f"{type(model).__name__}.ptrace")
    if isinstance(example_inputs, (torch.Tensor, dict)) or not isinstance(example_inputs, Sequence):
        example_inputs = (example_inputs,)
    modes = {m: m.training for m in model.modules()}  # restored afterwards, per module
    model.train(train)
    rec = _Recorder()
    rec.model = type(model).__name__
    params: Dict[str, torch.Tensor] = {}
    for n, p in model.named_parameters():
        mp = _to_meta(p.detach()).requires_grad_(train and p.requires_grad)
        params[n] = mp
    for n, b in model.named_buffers():
        params[n] = _to_meta(b.detach())
    meta_inputs = tree_map(_to_meta, tuple(example_inputs))
    flat_in, _ = tree_flatten(meta_inputs)
    input_ids = []
    for k, t in enumerate(x for x in flat_in if isinstance(x, torch.Tensor)):
        name = "input" if len(flat_in) == 1 else f"input{k}"
        while name in params:  # parameters keep their state_dict names
            name += "_"
        input_ids.append(rec.add(t, "input", name))
    for n, t in params.items():
        rec.add(t, "param", n)

    def enter(name):
        def hook(module, args):
            rec.module_stack.append(name)
        return hook

    def leave(module, args, output):
        rec.module_stack.pop()

    handles = []
    for mname, mod in model.named_modules():
        if mname:
            handles.append(mod.register_forward_pre_hook(enter(mname)))
            handles.append(mod.register_forward_hook(leave))
    # nn.RNNBase (LSTM, GRU, RNN) computes from _flat_weights, a list of its parameters taken at
    # construction that functional_call's swap does not reach: refresh it from the swapped
    # attributes for the call, and back from the model's own afterwards.
    rnns = [m for m in model.modules() if isinstance(m, torch.nn.RNNBase)]
    for m in rnns:
        handles.append(m.register_forward_pre_hook(lambda mod, args: _refresh_flat_weights(mod)))
    try:
        with torch.autograd.set_grad_enabled(train), _Mode(rec):
            out = torch.nn.utils.stateless.functional_call(model, params, meta_inputs)
            flat_out = [o for o in tree_flatten(out)[0] if isinstance(o, torch.Tensor)]
            out_ids = rec.output_ids(flat_out)
            if train:
                rec.phase = "backward"
                if loss_fn is not None:
                    loss = loss_fn(out)
                    loss.backward()
                else:
                    roots = [o for o in flat_out if o.requires_grad]
                    if not roots:
                        raise TraceError("train=True: no output requires a gradient")
                    torch.autograd.backward(roots, [torch.ones_like(o) for o in roots])
                rec.phase = ""
                for n, p in params.items():
                    if isinstance(p, torch.nn.Parameter) or p.requires_grad:
                        if p.grad is not None:
                            out_ids.append(rec.value_of(p.grad))
    except TraceError:
        raise
    except Exception as e:  # a meta kernel missing, shape errors, value-dependent Python code
        where = rec.module()
        last = rec.ops[-1]["op"] if rec.ops else "(no op yet)"
        at = f"in {rec.failed}" if rec.failed else f"after {last}"
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise TraceError(f"{type(model).__name__} failed to trace{' in module ' + repr(where) if where else ''} "
                         f"{at}: {type(e).__name__}: {msg}") from e
    finally:
        for h in handles:
            h.remove()
        for m in rnns:
            _refresh_flat_weights(m)
        for m, mode in modes.items():
            m.training = mode
    data = {
        "format": FORMAT,
        "version": VERSION,
        "producer": f"photon_torch {_version()}, torch {torch.__version__}",
        "model": type(model).__name__,
        "mode": "training" if train else "inference",
        "tensors": rec.tensors,
        "inputs": input_ids,
        "outputs": out_ids,
        "ops": rec.ops,
    }
    t = OpTrace(data)
    t.save(path)
    return t


def trace_graph(gm: torch.fx.GraphModule, example_inputs, kinds: List[str], names: List[str], model: str,
                mode: str, module: str) -> OpTrace:
    """Records an FX graph of ATen ops (an AOTAutograd forward or backward graph) as an op trace:
    the graph is interpreted on meta copies of `example_inputs`; placeholder i gets kind kinds[i]
    ("input" or "param") and name names[i]; every op gets the module path `module`."""
    _meta_kernels.register()
    rec = _Recorder()
    rec.model = model
    meta = [_to_meta(x).requires_grad_(False) if isinstance(x, torch.Tensor) else x for x in example_inputs]
    input_ids = []
    for x, kind, name in zip(meta, kinds, names):
        if isinstance(x, torch.Tensor):
            vid = rec.add(x, kind, name)
            if kind == "input":
                input_ids.append(vid)
    rec.phase = module
    try:
        with torch.no_grad(), _Mode(rec):
            out = torch.fx.Interpreter(gm).run(*meta)
    except TraceError:
        raise
    except Exception as e:
        last = rec.ops[-1]["op"] if rec.ops else "(no op yet)"
        at = f"in {rec.failed}" if rec.failed else f"after {last}"
        raise TraceError(f"{model} {module} graph failed to trace {at}: {type(e).__name__}: "
                         f"{str(e).strip().splitlines()[0] if str(e).strip() else ''}") from e
    outs = rec.output_ids([o for o in tree_flatten(out)[0] if isinstance(o, torch.Tensor)])
    return OpTrace({"format": FORMAT, "version": VERSION, "producer": f"photon_torch {_version()}, torch "
                    f"{torch.__version__} (AOTAutograd {module} graph)", "model": model, "mode": mode,
                    "tensors": rec.tensors, "inputs": input_ids, "outputs": outs, "ops": rec.ops})


def _version() -> str:
    from . import __version__
    return __version__
