"""photon_torch.trace at its edges, with the real torch: training traces of layers whose backward
has no meta kernel in torch 1.13, recurrent layers, models whose traces once failed to read back
(writer and reader agree: every trace written is read by `photon run`), the model's per-module
train/eval modes, API errors as TraceError, the trace file's mode.

Run by ctest (tests/torch/CMakeLists.txt) as /usr/bin/python3 tests/torch/test_trace_checks.py
with PYTHONPATH=python and PHOTON_BUILD_DIR set.
"""
import os
import subprocess
import tempfile
import unittest

import torch
import torch.nn as nn
from torch.utils._pytree import tree_flatten

import photon_torch as pt

PHOTON = os.path.join(os.environ.get("PHOTON_BUILD_DIR", "build"), "photon")
_TMP = tempfile.TemporaryDirectory(prefix="photon_torch_test_")
TMP = _TMP.name


def path(name):
    return os.path.join(TMP, name)


def photon_run(workload):
    p = subprocess.run([PHOTON, "run", "--workload", workload, "--quiet"], capture_output=True, text=True)
    return p.returncode, p.stderr.strip()


class MetaKernels(unittest.TestCase):
    def test_backward_of_pooling_and_padding_traces_with_the_cpu_gradient_shapes(self):
        layers = [(nn.AdaptiveAvgPool2d(3), [2, 4, 11, 11]), (nn.AdaptiveAvgPool3d(2), [1, 2, 5, 5, 5]),
                  (nn.ReflectionPad2d(1), [2, 4, 6, 6]), (nn.ReplicationPad1d(2), [2, 4, 6]),
                  (nn.ReplicationPad3d(1), [1, 2, 4, 4, 4])]
        for layer, shape in layers:
            with self.subTest(layer=type(layer).__name__):
                model = nn.Sequential(nn.Identity(), layer)
                x = torch.randn(shape, requires_grad=True)
                layer(x).sum().backward()  # the oracle: the CPU's gradient
                tr = pt.trace(model, x, train=True, path=path("meta.ptrace"))
                back = [o for o in tr.ops if o["op"].endswith("_backward.default")]
                self.assertEqual(len(back), 1)
                self.assertEqual(tr.data["tensors"][back[0]["outputs"][0]]["shape"], list(x.grad.shape))
                self.assertEqual(photon_run(tr.path), (0, ""))


class Recurrent(unittest.TestCase):
    def test_lstm_gru_and_rnn_trace_forward_and_backward_and_run(self):
        for layer, x in [(nn.LSTM(4, 8), torch.empty(3, 2, 4)), (nn.GRU(4, 8, num_layers=2, batch_first=True),
                                                                 torch.empty(2, 3, 4)), (nn.RNN(4, 8), torch.empty(3, 2, 4))]:
            for train in (False, True):
                with self.subTest(layer=type(layer).__name__, train=train):
                    tr = pt.trace(layer, x, train=train, path=path("rnn.ptrace"))
                    counts = tr.op_counts()
                    # One input projection and one recurrent projection per layer and time step
                    # (torch's native RNN: addmm of x_t W_ih^T and of h W_hh^T).
                    steps = x.shape[1] if layer.batch_first else x.shape[0]
                    self.assertEqual(counts["aten::addmm"], 2 * layer.num_layers * steps)
                    outputs = len(tree_flatten(layer(torch.randn(x.shape)))[0])  # (y, h) or (y, (h, c))
                    grads = len(list(layer.parameters())) if train else 0
                    self.assertEqual(len(tr.data["outputs"]), outputs + grads)
                    self.assertEqual(photon_run(tr.path), (0, ""))
                    # The module computes from its own weights again afterwards.
                    self.assertIs(layer._flat_weights[0], layer.weight_ih_l0)


class Ident(nn.Module):
    def forward(self, x):
        return x


class ParamNamedInput(nn.Module):
    def __init__(self):
        super().__init__()
        self.input = nn.Parameter(torch.randn(4))

    def forward(self, x):
        return x * self.input


class ReturnsParamAndBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4))
        self.register_buffer("b", torch.ones(4))

    def forward(self, x):
        return self.w, self.b, x + 1


class NonFiniteConstant(nn.Module):
    def forward(self, x):
        return (x + torch.tensor(float("inf"))) * torch.tensor(float("nan"))


class SameOutputTwice(nn.Module):
    def forward(self, a, b):
        y = a @ b
        return y, y


