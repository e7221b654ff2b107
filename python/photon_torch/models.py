"""Reference models for traces, tests and benchmarks.

`LlamaDecoderBlock` is one decoder layer of the Llama architecture (Touvron et al., "Llama 2: Open
Foundation and Fine-Tuned Chat Models", 2023; the layer structure of Meta's reference
implementation, github.com/facebookresearch/llama, model.py): RMSNorm (Zhang and Sennrich, 2019),
rotary position embedding (Su et al., RoFormer, 2021) on queries and keys, causal multi-head
attention with grouped key/value heads (Ainslie et al., GQA, 2023) and a SwiGLU feed-forward
network (Shazeer, "GLU Variants Improve Transformer", 2020). `LLAMA_7B` and `LLAMA_70B` are the
layer sizes of Llama 2 7B and 70B (params.json of the released checkpoints: dim, n_heads,
n_kv_heads, ffn hidden size 11008 / 28672, norm_eps 1e-5).

`SmallCnn` is the small convolutional network of the digits accuracy study (8x8 inputs).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
import torch.nn.functional as F


@dataclass(frozen=True)
class LlamaConfig:
    """Sizes of one Llama decoder layer (elements, not bytes)."""
    dim: int            #: model width (hidden size)
    n_heads: int        #: query heads
    n_kv_heads: int     #: key/value heads (GQA: n_heads is a multiple)
    ffn_dim: int        #: SwiGLU hidden size
    norm_eps: float = 1e-5
    rope_theta: float = 10000.0  #: rotary base (RoFormer)

    @property
    def head_dim(self) -> int:
        return self.dim // self.n_heads


LLAMA_7B = LlamaConfig(dim=4096, n_heads=32, n_kv_heads=32, ffn_dim=11008)
LLAMA_70B = LlamaConfig(dim=8192, n_heads=64, n_kv_heads=8, ffn_dim=28672)


class RMSNorm(nn.Module):
    """y = x / sqrt(mean(x^2, last axis) + eps) * weight; x [..., dim]."""

    def __init__(self, dim: int, eps: float, device=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim, device=device))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    """[x1, x2] -> [-x2, x1] on the last axis (split in halves)."""
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Attention(nn.Module):
    """Causal self-attention with rotary embedding; x [batch, seq, dim] -> same shape."""

    def __init__(self, cfg: LlamaConfig, device=None):
        super().__init__()
        self.cfg = cfg
        hd = cfg.head_dim
        self.q_proj = nn.Linear(cfg.dim, cfg.n_heads * hd, bias=False, device=device)
        self.k_proj = nn.Linear(cfg.dim, cfg.n_kv_heads * hd, bias=False, device=device)
        self.v_proj = nn.Linear(cfg.dim, cfg.n_kv_heads * hd, bias=False, device=device)
        self.o_proj = nn.Linear(cfg.n_heads * hd, cfg.dim, bias=False, device=device)

    def forward(self, x, cos, sin, mask):
        b, s, _ = x.shape
        c = self.cfg
        hd = c.head_dim
        q = self.q_proj(x).view(b, s, c.n_heads, hd).transpose(1, 2)
        k = self.k_proj(x).view(b, s, c.n_kv_heads, hd).transpose(1, 2)
        v = self.v_proj(x).view(b, s, c.n_kv_heads, hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = c.n_heads // c.n_kv_heads
        if rep > 1:  # grouped-query attention: every key/value head serves `rep` query heads
            k = k[:, :, None].expand(b, c.n_kv_heads, rep, s, hd).reshape(b, c.n_heads, s, hd)
            v = v[:, :, None].expand(b, c.n_kv_heads, rep, s, hd).reshape(b, c.n_heads, s, hd)
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(hd) + mask
        p = F.softmax(scores, dim=-1)
        out = torch.matmul(p, v).transpose(1, 2).reshape(b, s, c.n_heads * hd)
        return self.o_proj(out)


class SwiGLU(nn.Module):
    """down(silu(gate(x)) * up(x)); x [..., dim]."""

    def __init__(self, cfg: LlamaConfig, device=None):
        super().__init__()
        self.gate_proj = nn.Linear(cfg.dim, cfg.ffn_dim, bias=False, device=device)
        self.up_proj = nn.Linear(cfg.dim, cfg.ffn_dim, bias=False, device=device)
        self.down_proj = nn.Linear(cfg.ffn_dim, cfg.dim, bias=False, device=device)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaDecoderBlock(nn.Module):
    """One pre-norm decoder layer for sequences of up to `max_seq` tokens.

    forward(x [batch, seq, dim]) -> [batch, seq, dim]. The rotary tables (cos, sin: [max_seq,
    head_dim]) and the additive causal mask ([max_seq, max_seq], 0 on and below the diagonal,
    -inf above) are buffers, sliced to the sequence length. device="meta" builds the layer
    without weights (for photon_torch.trace: a 70B layer then costs no memory).
    """

    def __init__(self, cfg: LlamaConfig, max_seq: int = 2048, device=None):
        super().__init__()
        self.cfg = cfg
        self.input_norm = RMSNorm(cfg.dim, cfg.norm_eps, device)
        self.attn = Attention(cfg, device)
        self.post_attn_norm = RMSNorm(cfg.dim, cfg.norm_eps, device)
        self.mlp = SwiGLU(cfg, device)
        hd = cfg.head_dim
        inv_freq = 1.0 / (cfg.rope_theta ** (torch.arange(0, hd, 2).float() / hd))
        angles = torch.outer(torch.arange(max_seq).float(), inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos().to(device), persistent=False)
        self.register_buffer("sin", angles.sin().to(device), persistent=False)
        mask = torch.full((max_seq, max_seq), float("-inf")).triu(1)
        self.register_buffer("mask", mask.to(device), persistent=False)

    def forward(self, x):
        s = x.shape[1]
        cos, sin, mask = self.cos[:s], self.sin[:s], self.mask[:s, :s]
        h = x + self.attn(self.input_norm(x), cos, sin, mask)
        return h + self.mlp(self.post_attn_norm(h))


class SmallCnn(nn.Module):
    """Two 3x3 convolutions with BatchNorm and ReLU, then a linear classifier.

    x [batch, 1, 8, 8] (sklearn's digits) -> logits [batch, 10].
    """

    def __init__(self, channels: int = 16, classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, channels, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, 2 * channels, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(2 * channels)
        self.fc = nn.Linear(2 * channels * 4 * 4, classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(torch.flatten(x, 1))
