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


def ideal_mm(a, b):
    """The engine's ideal numerics (models/optical_gemm/README.md): c = fl(c + fl(a[:, p] b[p, :]))
    for p = 0, 1, ..., k-1, in fp32 (the oracle, a plain loop)."""
    a, b = a.double().numpy().astype("float32"), b.double().numpy().astype("float32")
    import numpy as np
    c = np.zeros((a.shape[0], b.shape[1]), dtype=np.float32)
    for p in range(a.shape[1]):
        c = (c + (a[:, p:p + 1] * b[p:p + 1, :]).astype(np.float32)).astype(np.float32)
    return torch.from_numpy(c)


class Indexing(unittest.TestCase):
    def test_advanced_indexing_on_any_dim_equals_the_cpu(self):
        dev = pt.device()
        x = torch.randn(4, 5)
        xd = x.to(dev)
        i, j = torch.tensor([0, 2]), torch.tensor([1, 3])
        mask = torch.tensor([True, False, True, False, True])
        cases = [(lambda t, k: t[:, [0, 2]]), (lambda t, k: t[:, k(i)]), (lambda t, k: t[..., k(j)]),
                 (lambda t, k: t[k(i), k(j)]), (lambda t, k: t[:, k(mask)]), (lambda t, k: t[1:, None, k(i)])]
        for n, f in enumerate(cases):
            with self.subTest(case=n):
                self.assertTrue(torch.equal(f(xd, lambda t: t.to(dev)).cpu(), f(x, lambda t: t)))
        a, b = x.clone(), xd.clone()
        a[:, [1, 3]] = 0
        b[:, torch.tensor([1, 3]).to(dev)] = 0
        self.assertTrue(torch.equal(b.cpu(), a))


class Products(unittest.TestCase):
    def setUp(self):
        self.dev = pt.device()
        pt.configure()
        pt.reset_stats()

    def test_mv_addmv_baddbmm_and_out_forms_run_on_the_engine(self):
        torch.manual_seed(0)
        dev = self.dev
        a, v, w = torch.randn(6, 40), torch.randn(40), torch.randn(6)
        b1, b2, c = torch.randn(2, 5, 40), torch.randn(2, 40, 3), torch.randn(2, 5, 3)
        m1, m2 = torch.randn(5, 40), torch.randn(40, 7)
        col = ideal_mm(a, v[:, None])[:, 0]
        self.assertTrue(torch.equal((a.to(dev) @ v.to(dev)).cpu(), col))
        self.assertTrue(torch.equal(torch.addmv(w.to(dev), a.to(dev), v.to(dev), beta=0.5, alpha=2.0).cpu(),
                                    col * 2.0 + 0.5 * w))
        bat = torch.stack([ideal_mm(b1[i], b2[i]) for i in range(2)])
        self.assertTrue(torch.equal(torch.baddbmm(c.to(dev), b1.to(dev), b2.to(dev), beta=0.5, alpha=2.0).cpu(),
                                    bat * 2.0 + 0.5 * c))
        out = torch.empty(0).to(dev)
        torch.mm(m1.to(dev), m2.to(dev), out=out)
        self.assertTrue(torch.equal(out.cpu(), ideal_mm(m1, m2)))
        out = torch.empty(2, 5, 3).to(dev)
        torch.bmm(b1.to(dev), b2.to(dev), out=out)
        self.assertTrue(torch.equal(out.cpu(), bat))
        out = torch.empty(6).to(dev)
        torch.mv(a.to(dev), v.to(dev), out=out)
        self.assertTrue(torch.equal(out.cpu(), col))
        bias = torch.randn(5, 7)
        out = torch.empty(5, 7).to(dev)
        torch.addmm(bias.to(dev), m1.to(dev), m2.to(dev), out=out)
        self.assertTrue(torch.equal(out.cpu(), ideal_mm(m1, m2) + bias))
        out = torch.empty(6).to(dev)
        torch.addmv(w.to(dev), a.to(dev), v.to(dev), out=out)
        self.assertTrue(torch.equal(out.cpu(), col + w))
        out = torch.empty(2, 5, 3).to(dev)
        torch.baddbmm(c.to(dev), b1.to(dev), b2.to(dev), out=out)
        self.assertTrue(torch.equal(out.cpu(), bat + c))
        s = pt.stats(timing=False)
        self.assertEqual(s["device_ops"], {"aten::mv": 2, "aten::addmv": 2, "aten::baddbmm": 2, "aten::mm": 1,
                                           "aten::bmm": 1, "aten::addmm": 1})
        for op in s["fallback_ops"]:
            self.assertNotRegex(op, r"mm|mv")

    def test_physical_mv_is_the_engines_one_column_product(self):
        pt.configure(set={"optical_gemm.numerics": "physical", "optical_gemm.adc_bits": 6})
        torch.manual_seed(1)
        a, v = torch.randn(6, 40), torch.randn(40)
        y = (a.to(self.dev) @ v.to(self.dev)).cpu()
        pt.configure(set={"optical_gemm.numerics": "physical", "optical_gemm.adc_bits": 6})  # same stream
        ref = (a.to(self.dev) @ v[:, None].to(self.dev)).cpu()[:, 0]
        self.assertTrue(torch.equal(y, ref))
        self.assertFalse(torch.equal(y, a @ v))  # quantised, not the CPU's
        pt.configure()


