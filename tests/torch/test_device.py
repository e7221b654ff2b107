"""The Photon device and photon_torch.compile with the real torch.

Oracles: a numpy loop that rounds exactly as the engine's ideal numerics (one fp32 multiply and
one fp32 add per term, increasing k); the platform itself (`photon run --mode functional` of the
torch.onnx export of the same layers, bit for bit); the CPU (autograd gradients, BatchNorm running
statistics); single-op traces simulated by `photon run` (the device's timing).

Run by ctest as /usr/bin/python3 tests/torch/test_device.py (PYTHONPATH=python, PHOTON_BUILD_DIR).
"""
import contextlib
import io
import os
import re
import subprocess
import tempfile
import unittest
import warnings

import numpy as np
import onnx
from onnx import numpy_helper
import torch

import photon_torch as pt
from photon_torch.models import SmallCnn

PHOTON = os.path.join(os.environ.get("PHOTON_BUILD_DIR", "build"), "photon")
DEV = pt.device()


def sequential_mm(a, b):
    """c[i,j] = sum_p a[i,p] * b[p,j] in fp32, one rounding per multiply and per add, p increasing."""
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    c = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for p in range(a.shape[1]):
        c = c + np.outer(a[:, p], b[p, :])
    return c


def platform_outputs(model, x, sets=()):
    """Outputs of `photon run --mode functional` on the torch.onnx export of `model` with input x."""
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "m.onnx")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, x, f, opset_version=14, input_names=["x"], output_names=["y"])
        with open(os.path.join(d, "x.pb"), "wb") as g:
            g.write(numpy_helper.from_array(x.numpy(), "x").SerializeToString())
        cmd = [PHOTON, "run", "--workload", f, "--mode", "functional", "--input", "x=" + os.path.join(d, "x.pb"),
               "--dump-outputs", os.path.join(d, "out"), "--quiet"]
        for s in sets:
            cmd += ["--set", s]
        subprocess.run(cmd, check=True, capture_output=True)
        t = onnx.TensorProto()
        with open(os.path.join(d, "out", "y.pb"), "rb") as g:
            t.ParseFromString(g.read())
        return numpy_helper.to_array(t)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8 * 6 * 6, 5)

    def forward(self, x):
        return self.fc(torch.flatten(torch.relu(self.conv(x)), 1))


def on_device(model):
    return model.to(DEV)


class Numerics(unittest.TestCase):
    def setUp(self):
        pt.configure(set={"optical_gemm.numerics": "ideal"})

    def test_ideal_products_round_like_the_engine(self):
        g = torch.Generator().manual_seed(1)
        a, b = torch.randn(150, 300, generator=g), torch.randn(300, 45, generator=g)
        bias = torch.randn(45, generator=g)
        oracle = sequential_mm(a, b)
        self.assertTrue(np.array_equal((a.to(DEV) @ b.to(DEV)).cpu().numpy(), oracle))
        y = torch.addmm(bias.to(DEV), a.to(DEV), b.to(DEV)).cpu().numpy()
        self.assertTrue(np.array_equal(y, oracle + bias.numpy()))
        x3, w3 = torch.randn(3, 20, 30, generator=g), torch.randn(3, 30, 7, generator=g)
        y3 = torch.bmm(x3.to(DEV), w3.to(DEV)).cpu().numpy()
        for i in range(3):
            self.assertTrue(np.array_equal(y3[i], sequential_mm(x3[i], w3[i])))

    def test_ideal_device_equals_the_platform_bit_for_bit(self):
        torch.manual_seed(0)
        model = Net().eval()
        x = torch.randn(2, 3, 6, 6)
        expected = platform_outputs(model, x)
        with torch.no_grad():
            y = on_device(Net().eval().requires_grad_(False))
            y.load_state_dict(model.state_dict())
            got = y(x.to(DEV)).cpu().numpy()
        self.assertTrue(np.array_equal(got, expected), np.abs(got - expected).max())
        self.assertFalse(np.array_equal(got, model(x).detach().numpy()))  # CPU BLAS rounds otherwise

    def test_physical_device_equals_the_platform_bit_for_bit(self):
        sets = {"optical_gemm.numerics": "physical", "optical_gemm.dac_bits": 6, "optical_gemm.adc_bits": 6,
                "optical_gemm.noise_std": 0}
        torch.manual_seed(0)
        model = torch.nn.Linear(64, 16).eval()
        x = torch.randn(4, 64)
        expected = platform_outputs(model, x, [f"{k}={v}" for k, v in sets.items()])
        pt.configure(set=sets)
        with torch.no_grad():
            got = torch.nn.Linear(64, 16).eval()
            got.load_state_dict(model.state_dict())
            got = got.to(DEV)(x.to(DEV)).cpu().numpy()
        self.assertTrue(np.array_equal(got, expected), np.abs(got - expected).max())
        ideal = (x @ model.weight.t() + model.bias).detach().numpy()
        self.assertGreater(np.abs(got - ideal).max(), 0)  # 6-bit converters change the result

    def test_physical_noise_is_reproducible_per_seed(self):
        x, w = torch.randn(32, 64).to(DEV), torch.randn(64, 32).to(DEV)
        runs = []
        for seed in (7, 7, 8):
            pt.configure(set={"optical_gemm.numerics": "physical", "optical_gemm.noise_std": 0.05,
                              "optical_gemm.seed": seed})
            runs.append((x @ w).cpu())
        self.assertTrue(torch.equal(runs[0], runs[1]))
        self.assertFalse(torch.equal(runs[0], runs[2]))