class BoolMask(nn.Module):
    def forward(self, x):
        return x[x > 0]


class WriterReaderAgreement(unittest.TestCase):
    def test_every_trace_written_is_read_and_run_by_photon(self):
        x = torch.randn(2, 4)
        cases = [("identity", Ident(), x), ("param_named_input", ParamNamedInput(), x),
                 ("returns_param", ReturnsParamAndBuffer(), x), ("non_finite", NonFiniteConstant(), x),
                 ("twice", SameOutputTwice(), (torch.randn(4, 4), torch.randn(4, 4))),
                 ("bool_input", Ident(), torch.ones(3, dtype=torch.bool)),
                 ("embedding", nn.Embedding(10, 4), torch.tensor([[1, 2, 3]])),
                 ("float64", nn.Linear(4, 4).double(), x.double()),
                 ("lstm", nn.LSTM(4, 8), torch.empty(3, 2, 4))]
        for name, model, inputs in cases:
            for train in (False, True) if name in ("param_named_input", "float64") else (False,):
                with self.subTest(model=name, train=train):
                    tr = pt.trace(model, inputs, train=train, path=path(f"{name}.ptrace"))
                    self.assertEqual(photon_run(tr.path), (0, ""))
                    names = [t.get("name") for t in tr.data["tensors"] if "name" in t]
                    self.assertEqual(len(names), len(set(names)))
        tr = pt.trace(ParamNamedInput(), x, path=path("p.ptrace"))
        self.assertEqual([t["kind"] for t in tr.data["tensors"] if t.get("name") == "input"], ["param"])

    def test_what_the_reader_would_refuse_is_a_trace_error_and_nothing_is_written(self):
        p = path("huge.ptrace")
        with self.assertRaises(pt.TraceError) as e:
            pt.trace(nn.Linear(64, 64, device="meta"), torch.empty(2 ** 36, 64, device="meta"), path=p)
        self.assertIn("2^40 or more elements", str(e.exception))
        self.assertFalse(os.path.exists(p))


class ZeroSize(unittest.TestCase):
    def test_a_product_over_no_terms_is_one_error_and_empty_batches_run(self):
        class Gram(nn.Module):
            def forward(self, x):
                return x @ x.t()
        for name, model, x in [("linear_k0", nn.Linear(0, 5), torch.empty(4, 0)), ("mm_k0", Gram(), torch.empty(3, 0))]:
            with self.subTest(model=name):
                tr = pt.trace(model, x, path=path(f"{name}.ptrace"))
                rc, err = photon_run(tr.path)
                self.assertEqual(rc, 1)  # an error, not SIGFPE (-8)
                self.assertEqual(len(err.splitlines()), 1)
                self.assertIn("a product over no terms", err)
                self.assertRegex(err, r"node '[^']*(addmm|mm)#\d+' \((Gemm|MatMul)\)")
        for name, model, x in [("linear_m0", nn.Linear(8, 5), torch.empty(0, 8)), ("linear_n0", nn.Linear(8, 0), torch.empty(2, 8)),
                               ("conv_n0", nn.Conv2d(4, 4, 3), torch.empty(0, 4, 8, 8))]:
            with self.subTest(model=name):
                tr = pt.trace(model, x, path=path(f"{name}.ptrace"))
                self.assertEqual(photon_run(tr.path), (0, ""))


class LinearGemm(unittest.TestCase):
    def test_a_traced_linear_times_as_its_onnx_export(self):
        # Oracle: torch.onnx.export writes nn.Linear as Gemm(x, W, b, transB=1); the trace's
        # addmm(b, x, t(W)) lowers to the same Gemm, so both simulate to the same time.
        import warnings
        for k, n in [(1024, 10), (512, 1000), (64, 10)]:
            with self.subTest(k=k, n=n):
                m, x = nn.Linear(k, n).eval(), torch.randn(2, k)
                tr = pt.trace(m, x, path=path(f"lin_{k}_{n}.ptrace"))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    torch.onnx.export(m, x, path(f"lin_{k}_{n}.onnx"))
                a = tr.run()["simulated_time_ns"]
                b = pt.run_workload(path(f"lin_{k}_{n}.onnx"))["simulated_time_ns"]
                self.assertEqual(a, b)


