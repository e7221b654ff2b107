"""The Photon device (PrivateUse1, device string "privateuseone" in torch 1.13).

The device library (build/python/libphoton_torch_device.so, python/photon_torch/csrc) holds
tensors in the simulated HBM, runs matrix products and convolutions through the optical GEMM
engine's numerics and counts every op. Timing comes from the platform itself: each distinct
device op (its shapes and arguments, a "signature") is written as a one-op trace and simulated by
`photon run` once per configuration; stats() multiplies by the counts (docs/torch.md "Device").
"""
from __future__ import annotations

import concurrent.futures
import json
import os
import subprocess
import tempfile
import threading
from typing import Any, Dict, List, Optional

import torch

from . import _paths
from ._errors import PhotonTorchError, PlatformError
from ._runner import run_workload

_lock = threading.Lock()
_loaded = False
_config: Dict[str, Any] = {"file": None, "set": {}}
_timing_cache: Dict[str, dict] = {}  # (config, signature) -> {"ns": ..., "units": {...}} or {"error": ...}


_registered = False
_register_error: Optional[str] = None


def register() -> None:
    """Loads the device library (its DeviceGuardImplInterface, allocator and kernels), without
    configuring it. photon_torch calls this on import when the library is built: torch's autograd
    engine sizes its per-device queues once, at the first backward of the process, from the
    devices registered then, so the device must be registered before any backward runs. Raises
    PhotonTorchError when the first backward ran before (torch 1.13 cannot add the device later)."""
    global _registered, _register_error
    if _register_error is not None:
        raise PhotonTorchError(_register_error)
    if _registered:
        return
    torch.ops.load_library(_paths.device_library())
    _registered = True
    _pickle_device_tensors()
    # A backward on the device: fails inside torch's engine (an internal assert on its device
    # queues) exactly when the engine started before the device was registered.
    try:
        x = torch.zeros(1, device=torch.device("privateuseone", 0), requires_grad=True)
        x.sum().backward()
    except RuntimeError as e:
        if "device_ready_queues_" not in str(e):
            raise
        _register_error = (
            "photon device: a backward pass ran before photon_torch registered the device, and torch 1.13's "
            "autograd engine cannot add a device afterwards: import photon_torch before the first backward")
        raise PhotonTorchError(_register_error) from None
    finally:
        torch.ops.photon.reset_stats()


def _pickle_device_tensors() -> None:
    """torch.save / pickle of device tensors. torch 1.13 pickles a tensor through its storage,
    and its storage code knows no PrivateUse1 storage ("Invalid device for storage"): torch.save
    failed after writing part of the file. Device tensors are pickled instead the way torch 1.13
    pickles PrivateUse1 tensors without storage (torch/_tensor.py, _reduce_ex_internal): their
    values as a host array, rebuilt on the device by torch._utils._rebuild_device_tensor_from_numpy.
    Each tensor is saved with its own values (views of one storage are not shared on load), and
    torch.load puts them back on the device whatever its map_location."""
    original = torch.Tensor._reduce_ex_internal
    if getattr(original, "_photon", False):
        return

    def _reduce_ex_internal(self, proto):
        if self.device.type != "privateuseone":
            return original(self, proto)
        host = self.detach().cpu()
        values = host.numpy() if host.dtype != torch.bfloat16 else host.to(torch.float32).numpy()
        return (torch._utils._rebuild_device_tensor_from_numpy,
                (values, self.dtype, str(self.device), self.requires_grad))

    _reduce_ex_internal._photon = True
    torch.Tensor._reduce_ex_internal = _reduce_ex_internal


def _load() -> None:
    global _loaded
    with _lock:
        if not _loaded:
            register()
            _loaded = True
            _configure_locked(None, None)


def _sets(set: Optional[Dict[str, Any]]) -> List[str]:
    out = []
    for k, v in (set or {}).items():
        if isinstance(v, bool):
            v = "true" if v else "false"
        out.append(f"{k}={v}")
    return out


def _configure_locked(config: Optional[str], set: Optional[Dict[str, Any]]) -> None:
    # The platform resolves and checks the configuration (`photon config`: the same registry and
    # errors as `photon run`); the device takes its keys from the resolved JSON.
    file = os.fspath(config) if config else _paths.default_config()
    cmd = [_paths.photon_binary(), "config", "--config", file]
    for kv in _sets(set):
        cmd += ["--set", kv]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        lines = [l for l in p.stderr.strip().splitlines() if l.strip()]
        raise PlatformError(lines[-1] if lines else f"photon config exited with status {p.returncode}")
    source = " ".join([file] + [f"--set {kv}" for kv in _sets(set)])
    try:
        torch.ops.photon.configure(p.stdout, source)
    except RuntimeError as e:
        raise PlatformError(str(e).strip().splitlines()[0]) from None
    _config["file"] = file
    _config["set"] = dict(set or {})


def device(config: Optional[str] = None, set: Optional[Dict[str, Any]] = None) -> torch.device:
    """The Photon device, torch.device("privateuseone", 0). Loads the device library on first use
    and, if `config` (a platform YAML file) or `set` ({"optical_gemm.numerics": "physical", ...})
    is given, configures it (see configure())."""
    _load()
    if config is not None or set is not None:
        configure(config, set)
    return torch.device("privateuseone", 0)


