"""Runs a workload file on the platform through the `photon` executable."""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
from typing import Any, Dict, Optional

from . import _paths
from ._errors import PlatformError


def _set_args(set: Optional[Dict[str, Any]]):
    args = []
    for k, v in (set or {}).items():
        if isinstance(v, bool):
            v = "true" if v else "false"
        args += ["--set", f"{k}={v}"]
    return args


def run_workload(path: str, config: Optional[str] = None, set: Optional[Dict[str, Any]] = None,
                 trace: Optional[str] = None) -> dict:
    """`photon run --workload path --config config [--set k=v]...` in timing mode; returns the
    report (docs/report.md). Raises PlatformError with photon's one-line error."""
    with tempfile.TemporaryDirectory(prefix="photon_torch.") as d:
        report = os.path.join(d, "report.json")
        cmd = [_paths.photon_binary(), "run", "--workload", os.fspath(path), "--report", report, "--quiet"]
        cmd += ["--config", config or _paths.default_config()]
        cmd += _set_args(set)
        if trace:
            cmd += ["--trace", trace]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            lines = [l for l in p.stderr.strip().splitlines() if l.strip()]
            raise PlatformError(lines[-1] if lines else f"photon exited with status {p.returncode}")
        with open(report) as f:
            return json.load(f)
