"""A small reference GPT for the end-to-end benchmark (pre-LayerNorm decoder with learned
positions, GELU MLP of 4h, tied embeddings: the GPT-2 architecture), written here so nothing is
downloaded. :func:`spec_of` gives the matching :class:`mlcost.specs.TransformerSpec`, so the
measured step can be compared with the predicted one."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.utils.checkpoint
from torch import nn
from torch.nn import functional

from mlcost.specs import TransformerSpec


@dataclass(frozen=True)
class GPTConfig:
    vocab_size: int = 8192
    sequence_length: int = 256
    layers: int = 4
    hidden: int = 256
    heads: int = 4


class Block(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        h = config.hidden
        self.heads = config.heads
        self.norm1 = nn.LayerNorm(h)
        self.qkv = nn.Linear(h, 3 * h)
        self.proj = nn.Linear(h, h)
        self.norm2 = nn.LayerNorm(h)
        self.up = nn.Linear(h, 4 * h)
        self.down = nn.Linear(4 * h, h)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, h = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(h, dim=2)
        q, k, v = (t.view(b, s, self.heads, h // self.heads).transpose(1, 2) for t in (q, k, v))
        y = functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, s, h))
        return x + self.down(functional.gelu(self.up(self.norm2(x)), approximate="tanh"))


class GPT(nn.Module):
    """``checkpoint=True`` recomputes every block in backward (full activation recomputation:
    each block saves only its input, through ``torch.utils.checkpoint``)."""

    def __init__(self, config: GPTConfig, *, checkpoint: bool = False) -> None:
        super().__init__()
        self.config = config
        self.checkpoint = checkpoint
        self.tokens = nn.Embedding(config.vocab_size, config.hidden)
        self.positions = nn.Embedding(config.sequence_length, config.hidden)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.layers))
        self.norm = nn.LayerNorm(config.hidden)

    def forward(self, ids: torch.Tensor, targets: torch.Tensor | None = None) -> torch.Tensor:
        """The mean cross-entropy of the logits against ``targets`` (default ``ids`` itself: at
        the default N(0, 1) embeddings the tied head then scores each token's own embedding
        far above the rest, the loss is 0.0 in FP32 and the gradients vanish (zero, subnormal
        or below 1e-30), which slows some CPU kernels: give a training step other targets)."""
        positions = torch.arange(ids.shape[1], device=ids.device)
        x = self.tokens(ids) + self.positions(positions)
        for block in self.blocks:
            if self.checkpoint and self.training:
                x = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
        logits = self.norm(x) @ self.tokens.weight.t()
        scored = ids if targets is None else targets
        return functional.cross_entropy(logits.float().flatten(0, 1), scored.flatten())


def spec_of(config: GPTConfig) -> TransformerSpec:
    """The mlcost spec of this model (parameters equal ``sum(p.numel())``; see the tests)."""
    return TransformerSpec(
        name="bench-gpt",
        hidden_size=config.hidden,
        num_layers=config.layers,
        num_attention_heads=config.heads,
        ffn_hidden_size=4 * config.hidden,
        activation="gelu-tanh",
        norm="layernorm",
        vocab_size=config.vocab_size,
        max_position_embeddings=config.sequence_length,
        position_encoding="learned",
        tie_word_embeddings=True,
        qkv_bias=True,
        attn_out_bias=True,
        mlp_bias=True,
        fused_qkv=True,
    )