def configure(config: Optional[str] = None, set: Optional[Dict[str, Any]] = None) -> None:
    """Configures the device from a platform configuration (default: configs/default.yaml) and
    overrides, checked by the platform's registry exactly as `photon run --config --set` (an unknown
    key or a bad value raises PlatformError naming the key). The optical_gemm.* numerics keys
    (numerics, rows, cols, dac_bits, weight_bits, adc_bits, noise_std, seed) set the arithmetic;
    the HBM keys and cpu.ring_base set the simulated memory's capacity; every key sets the timing.
    Restarts the noise streams, so the same seed and op sequence give the same results."""
    _load()
    with _lock:
        _configure_locked(config, set)


def reset_stats() -> None:
    """Zeroes the op counters (the memory in use stays)."""
    _load()
    torch.ops.photon.reset_stats()


def address_of(t: torch.Tensor) -> int:
    """Data-NoC byte address of a device tensor's first element in the simulated HBM."""
    _load()
    return int(torch.ops.photon.address_of(t))


def _signature_trace(sig: dict) -> dict:
    tensors, ids, views = [], [], []
    for i, t in enumerate(sig["tensors"]):
        if t.get("transposed"):  # a transposed view of a stored weight: t() of it, as a trace has
            stored = len(tensors)
            tensors.append({"kind": t["kind"], "shape": t["shape"][::-1], "dtype": "float32", "name": f"t{i}_stored"})
            ids.append(len(tensors))
            tensors.append({"kind": "value", "shape": t["shape"], "dtype": "float32", "name": f"t{i}"})
            views.append({"op": "aten::t.default", "args": {"self": {"tensor": stored}}, "outputs": [ids[-1]],
                          "aliases": [{"arg": "self", "write": False}]})
            continue
        ids.append(len(tensors))
        tensors.append({"kind": t["kind"], "shape": t["shape"], "dtype": "float32", "name": f"t{i}"})
    outs = []
    for k, shape in enumerate(sig["outs"] if "outs" in sig else [sig["out"]]):
        if shape is None:  # a result the op does not compute (output_mask false)
            outs.append(None)
            continue
        outs.append(len(tensors))
        tensors.append({"kind": "value", "shape": shape, "dtype": "float32", "name": f"out{k}"})
    args = {}
    for k, v in sig["args"].items():
        args[k] = {"tensor": ids[v["tensor"]]} if isinstance(v, dict) and "tensor" in v else v
    return {"format": "photon-op-trace", "version": 1, "producer": "photon_torch device timing",
            "model": "device_op", "mode": "inference", "tensors": tensors,
            "inputs": [i for i, t in enumerate(tensors) if t["kind"] == "input"],
            "outputs": [o for o in outs if o is not None],
            "ops": views + [{"op": sig["op"], "args": args, "outputs": outs}]}


def _time_signature(sig: dict, file: str, sets: Dict[str, Any]) -> dict:
    with tempfile.TemporaryDirectory(prefix="photon_torch.") as d:
        path = os.path.join(d, "op.ptrace")
        with open(path, "w") as f:
            json.dump(_signature_trace(sig), f)
        try:
            r = run_workload(path, config=file, set=sets)
        except PlatformError as e:
            return {"error": str(e)}
    units = {u: v["busy_ns"] for u, v in r["units"].items() if v.get("busy_ns", 0) > 0}
    return {"ns": r["simulated_time_ns"], "units": units}


def stats(timing: bool = True) -> dict:
    """The device's counters since the last reset_stats():

    simulated_time_ns   sum over device ops of count x the platform's simulated time of that op
                        alone (one `photon run` per distinct op and configuration, cached), plus
                        the host cost of the fallback ops (the lowering's host-fallback model)
    units               per unit: busy_ns (the same sums of the platform's per-unit busy times;
                        "host" for fallbacks)
    device_ops          op -> count (matrix products and convolutions on the optical engine)
    fallback_ops        op -> {count, elements, host_ns} (computed by the CPU)
    memory_ops          allocations, copies and views (no arithmetic)
    coverage            device ops / (device + fallback ops)
    memory, transfers   simulated HBM in use / peak / capacity (bytes), host<->device bytes
    timing_errors       ops the platform could not time (e.g. too large for its HBM)
    timing=False skips the platform runs (simulated_time_ns and units then cover fallbacks only).
    """
    _load()
    raw = json.loads(torch.ops.photon.stats())
    file, sets = _config["file"], dict(_config["set"])
    key_cfg = json.dumps([file, sets], sort_keys=True)
    sigs = raw.pop("signatures")
    todo = []
    for s in sigs:
        key = key_cfg + json.dumps(s["signature"], sort_keys=True)
        s["key"] = key
        if timing and key not in _timing_cache:
            todo.append(s)
    if todo:
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(lambda s: _time_signature(s["signature"], file, sets), todo))
        for s, r in zip(todo, results):
            _timing_cache[s["key"]] = r
    total = raw["host_fallback_ns"]
    units: Dict[str, float] = {"host": raw["host_fallback_ns"]} if raw["host_fallback_ns"] else {}
    errors = []
    for s in sigs:
        t = _timing_cache.get(s["key"]) if timing else None
        if t is None:
            continue
        if "error" in t:
            errors.append({"op": s["signature"]["op"], "count": s["count"], "error": t["error"]})
            continue
        total += s["count"] * t["ns"]
        for u, ns in t["units"].items():
            units[u] = units.get(u, 0.0) + s["count"] * ns
    n_dev = sum(raw["device_ops"].values())
    n_fb = sum(v["count"] for v in raw["fallback_ops"].values())
    raw["simulated_time_ns"] = total
    raw["units"] = {u: {"busy_ns": ns} for u, ns in sorted(units.items())}
    raw["coverage"] = n_dev / (n_dev + n_fb) if n_dev + n_fb else 1.0
    raw["timing_errors"] = errors
    raw["config"]["file"] = file
    raw["config"]["set"] = sets
    return raw