class NotRegularFiles(unittest.TestCase):
    def test_a_fifo_or_a_device_as_workload_is_an_error_not_a_hang(self):
        fifo = path("fifo.ptrace")
        os.mkfifo(fifo)
        zero = path("zero.ptrace")
        os.symlink("/dev/zero", zero)
        for f, what in [(fifo, "a FIFO"), (zero, "a character device"), (path("zero.onnx"), "a character device")]:
            if f.endswith(".onnx"):
                os.symlink("/dev/zero", f)
            with self.subTest(what=what, file=f):
                p = subprocess.run([PHOTON, "run", "--workload", f, "--quiet"], capture_output=True, text=True,
                                   timeout=60)  # a hang fails the test here
                self.assertEqual((p.returncode, p.stderr.strip()),
                                 (1, f"photon: error: {f}: not a regular file ({what}): refusing to read it"))


class Modes(unittest.TestCase):
    def test_trace_restores_every_modules_mode(self):
        m = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Dropout(0.1))
        m.train()
        m[1].eval()
        for train in (False, True):
            pt.trace(m, torch.randn(2, 4), train=train, path=path("mode.ptrace"))
            self.assertEqual([mod.training for mod in m.modules()], [True, True, False, True])


class ApiErrors(unittest.TestCase):
    def test_bad_arguments_are_one_line_trace_errors(self):
        x = torch.randn(2, 4)
        cases = [(lambda: pt.trace(lambda t: t + 1, x, path=path("f.ptrace")), "expects a torch.nn.Module"),
                 (lambda: pt.trace(Ident(), x, path=TMP), "it is a directory"),
                 (lambda: pt.trace(Ident(), x, path=path("no/such/dir.ptrace")), "does not exist"),
                 (lambda: pt.trace(Ident(), x, path=3), "must be a file name"),
                 (lambda: pt.trace(nn.Linear(4, 4), x, loss_fn=3, train=True, path=path("l.ptrace")), "loss_fn"),
                 (lambda: pt.trace(nn.Linear(4, 4), torch.randn(2, 5), path=path("w.ptrace")),
                  "failed to trace in aten::addmm.default: RuntimeError: mat1 and mat2 shapes cannot be multiplied"),
                 (lambda: pt.trace(nn.Linear(4, 4), x, train=True, loss_fn=lambda o: o, path=path("n.ptrace")),
                  "grad can be implicitly created only for scalar outputs"),
                 (lambda: pt.trace(BoolMask(), x, path=path("b.ptrace")),
                  "BoolMask: aten::index.Tensor in BoolMask.forward needs tensor values (aten::nonzero inside it")]
        for f, text in cases:
            with self.subTest(text=text):
                with self.assertRaises(pt.TraceError) as e:
                    f()
                self.assertIn(text, str(e.exception))
                self.assertEqual(len(str(e.exception).splitlines()), 1)


class FileMode(unittest.TestCase):
    def test_trace_files_get_the_umask_default_mode(self):
        for umask in (0o022, 0o077, 0o002):
            old = os.umask(umask)
            try:
                pt.trace(nn.Linear(4, 4), torch.randn(2, 4), path=path("mode.ptrace"))
            finally:
                os.umask(old)
            self.assertEqual(os.stat(path("mode.ptrace")).st_mode & 0o777, 0o666 & ~umask)


class CompileBuffers(unittest.TestCase):
    def test_compiled_batchnorm_keeps_the_running_statistics_of_eager_pytorch(self):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU())
        ref = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU())
        ref.load_state_dict(model.state_dict())
        cm = pt.compile(model, quiet=True)
        for step in range(3):
            x = torch.randn(4, 2, 6, 6)
            cm(x).sum().backward()
            ref(x).sum().backward()
            self.assertEqual(model[1].num_batches_tracked.item(), step + 1)
        for (n, b), (_, r) in zip(model.named_buffers(), ref.named_buffers()):
            self.assertTrue(torch.equal(b, r), n)
        for (n, p), (_, r) in zip(model.named_parameters(), ref.named_parameters()):
            self.assertTrue(torch.equal(p.grad, r.grad), n)
        # Captured once for the one input signature: a forward and a backward graph.
        self.assertEqual([r["graph"] for r in cm.reports], ["forward", "backward"])
        cm(torch.randn(2, 2, 6, 6))  # a new batch size: captured again
        self.assertEqual(len(cm.reports), 4)


if __name__ == "__main__":
    unittest.main(verbosity=2)