class OperandErrors(unittest.TestCase):
    def test_operand_errors_name_the_op_and_the_operand(self):
        dev = pt.device()
        a = torch.randn(3, 3)
        cases = [(lambda: a.to(dev) @ a, "photon device: aten::mm: mat2 is on cpu, the other operands on the device"),
                 (lambda: torch.addmm(a, a.to(dev), a.to(dev)), "photon device: aten::addmm: self is on cpu"),
                 (lambda: a.to(dev) @ a.double().to(dev), "photon device: aten::mm: mat2 has dtype Double")]
        for f, text in cases:
            with self.subTest(text=text):
                with self.assertRaises(RuntimeError) as e:
                    f()
                self.assertIn(text, str(e.exception).splitlines()[0])


class DeviceIndex(unittest.TestCase):
    def test_an_index_other_than_0_is_an_error_naming_it(self):
        pt.device()
        for f in (lambda: torch.ones(2).to(torch.device("privateuseone", 1)),
                  lambda: torch.ones(2, device="privateuseone:3"),
                  lambda: torch.empty(2, 2, device=torch.device("privateuseone", 2))):
            with self.assertRaises(RuntimeError) as e:
                f()
            msg = str(e.exception).splitlines()[0]
            self.assertRegex(msg, r"photon device: privateuseone:[123] does not exist; the platform is one device")
        self.assertEqual(torch.ones(2, device="privateuseone:0").device, torch.device("privateuseone", 0))


class Memory(unittest.TestCase):
    def test_requests_beyond_the_simulated_hbm_are_its_error_not_the_hosts(self):
        pt.device()
        pt.configure()
        cap = pt.stats(timing=False)["memory"]["capacity_bytes"]
        for n in (cap // 4 + 1, 16 * 2 ** 30, 2 ** 58):
            with self.subTest(elements=n):
                with self.assertRaises(RuntimeError) as e:
                    torch.empty(n, device=pt.device())
                msg = str(e.exception).splitlines()[0]
                self.assertIn(f"photon device: out of simulated HBM: {4 * n} bytes requested", msg)
                self.assertIn(f"of {cap} in use", msg)


class Save(unittest.TestCase):
    def test_torch_save_and_load_of_device_tensors_round_trip(self):
        dev = pt.device()
        x = torch.randn(3, 4)
        state = {"w": x.to(dev), "v": x[1].to(dev), "cpu": x}
        f = os.path.join(TMP, "t.pt")
        torch.save(state, f)
        back = torch.load(f)
        self.assertEqual(back["w"].device, dev)
        self.assertTrue(torch.equal(back["w"].cpu(), x))
        self.assertTrue(torch.equal(back["v"].cpu(), x[1]))
        self.assertEqual(back["cpu"].device.type, "cpu")
        m = torch.nn.Linear(4, 2).to(dev)
        torch.save(m.state_dict(), f)
        m2 = torch.nn.Linear(4, 2)
        m2.load_state_dict(torch.load(f))  # copied into the CPU module's parameters
        self.assertTrue(torch.equal(m2.weight, m.weight.cpu()))


class NonFinite(unittest.TestCase):
    def test_physical_numerics_saturate_infinities_at_the_converters_range(self):
        dev = pt.device()
        pt.configure(set={"optical_gemm.numerics": "physical", "optical_gemm.noise_std": 0})
        torch.manual_seed(2)
        a, b = torch.randn(4, 16), torch.randn(16, 8)  # K = 16: one K tile of the 32-wide array
        fs = a.abs().max()
        for value, saturated in ((float("inf"), fs), (float("-inf"), -fs)):
            with self.subTest(value=value):
                ai = a.clone()
                ai[0, 0] = value
                sat = a.clone()
                sat[0, 0] = saturated  # the DAC's output for an input beyond its range
                y = (ai.to(dev) @ b.to(dev)).cpu()
                self.assertTrue(torch.isfinite(y).all())
                self.assertTrue(torch.equal(y, (sat.to(dev) @ b.to(dev)).cpu()))
        an = a.clone()
        an[0, 3] = float("nan")
        y = (an.to(dev) @ b.to(dev)).cpu()
        self.assertTrue(torch.isnan(y[0]).all())  # as the CPU: NaN reaches its own row only
        zero = a.clone()
        zero[0, 3] = 0.0
        self.assertTrue(torch.equal(y[1:], (zero.to(dev) @ b.to(dev)).cpu()[1:]))
        big = torch.full((2, 16), 3e38)  # products beyond the float range: the ADC reads its range
        y = (big.to(dev) @ big.t().contiguous().to(dev)).cpu()
        self.assertTrue(torch.isfinite(y).all())
        pt.configure()


if __name__ == "__main__":
    unittest.main(verbosity=2)
