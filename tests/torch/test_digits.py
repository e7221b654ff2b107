"""The digits accuracy study (photon_torch.digits_study) with the real torch and scikit-learn:
the device with ideal numerics reproduces the CPU's predictions (hence its accuracy) exactly, and
with physical numerics the accuracy does not rise as the converters' bits fall, at every noise
level of the table.

Run by ctest as /usr/bin/python3 tests/torch/test_digits.py (PYTHONPATH=python, PHOTON_BUILD_DIR).
"""
import json
import os
import tempfile
import subprocess
import sys
import unittest

from photon_torch import digits_study


class DigitsStudy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.res = digits_study.study(bits=(8, 6, 4), noise=(0.0, 0.01))

    def test_ideal_numerics_reproduce_the_cpu_exactly(self):
        self.assertEqual(self.res["test_images"], 360)  # 20 % of sklearn's 1797 digits
        self.assertTrue(self.res["ideal_predictions_equal_cpu"])
        self.assertEqual(self.res["ideal"], self.res["cpu"])
        self.assertGreater(self.res["cpu"], 0.9)  # the network did learn

    def test_accuracy_does_not_rise_as_bits_fall(self):
        for s in (0.0, 0.01):
            acc = {r["bits"]: r["accuracy"] for r in self.res["physical"] if r["noise_std"] == s}
            self.assertLessEqual(acc[6], acc[8], (s, acc))
            self.assertLessEqual(acc[4], acc[6], (s, acc))
        clean = {r["bits"]: r["accuracy"] for r in self.res["physical"] if r["noise_std"] == 0.0}
        self.assertGreater(clean[8], 0.9)   # 8-bit converters keep the accuracy
        self.assertLess(clean[4], clean[8])  # 4-bit converters do not

    def test_table_and_plot_are_written(self):
        text = digits_study.table(self.res)
        self.assertIn("CPU accuracy", text)
        self.assertEqual(len([l for l in text.splitlines() if l[:1].isdigit()]), 3)  # one row per bit width
        with tempfile.TemporaryDirectory() as d:
            digits_study.plot(self.res, os.path.join(d, "p.png"))
            with open(os.path.join(d, "p.png"), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            json.dumps(self.res)


class Arguments(unittest.TestCase):
    def test_bad_arguments_are_argparse_errors_before_any_training(self):
        with tempfile.NamedTemporaryFile() as f:
            for args, text in [(["--bits", "0"], "argument --bits: 0 is out of range 1..16"),
                               (["--bits", "x"], "argument --bits: invalid int value: 'x'"),
                               (["--noise", "2"], "argument --noise: 2 is out of range 0..1"),
                               (["--config", "/nonexistent.yaml"], "argument --config: /nonexistent.yaml is not a file"),
                               (["--out", f.name], f"argument --out: {f.name} exists and is not a directory")]:
                with self.subTest(args=args):
                    p = subprocess.run([sys.executable, "-m", "photon_torch.digits_study"] + args,
                                       capture_output=True, text=True, timeout=120)
                    self.assertEqual(p.returncode, 2)  # argparse's status
                    self.assertNotIn("Traceback", p.stderr)
                    self.assertIn(text, p.stderr.strip().splitlines()[-1])


if __name__ == "__main__":
    unittest.main(verbosity=2)
