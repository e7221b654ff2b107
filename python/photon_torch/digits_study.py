"""Accuracy of a small CNN on the optical engine's physical numerics.

    /usr/bin/python3 -m photon_torch.digits_study [--out DIR] [--bits 8 6 4] [--noise 0 0.01 0.05]

Trains photon_torch.models.SmallCnn on scikit-learn's handwritten digits (load_digits: 1797
8x8 images, 10 classes; a stratified 80/20 split with a fixed seed) on the CPU, then evaluates
the test set on the CPU, on the Photon device with ideal numerics, and on the device with
physical numerics for every combination of converter resolution (DAC, weight and ADC bits set
together) and output-noise level (optical_gemm.noise_std, a fraction of the ADC full scale;
models/optical_gemm/README.md). Prints the accuracy table and writes DIR/digits_accuracy.png and
DIR/digits_accuracy.json.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Dict, List, Sequence

import numpy as np
import torch
import torch.nn.functional as F

from . import _device
from ._errors import PhotonTorchError
from .models import SmallCnn

SEED = 0  # split, initialisation and batch order


def load_data():
    """(x_train, y_train, x_test, y_test): x as float32 [N, 1, 8, 8] scaled to [0, 1] (pixel
    values are 0..16), y as int64 labels."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    d = load_digits()
    x = (d.images.astype(np.float32) / 16.0)[:, None]
    xtr, xte, ytr, yte = train_test_split(x, d.target, test_size=0.2, random_state=SEED, stratify=d.target)
    return (torch.from_numpy(xtr), torch.from_numpy(ytr).long(), torch.from_numpy(xte), torch.from_numpy(yte).long())


def train(x: torch.Tensor, y: torch.Tensor, epochs: int = 8, batch: int = 32) -> SmallCnn:
    """Adam (lr 3e-3) on cross-entropy, CPU, seeded."""
    torch.manual_seed(SEED)
    model = SmallCnn()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(SEED)
    model.train()
    for _ in range(epochs):
        perm = torch.randperm(len(x), generator=g)
        for i in range(0, len(x), batch):
            idx = perm[i:i + batch]
            opt.zero_grad()
            F.cross_entropy(model(x[idx]), y[idx]).backward()
            opt.step()
    return model.eval()


def predict(model: torch.nn.Module, x: torch.Tensor, device=None) -> torch.Tensor:
    """Class predictions of `model` (a copy is moved to `device` if given)."""
    with torch.no_grad():
        if device is None:
            return model(x).argmax(1)
        m = SmallCnn().eval()
        m.load_state_dict(model.state_dict())
        m = m.to(device)
        return m(x.to(device)).cpu().argmax(1)


def accuracy(pred: torch.Tensor, y: torch.Tensor) -> float:
    return float((pred == y).float().mean())


def study(bits: Sequence[int] = (8, 6, 4), noise: Sequence[float] = (0.0, 0.01, 0.05), config=None) -> dict:
    """Runs the study; returns {"cpu": acc, "ideal": acc, "physical": [{bits, noise_std, accuracy}],
    "test_images": n}."""
    xtr, ytr, xte, yte = load_data()
    model = train(xtr, ytr)
    res = {"test_images": len(yte), "cpu": accuracy(predict(model, xte), yte)}
    dev = _device.device(config, {"optical_gemm.numerics": "ideal"})
    res["ideal_predictions_equal_cpu"] = bool((predict(model, xte, dev) == predict(model, xte)).all())
    res["ideal"] = accuracy(predict(model, xte, dev), yte)
    rows: List[Dict] = []
    for s in noise:
        for b in bits:
            _device.configure(config, {"optical_gemm.numerics": "physical", "optical_gemm.dac_bits": b,
                                       "optical_gemm.weight_bits": b, "optical_gemm.adc_bits": b,
                                       "optical_gemm.noise_std": s})
            rows.append({"bits": b, "noise_std": s, "accuracy": accuracy(predict(model, xte, dev), yte)})
    _device.configure(config, {"optical_gemm.numerics": "ideal"})
    res["physical"] = rows
    return res


def table(res: dict) -> str:
    noise = sorted({r["noise_std"] for r in res["physical"]})
    bits = sorted({r["bits"] for r in res["physical"]}, reverse=True)
    acc = {(r["bits"], r["noise_std"]): r["accuracy"] for r in res["physical"]}
    lines = [f"digits test set: {res['test_images']} images; CPU accuracy {100 * res['cpu']:.2f} %, "
             f"device ideal {100 * res['ideal']:.2f} %",
             "physical numerics (DAC = weight = ADC bits), accuracy %:",
             "bits  " + "".join(f"noise {s:<8g}" for s in noise)]
    for b in bits:
        lines.append(f"{b:<6d}" + "".join(f"{100 * acc[(b, s)]:<14.2f}" for s in noise))
    return "\n".join(lines)


def plot(res: dict, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for s in sorted({r["noise_std"] for r in res["physical"]}):
        rows = sorted((r for r in res["physical"] if r["noise_std"] == s), key=lambda r: r["bits"])
        ax.plot([r["bits"] for r in rows], [100 * r["accuracy"] for r in rows], marker="o", label=f"noise {s:g}")
    ax.axhline(100 * res["cpu"], color="gray", linestyle="--", label="CPU fp32")
    ax.set_xlabel("DAC / weight / ADC bits")
    ax.set_ylabel("test accuracy, %")
    ax.set_title("SmallCnn on sklearn digits, Photon physical numerics")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=".", help="directory for digits_accuracy.png and .json")
    p.add_argument("--bits", type=int, nargs="+", default=[8, 6, 4])
    p.add_argument("--noise", type=float, nargs="+", default=[0.0, 0.01, 0.05])
    p.add_argument("--config", default=None, help="platform configuration (default configs/default.yaml)")
    a = p.parse_args(argv)
    # Bad arguments are argparse errors (usage and one line, status 2), checked before training.
    # Ranges: the platform registry's optical_gemm.{dac,weight,adc}_bits (1..16) and noise_std
    # (0..1), models/optical_gemm/optical_gemm_config.h.
    for b in a.bits:
        if not 1 <= b <= 16:
            p.error(f"argument --bits: {b} is out of range 1..16 (optical_gemm.dac_bits, weight_bits, adc_bits)")
    for s in a.noise:
        if not 0.0 <= s <= 1.0:
            p.error(f"argument --noise: {s:g} is out of range 0..1 (optical_gemm.noise_std, a fraction of full scale)")
    if a.config is not None and not os.path.isfile(a.config):
        p.error(f"argument --config: {a.config} is not a file")
    if os.path.exists(a.out) and not os.path.isdir(a.out):
        p.error(f"argument --out: {a.out} exists and is not a directory")
    try:
        os.makedirs(a.out, exist_ok=True)
        if not os.access(a.out, os.W_OK):
            raise OSError(f"{a.out} is not writable")
    except OSError as e:
        p.error(f"argument --out: cannot create {a.out}: {e}")
    try:
        _device.configure(a.config, {"optical_gemm.numerics": "ideal"})  # the configuration, checked
        res = study(a.bits, a.noise, a.config)
    except PhotonTorchError as e:
        p.error(str(e))
    print(table(res))
    plot(res, os.path.join(a.out, "digits_accuracy.png"))
    with open(os.path.join(a.out, "digits_accuracy.json"), "w") as f:
        json.dump(res, f, indent=1)
    print(f"wrote {os.path.join(a.out, 'digits_accuracy.png')} and digits_accuracy.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