class Training(unittest.TestCase):
    def setUp(self):
        pt.configure(set={"optical_gemm.numerics": "ideal"})

    def test_autograd_gradients_match_the_cpu(self):
        torch.manual_seed(0)
        cpu = SmallCnn()
        dev = SmallCnn()
        dev.load_state_dict(cpu.state_dict())
        dev = dev.to(DEV)
        x, y = torch.randn(6, 1, 8, 8), torch.tensor([0, 1, 2, 3, 4, 5])
        torch.nn.functional.cross_entropy(cpu(x), y).backward()
        torch.nn.functional.cross_entropy(dev(x.to(DEV)), y.to(DEV)).backward()
        for (n, p), q in zip(cpu.named_parameters(), dev.parameters()):
            self.assertEqual(q.grad.device, DEV, n)
            torch.testing.assert_close(q.grad.cpu(), p.grad, rtol=1e-4, atol=1e-5, msg=n)

    def test_batchnorm_running_statistics_follow_the_cpu(self):
        torch.manual_seed(0)
        cpu = torch.nn.BatchNorm2d(4)
        dev = torch.nn.BatchNorm2d(4).to(DEV)
        for _ in range(3):
            x = torch.randn(8, 4, 5, 5) * 3 + 1
            cpu(x)
            dev(x.to(DEV))
        torch.testing.assert_close(dev.running_mean.cpu(), cpu.running_mean)
        torch.testing.assert_close(dev.running_var.cpu(), cpu.running_var)
        self.assertEqual(int(dev.num_batches_tracked.cpu()), 3)
        self.assertGreater(float(cpu.running_mean.abs().min()), 0.05)  # the statistics did move


class Stats(unittest.TestCase):
    def test_every_op_is_counted_and_device_time_is_the_platforms(self):
        pt.configure(set={"optical_gemm.numerics": "ideal"})
        torch.manual_seed(0)
        model = SmallCnn().eval()
        x = torch.randn(4, 1, 8, 8)
        dev = SmallCnn().eval()
        dev.load_state_dict(model.state_dict())
        dev = dev.to(DEV)
        xd = x.to(DEV)
        pt.reset_stats()
        with torch.no_grad():
            dev(xd)
        s = pt.stats()
        self.assertEqual(s["device_ops"], {"aten::convolution": 2, "aten::addmm": 1})
        fb = s["fallback_ops"]
        self.assertEqual(fb["aten::relu"]["count"], 2)
        self.assertEqual(fb["aten::relu"]["elements"], 2 * (4 * 16 * 64) + 2 * (4 * 32 * 64))
        self.assertEqual(fb["aten::native_batch_norm"]["count"], 2)
        host = sum(v["host_ns"] for v in fb.values())
        self.assertAlmostEqual(host, sum(10000.0 * v["count"] + v["elements"] for v in fb.values()))
        self.assertEqual(s["timing_errors"], [])
        # Oracle: the same three ops traced on their own (trace -> torch frontend -> platform).
        parts = [(torch.nn.Conv2d(1, 16, 3, padding=1), torch.empty(4, 1, 8, 8)),
                 (torch.nn.Conv2d(16, 32, 3, padding=1), torch.empty(4, 16, 8, 8)),
                 (torch.nn.Linear(512, 10), torch.empty(4, 512))]
        with tempfile.TemporaryDirectory() as d:
            device_ns = sum(pt.run_workload(pt.trace(m, i, path=os.path.join(d, f"op{k}.ptrace")).path)
                            ["simulated_time_ns"] for k, (m, i) in enumerate(parts))
        self.assertAlmostEqual(s["simulated_time_ns"], device_ns + host, delta=1e-6 * device_ns)
        self.assertAlmostEqual(s["units"]["host"]["busy_ns"], host)
        self.assertGreater(s["units"]["optical_gemm"]["busy_ns"], 0)
        self.assertAlmostEqual(s["coverage"], 3 / (3 + sum(v["count"] for v in fb.values())))

    def test_fallback_ops_compute_what_the_cpu_computes(self):
        g = torch.Generator().manual_seed(3)
        x = torch.randn(2, 3, 4, generator=g)
        xd = x.to(DEV)
        self.assertTrue(torch.equal(xd[xd > 0].cpu(), x[x > 0]))  # index with a tensor list argument
        i = torch.tensor([1])
        xd[i.to(DEV)] = 0.0  # index_put_: an in-place write through the fallback
        x[i] = 0.0
        self.assertTrue(torch.equal(xd.cpu(), x))
        xd.relu_()
        self.assertTrue(torch.equal(xd.cpu(), x.relu()))
        self.assertTrue(torch.equal(torch.cat([xd, xd], 1).cpu(), torch.cat([x.relu(), x.relu()], 1)))

    def test_tensors_live_in_the_simulated_hbm(self):
        a, b = torch.empty(1000, device=DEV), torch.empty(10, device=DEV)
        s = pt.stats(timing=False)
        cap = s["memory"]["capacity_bytes"]
        addrs = [pt.address_of(a), pt.address_of(b)]
        self.assertNotEqual(addrs[0], addrs[1])
        for addr in addrs:
            self.assertEqual(addr % 64, 0)
            self.assertLess(addr, cap)  # noc.hbm_base is 0 in the default configuration
        self.assertEqual(pt.address_of(a[10:]), addrs[0] + 40)
        self.assertGreaterEqual(s["memory"]["in_use_bytes"], 4000 + 40)


