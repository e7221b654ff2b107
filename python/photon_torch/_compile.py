"""Graph capture: photon_torch.compile(model) captures the forward graph (and, when the output
is differentiated, the backward graph) with functorch.compile.aot_module (AOTAutograd), lowers
each graph through Photon's lowering by writing it as an op trace and simulating it with
`photon run`, prints "<kind> graph of N ops: X ms simulated" and keeps the reports. The results
are computed by the model itself in eager PyTorch, so user code is unchanged.

The graphs are captured on a copy of the model, once per distinct input signature (shapes,
dtypes, devices, requires_grad): torch 1.13's AOTAutograd runs the module's in-place buffer
updates (BatchNorm's running statistics, num_batches_tracked) several times while it traces, and
drops them from the graphs it returns, so a module behind it would get wrong running statistics.
The model's own forward runs every call, updating its buffers exactly as eager PyTorch does.
"""
from __future__ import annotations

import builtins
import copy
import os
import sys
import tempfile
from typing import Any, Dict, List, Optional

import torch
from functorch.compile import aot_module, make_boxed_func
from torch.utils._pytree import tree_flatten, tree_map

from ._errors import PlatformError, TraceError
from ._runner import run_workload
from ._trace import trace_graph


class CompiledModule(torch.nn.Module):
    """`model` behind AOTAutograd; `reports` holds one entry per captured graph:
    {"graph": "forward" | "backward", "ops": N ATen ops, "simulated_ms": X, "unsupported":
    [{op, name, reason, ...}], "report": the full `photon run` report} (or "error" instead of
    simulated_ms and report when the platform could not simulate the graph)."""

    def __init__(self, model: torch.nn.Module, config: Optional[str], set: Optional[Dict[str, Any]], quiet: bool):
        super().__init__()
        self.model = model
        self.config = config
        self.set = dict(set or {})
        self.quiet = quiet
        self.reports: List[dict] = []
        self._param_names: Dict[int, str] = {}
        self._signatures: set = builtins.set()

    def forward(self, *args, **kwargs):
        sig = _signature((args, kwargs))
        if sig not in self._signatures:
            self._signatures.add(sig)
            self._capture(args, kwargs)
        return self.model(*args, **kwargs)

    def _capture(self, args, kwargs) -> None:
        """Captures (and simulates) the forward graph, and the backward graph when gradients are
        enabled and an output requires one (the backward of a gradient of ones), on a copy of the
        model and of the inputs: the model, its buffers and its gradients are not touched."""
        shadow = copy.deepcopy(self.model)
        self._param_names = {id(p): n for n, p in shadow.named_parameters()}
        self._param_names.update({id(b): n for n, b in shadow.named_buffers()})
        aot = aot_module(shadow, fw_compiler=self._compiler("forward"), bw_compiler=self._compiler("backward"))

        def clone(t):
            if isinstance(t, torch.Tensor):
                return t.detach().clone().requires_grad_(t.requires_grad)
            return t
        cargs, ckwargs = tree_map(clone, (args, kwargs))
        out = aot(*cargs, **ckwargs)
        if torch.is_grad_enabled():
            roots = [o for o in tree_flatten(out)[0] if isinstance(o, torch.Tensor) and o.requires_grad]
            if roots:
                torch.autograd.backward(roots, [torch.ones_like(o) for o in roots])

    def _compiler(self, kind: str):
        def compile_graph(gm: torch.fx.GraphModule, example_inputs):
            self._simulate(kind, gm, example_inputs)
            return make_boxed_func(gm)
        return compile_graph

    def _simulate(self, kind: str, gm, example_inputs) -> None:
        kinds, names = [], []
        for k, x in enumerate(example_inputs):
            n = self._param_names.get(id(x))
            kinds.append("param" if n is not None else "input")
            names.append(n if n is not None else f"{kind}_input{k}")
        mode = "training" if kind == "backward" or torch.is_grad_enabled() else "inference"
        tr = trace_graph(gm, example_inputs, kinds, names, type(self.model).__name__, mode, kind)
        entry = {"graph": kind, "ops": len(tr.ops)}
        with tempfile.TemporaryDirectory(prefix="photon_torch.") as d:
            path = tr.save(os.path.join(d, f"{kind}.ptrace"))
            try:
                report = run_workload(path, config=self.config, set=self.set)
            except PlatformError as e:
                entry["error"] = str(e)
                self.reports.append(entry)
                if not self.quiet:
                    print(f"photon_torch: {kind} graph of {len(tr.ops)} ops: not simulated: {e}", file=sys.stderr)
                return
        entry["simulated_ms"] = report["simulated_time_ns"] / 1e6
        entry["unsupported"] = report.get("unsupported", [])
        entry["report"] = report
        self.reports.append(entry)
        if self.quiet:
            return
        print(f"photon_torch: {kind} graph of {len(tr.ops)} ops: {entry['simulated_ms']:.3f} ms simulated")
        by_reason: Dict[tuple, int] = {}
        for u in entry["unsupported"]:
            key = (u["op"], u["reason"])
            by_reason[key] = by_reason.get(key, 0) + 1
        for (op, reason), n in sorted(by_reason.items()):
            print(f"  on the host: {op} x{n}: {reason}")


def _signature(inputs) -> tuple:
    """What makes AOTAutograd capture anew: each tensor's shape, dtype, device and requires_grad,
    every other value as itself (its repr)."""
    out = []
    for x in tree_flatten(inputs)[0]:
        if isinstance(x, torch.Tensor):
            out.append((tuple(x.shape), str(x.dtype), str(x.device), x.requires_grad))
        else:
            out.append(repr(x))
    return tuple(out) + (torch.is_grad_enabled(),)


def compile(model: torch.nn.Module, config: Optional[str] = None, set: Optional[Dict[str, Any]] = None,
            quiet: bool = False) -> CompiledModule:
    """Returns `model` wrapped so that its first call (and the first call of each new input
    signature) captures the forward graph and, when gradients are enabled, the backward graph, on
    a copy of the model, and simulates each on the platform (config: a platform YAML file,
    default configs/default.yaml; set: key overrides as `photon run --set`). Prints one line per
    graph, "<kind> graph of N ops: X ms simulated", and one line per kind of op Photon runs on the
    host with the reason (unless quiet). Results are computed eagerly by PyTorch."""
    if not isinstance(model, torch.nn.Module):
        raise TraceError(f"photon_torch.compile expects a torch.nn.Module, got {type(model).__name__}")
    return CompiledModule(model, config, set, quiet)
