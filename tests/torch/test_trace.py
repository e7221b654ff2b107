"""photon_torch.trace with the real torch: traces of torchvision ResNets and Llama decoder blocks run
on the platform; their simulated times agree with torch.onnx.export'ed models of the same
networks (and with the shared torchvision export); training traces hold the backward ops;
malformed traces and untraceable models are one-line errors.

Run by ctest (tests/torch/CMakeLists.txt) as /usr/bin/python3 tests/torch/test_trace.py with
PYTHONPATH=python, PHOTON_BUILD_DIR and PHOTON_SHARED_DIR set.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest
import warnings

import torch
import torchvision

import photon_torch as pt
from photon_torch.models import LLAMA_7B, LLAMA_70B, LlamaConfig, LlamaDecoderBlock, SmallCnn

PHOTON = os.path.join(os.environ.get("PHOTON_BUILD_DIR", "build"), "photon")
SHARED = os.environ.get("PHOTON_SHARED_DIR", "../shared")
_TMP = tempfile.TemporaryDirectory(prefix="photon_torch_test_")  # removed when the process exits
TMP = _TMP.name


def path(name):
    return os.path.join(TMP, name)


def export(model, x, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, x, path(name), opset_version=14)
    return path(name)


def photon_error(workload):
    p = subprocess.run([PHOTON, "run", "--workload", workload, "--quiet"], capture_output=True, text=True)
    return p.returncode, p.stderr.strip()


def block_macs(cfg, s):
    """GEMM multiply-accumulates of one decoder layer on s tokens (the oracle of work_total)."""
    hd = cfg.head_dim
    proj = s * cfg.dim * (2 * cfg.n_heads * hd + 2 * cfg.n_kv_heads * hd)
    attn = 2 * cfg.n_heads * s * s * hd
    return proj + attn + 3 * s * cfg.dim * cfg.ffn_dim


def block_params(cfg):
    hd = cfg.head_dim
    return 2 * cfg.dim + cfg.dim * hd * (2 * cfg.n_heads + 2 * cfg.n_kv_heads) + 3 * cfg.dim * cfg.ffn_dim


class ResNet(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.model = torchvision.models.resnet50().eval()
        cls.x = torch.randn(1, 3, 224, 224)
        cls.trace = pt.trace(cls.model, cls.x, path=path("resnet50.ptrace"))

    def test_trace_follows_the_model_structure(self):
        convs = [n for n, m in self.model.named_modules() if isinstance(m, torch.nn.Conv2d)]
        ops = [op for op in self.trace.ops if op["op"] == "aten::convolution.default"]
        self.assertEqual([op["module"] for op in ops], convs)  # 53, in execution order
        params = {t["name"]: t["shape"] for t in self.trace.data["tensors"] if t["kind"] == "param"}
        expected = {n: list(v.shape) for n, v in self.model.state_dict().items()}
        self.assertEqual(params, expected)
        self.assertEqual(self.trace.data["mode"], "inference")

    def test_traced_and_exported_resnet50_agree_within_5_percent(self):
        traced = pt.run_workload(self.trace.path)
        exported = pt.run_workload(export(self.model, self.x, "resnet50.onnx"))
        cov = traced["workload_info"]["coverage"]
        self.assertEqual(cov["nodes"], len(self.trace.ops))
        self.assertEqual(cov["fallback"], 0)
        self.assertEqual(traced["work_total"]["gemm_macs"], exported["work_total"]["gemm_macs"])
        t, e = traced["simulated_time_ns"], exported["simulated_time_ns"]
        self.assertLess(abs(t - e) / e, 0.05, (t, e))

    def test_traced_resnet18_agrees_with_the_shared_torchvision_export(self):
        tr = pt.trace(torchvision.models.resnet18(), torch.empty(1, 3, 224, 224), path=path("resnet18.ptrace"))
        traced = pt.run_workload(tr.path)
        shared = pt.run_workload(os.path.join(SHARED, "inputs", "onnx", "resnet18.onnx"))
        self.assertEqual(traced["workload_info"]["commands"], shared["workload_info"]["commands"])
        t, e = traced["simulated_time_ns"], shared["simulated_time_ns"]
        self.assertLess(abs(t - e) / e, 0.05, (t, e))

    def test_training_trace_holds_the_backward_ops(self):
        tr = pt.trace(self.model, torch.empty(2, 3, 224, 224), train=True, path=path("resnet50_train.ptrace"))
        counts = tr.op_counts()
        self.assertEqual(counts["aten::convolution_backward"], 53)
        self.assertEqual(counts["aten::native_batch_norm_backward"], 53)
        self.assertEqual(tr.data["mode"], "training")
        # Outputs: the logits and one gradient per parameter, shaped like it.
        out_shapes = sorted(tuple(tr.data["tensors"][i]["shape"]) for i in tr.data["outputs"][1:])
        self.assertEqual(out_shapes, sorted(tuple(p.shape) for p in self.model.parameters()))
        self.assertTrue(all(op["module"] == "backward" for op in tr.ops if op["op"].endswith("_backward.default")))

    def test_small_cnn_training_trace_runs_with_its_host_ops_named(self):
        tr = pt.trace(SmallCnn(), torch.empty(4, 1, 8, 8), train=True, path=path("smallcnn_train.ptrace"))
        r = pt.run_workload(tr.path)
        host = {u["op"] for u in r["unsupported"]}
        self.assertEqual(host, {"aten::native_batch_norm", "aten::native_batch_norm_backward", "aten::threshold_backward",
                                "aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices_backward", "aten::add_"})
        self.assertEqual(r["workload_info"]["coverage"]["nodes"], len(tr.ops))


class Decoder(unittest.TestCase):
    def test_traced_and_exported_decoder_block_agree_within_5_percent(self):
        torch.manual_seed(0)
        cfg = LlamaConfig(dim=512, n_heads=8, n_kv_heads=2, ffn_dim=1408)
        blk = LlamaDecoderBlock(cfg, max_seq=128).eval()
        x = torch.randn(1, 128, 512)
        traced = pt.run_workload(pt.trace(blk, x, path=path("block.ptrace")).path)
        exported = pt.run_workload(export(blk, x, "block.onnx"))
        self.assertEqual(traced["work_total"]["gemm_macs"], block_macs(cfg, 128))
        self.assertEqual(exported["work_total"]["gemm_macs"], block_macs(cfg, 128))
        t, e = traced["simulated_time_ns"], exported["simulated_time_ns"]
        self.assertLess(abs(t - e) / e, 0.05, (t, e))

    def test_transformer_encoder_layer_runs_every_op_on_the_device(self):
        # nn.MultiheadAttention splits its fused q/k/v projection (aten::split: a list result),
        # LayerNorm and GELU map to the graph's LayerNormalization and Gelu.
        layer = torch.nn.TransformerEncoderLayer(64, 4, 128, activation="gelu", batch_first=True).eval()
        tr = pt.trace(layer, torch.empty(2, 16, 64), path=path("encoder.ptrace"))
        split = [op for op in tr.ops if op["op"].startswith("aten::split")]
        self.assertTrue(split and all(len(op["outputs"]) == 3 for op in split))
        r = pt.run_workload(tr.path)
        self.assertEqual(r["unsupported"], [])
        self.assertEqual(r["workload_info"]["coverage"]["lowered_by_op"]["aten::native_layer_norm"], 2)

    def test_7b_and_70b_blocks_trace_without_weights_and_run(self):
        for cfg in (LLAMA_7B, LLAMA_70B):
            blk = LlamaDecoderBlock(cfg, max_seq=128, device="meta")
            tr = pt.trace(blk, torch.empty(1, 128, cfg.dim), path=path(f"block_{cfg.dim}.ptrace"))
            n = sum(torch.Size(t["shape"]).numel() for t in tr.data["tensors"]
                    if t["kind"] == "param" and t["name"].split(".")[-1] == "weight")
            self.assertEqual(n, block_params(cfg))
            r = pt.run_workload(tr.path)
            self.assertEqual(r["status"], "ok")
            self.assertEqual(r["unsupported"], [])
            self.assertEqual(r["work_total"]["gemm_macs"], block_macs(cfg, 128))

    def test_7b_block_training_trace_runs_every_op_on_the_device(self):
        blk = LlamaDecoderBlock(LLAMA_7B, max_seq=64, device="meta")
        tr = pt.trace(blk, torch.empty(1, 64, 4096), train=True, path=path("block_train.ptrace"))
        self.assertEqual(tr.op_counts()["aten::mm"], 7 + 2 * 7)  # forward, then grad_input and grad_weight
        r = pt.run_workload(tr.path)
        self.assertEqual(r["unsupported"], [])


class Errors(unittest.TestCase):
    def test_data_dependent_control_flow_is_a_trace_error_naming_the_op(self):
        class Gate(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 4)

            def forward(self, x):
                y = self.fc(x)
                return y if y.sum() > 0 else -y

        with self.assertRaises(pt.TraceError) as cm:
            pt.trace(Gate(), torch.empty(2, 4), path=path("gate.ptrace"))
        self.assertFalse(os.path.exists(path("gate.ptrace")))
        self.assertIn("aten::", str(cm.exception))
        self.assertIn("needs tensor values", str(cm.exception))

    def test_malformed_traces_are_one_line_errors_naming_the_op(self):
        tr = pt.trace(SmallCnn().eval(), torch.empty(1, 1, 8, 8), path=path("smallcnn.ptrace"))
        text = json.dumps(tr.data)
        with open(path("truncated.ptrace"), "w") as f:
            f.write(text[: len(text) // 2])
        rc, err = photon_error(path("truncated.ptrace"))
        self.assertEqual(rc, 1)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertIn("the file ends early: truncated?", err)
        bad = json.loads(text)
        bad["ops"][0]["op"] = "aten::frobnicate.default"
        with open(path("unknown.ptrace"), "w") as f:
            json.dump(bad, f)
        rc, err = photon_error(path("unknown.ptrace"))
        self.assertEqual((rc, len(err.splitlines())), (1, 1), err)
        self.assertIn("op 0 'aten::frobnicate.default' (module 'conv1'): unknown op 'aten::frobnicate'", err)
        bad = json.loads(text)
        out = bad["ops"][0]["outputs"][0]
        bad["tensors"][out]["shape"][1] = 17  # conv1 has 16 output channels
        with open(path("shapes.ptrace"), "w") as f:
            json.dump(bad, f)
        rc, err = photon_error(path("shapes.ptrace"))
        self.assertEqual((rc, len(err.splitlines())), (1, 1), err)
        self.assertIn("op 0 'aten::convolution.default' (module 'conv1'): inconsistent shapes", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