class Errors(unittest.TestCase):
    def test_unsupported_dtypes_bad_keys_and_full_memory_are_one_line_errors(self):
        with self.assertRaises(RuntimeError) as cm:
            torch.randn(4, 4, dtype=torch.float64).to(DEV) @ torch.randn(4, 4, dtype=torch.float64).to(DEV)
        msg = str(cm.exception).splitlines()[0]
        self.assertIn("photon device: aten::mm: self has dtype Double; the optical GEMM engine computes float32", msg)
        with self.assertRaises(pt.PlatformError) as cm:
            pt.configure(set={"optical_gemm.dac_bitz": 4})
        self.assertIn("optical_gemm.dac_bitz", str(cm.exception))
        with self.assertRaises(pt.PlatformError) as cm:
            pt.configure(set={"optical_gemm.dac_bits": 99})
        self.assertIn("optical_gemm.dac_bits", str(cm.exception))
        pt.configure(set={"cpu.ring_base": 1 << 20})  # 1 MiB of HBM below the command ring
        try:
            with self.assertRaises(RuntimeError) as cm:
                torch.empty(1 << 19, device=DEV)  # 2 MiB
            self.assertIn("photon device: out of simulated HBM: 2097152 bytes requested", str(cm.exception))
        finally:
            pt.configure()


class Compile(unittest.TestCase):
    def test_compiled_model_computes_eagerly_and_reports_each_graph(self):
        torch.manual_seed(0)
        model = SmallCnn()
        ref = SmallCnn()
        ref.load_state_dict(model.state_dict())
        cm = pt.compile(model)
        x, y = torch.randn(4, 1, 8, 8), torch.tensor([1, 2, 3, 4])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            loss = torch.nn.functional.cross_entropy(cm(x), y)
            loss.backward()
        ref_loss = torch.nn.functional.cross_entropy(ref(x), y)
        ref_loss.backward()
        self.assertTrue(torch.equal(loss, ref_loss))
        for p, q in zip(model.parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad)
        lines = [l for l in out.getvalue().splitlines() if " graph of " in l]
        self.assertEqual([r["graph"] for r in cm.reports], ["forward", "backward"])
        for line, r in zip(lines, cm.reports):
            m = re.fullmatch(r"photon_torch: (\w+) graph of (\d+) ops: ([0-9.]+) ms simulated", line)
            self.assertIsNotNone(m, line)
            self.assertEqual((m.group(1), int(m.group(2))), (r["graph"], r["ops"]))
            self.assertAlmostEqual(float(m.group(3)), r["simulated_ms"], places=3)
            self.assertEqual(r["report"]["workload_info"]["coverage"]["nodes"], r["ops"])
        host_lines = [l for l in out.getvalue().splitlines() if l.startswith("  on the host: ")]
        self.assertIn("  on the host: aten::native_batch_norm_backward x2: no device mapping for the ATen op "
                      "'aten::native_batch_norm_backward'", host_lines)


if __name__ == "__main__":
    unittest.main(verbosity=2)
