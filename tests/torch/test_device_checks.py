"""The Photon device at its edges, with the real torch: autograd whatever ran first, indexing,
the matrix-product variants through the engine's numerics, device indices, allocation limits,
torch.save, non-finite inputs of the physical numerics.

Run by ctest (tests/torch/CMakeLists.txt) as /usr/bin/python3 tests/torch/test_device_checks.py
with PYTHONPATH=python and PHOTON_BUILD_DIR set.
"""
import os
import subprocess
import sys
import tempfile
import unittest

import torch

import photon_torch as pt

_TMP = tempfile.TemporaryDirectory(prefix="photon_torch_test_")
TMP = _TMP.name


def python(code):
    """Runs `code` in a fresh /usr/bin/python3 (same environment); returns (status, stdout, stderr)."""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout.strip(), p.stderr.strip()


class Autograd(unittest.TestCase):
    def test_backward_on_the_device_after_a_cpu_backward(self):
        # The CPU backward starts torch's autograd engine; the device was registered on import.
        rc, out, err = python("import torch, photon_torch as pt\n"
                              "w = torch.randn(2, 2, requires_grad=True); (w * 2).sum().backward()\n"
                              "x = torch.ones(2, 2, device=pt.device(), requires_grad=True)\n"
                              "(x @ x).sum().backward(); print(x.grad.cpu().tolist())")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "[[4.0, 4.0], [4.0, 4.0]]")  # d/dx sum(x @ x) = 1 x^T + x^T 1

    def test_a_backward_before_the_import_is_one_clear_error(self):
        rc, out, err = python("import torch\n"
                              "w = torch.randn(2, 2, requires_grad=True); (w * 2).sum().backward()\n"
                              "import photon_torch as pt\n"
                              "try:\n    pt.device()\nexcept pt.PhotonTorchError as e:\n    print(e)")
        self.assertEqual(rc, 0, err)
        self.assertIn("a backward pass ran before photon_torch registered the device", out)
        self.assertIn("import photon_torch before the first backward", out)
        self.assertEqual(len(out.splitlines()), 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
