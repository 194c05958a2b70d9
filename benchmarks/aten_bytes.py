# mypy: disallow-untyped-calls=False
"""Element-wise, norm and dropout bytes of one transformer layer: what PyTorch's aten ops move
against what mlcost's operator table counts (issue 61, mechanism f; a diagnostic, nothing is
fitted or shipped).

A real GPT-2 block (Hugging Face ``GPT2Block``, the reference the operator table follows;
LayerNorm, biases, GELU MLP of 4h, dropout 0.1 on the attention output and the MLP output, the
attention core through SDPA) runs forward and backward on the CPU in FP32 under a
``TorchDispatchMode`` that adds, per aten op, the bytes of its tensor inputs and outputs (each
storage once per op: what a kernel that reads its inputs and writes its outputs once moves).
The GEMMs (``mm``, ``addmm``, ``bmm``, ``baddbmm``) and the attention core (SDPA and its
backward, with the matmuls, softmax and attention dropout inside it) are left out, as are
metadata ops that move nothing (views, transposes, detach). What remains is the layer's
element-wise rest: norms, bias adds, GELU, dropouts, residual adds, the copies PyTorch inserts,
and the gradient accumulations into ``.grad``.

mlcost's side is :func:`mlcost.workload.transformer_operators` for the same model, FP32, one
micro-batch: per layer, forward ``bytes_read + bytes_written`` and ``backward_bytes`` of the
layer block's rows that are not GEMMs or the attention core. The eager profile (``ddp-eager``,
one kernel per aten op) is what the aten count stands for; Megatron-Core's fused kernels move
less (one pass per fused group), so the ratio bounds the unfused profiles, not Megatron's.

Run: ``.venv/bin/python benchmarks/aten_bytes.py`` (a few seconds).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from mlcost.specs import TransformerSpec
from mlcost.workload import TrainingConfig, transformer_operators

#: aten ops the rest leaves out: the GEMMs, the attention core, and ops that move no bytes.
SKIPPED = (
    "mm", "addmm", "bmm", "baddbmm", "view", "_unsafe_view", "t",
    "transpose", "permute", "expand", "detach", "split", "split_with_sizes", "slice", "select",
    "unsqueeze", "squeeze", "as_strided", "alias", "_reshape_alias", "reshape", "empty",
    "zeros", "ones", "new_empty", "new_zeros", "new_ones", "empty_like", "zeros_like",
    "ones_like", "unbind", "lift_fresh", "_to_copy_meta",
)  # fmt: skip
GEMM_KINDS = ("matmul", "attention")


class ByteCounter(TorchDispatchMode):
    """Bytes in + out per aten op (each storage once per op), summed per op name."""

    def __init__(self) -> None:
        super().__init__()
        self.bytes: dict[str, float] = defaultdict(float)
        self.counting = True

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        if self.counting and name not in SKIPPED and "scaled_dot_product" not in name:
            flat, _ = tree_flatten((args, kwargs or {}, out))
            seen: dict[int, int] = {}
            for value in flat:
                if isinstance(value, torch.Tensor):
                    storage = value.untyped_storage()
                    seen[storage.data_ptr()] = value.numel() * value.element_size()
            self.bytes[name] += float(sum(seen.values()))
        return out


def uncounted_core(counter: ByteCounter) -> Any:
    """An attention function for Hugging Face's ``AttentionInterface``: causal SDPA with the
    block's attention dropout, run forward and backward with ``counter`` paused (the attention
    core is timed by its measured kernels, not by these bytes)."""

    class Core(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, q: Any, k: Any, v: Any, dropout: float) -> Any:
            counter.counting = False
            with torch.enable_grad():
                inputs = [t.detach().requires_grad_() for t in (q, k, v)]
                out = torch.nn.functional.scaled_dot_product_attention(
                    inputs[0], inputs[1], inputs[2], dropout_p=dropout, is_causal=True
                )
            counter.counting = True
            ctx.saved = (inputs, out)
            return out.detach()

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            inputs, out = ctx.saved
            counter.counting = False
            grads = torch.autograd.grad(out, inputs, grad)
            counter.counting = True
            return (*grads, None)

    def attention(module: Any, q: Any, k: Any, v: Any, mask: Any, dropout: float = 0.0,
                  **_: Any) -> tuple[Any, None]:  # fmt: skip
        return Core.apply(q, k, v, dropout).transpose(1, 2).contiguous(), None

    return attention


def measured(hidden: int, heads: int, batch: int, sequence: int) -> tuple[float, float, dict]:
    """Forward and backward rest bytes of one GPT-2 block, and the per-op breakdown."""
    from transformers import AttentionInterface, GPT2Config
    from transformers.models.gpt2.modeling_gpt2 import GPT2Block

    torch.manual_seed(0)
    counter = ByteCounter()
    AttentionInterface.register("mlcost_uncounted", uncounted_core(counter))
    options: dict[str, Any] = {
        "n_embd": hidden, "n_head": heads, "n_positions": sequence, "resid_pdrop": 0.1,
        "attn_pdrop": 0.1, "embd_pdrop": 0.1, "activation_function": "gelu",
        "attn_implementation": "mlcost_uncounted",
    }  # fmt: skip
    config = GPT2Config(**options)
    block = GPT2Block(config).train()
    x = torch.randn(batch, sequence, hidden, requires_grad=True)
    with counter:
        out = block(x)
        y = out[0] if isinstance(out, tuple) else out
        forward = dict(counter.bytes)
        counter.bytes.clear()
        y.backward(torch.ones_like(y))
        backward = dict(counter.bytes)
    return sum(forward.values()), sum(backward.values()), {"forward": forward, "backward": backward}


def predicted(hidden: int, heads: int, batch: int, sequence: int) -> tuple[float, float]:
    """mlcost's forward and backward rest bytes per layer for the same block."""
    model = TransformerSpec(
        name="gpt2-block", hidden_size=hidden, num_layers=1, num_attention_heads=heads,
        ffn_hidden_size=4 * hidden, activation="gelu", norm="layernorm", vocab_size=64,
        max_position_embeddings=sequence, position_encoding="learned", qkv_bias=True,
        attn_out_bias=True, mlp_bias=True, hidden_dropout=0.1, attention_dropout=0.1,
    )  # fmt: skip
    config = TrainingConfig(sequence_length=sequence, precision="fp32")
    from mlcost.layout import Layout

    table = transformer_operators(model, config, Layout(micro_batch_size=batch))
    forward = backward = 0.0
    for op in table.operators:
        if op.block != "layer" or op.kind in GEMM_KINDS or op.kind == "softmax":
            continue
        forward += float(op.count) * float(op.bytes_read + op.bytes_written)
        backward += float(op.count) * float(op.backward_bytes)
    return forward, backward


def main() -> None:
    print(f"{'h':>6s} {'b x s':>9s}  {'aten fwd MB':>11s} {'mlcost':>8s} {'x':>5s}  "
          f"{'aten bwd MB':>11s} {'mlcost':>8s} {'x':>5s}")  # fmt: skip
    detail: dict[str, Any] = {}
    for hidden, heads, batch, sequence in ((256, 4, 2, 512), (512, 8, 1, 1024)):
        fwd, bwd, detail = measured(hidden, heads, batch, sequence)
        p_fwd, p_bwd = predicted(hidden, heads, batch, sequence)
        print(
            f"{hidden:6d} {batch:>3d} x {sequence:<4d}  {fwd / 1e6:11.2f} {p_fwd / 1e6:8.2f} "
            f"{fwd / p_fwd:5.2f}  {bwd / 1e6:11.2f} {p_bwd / 1e6:8.2f} {bwd / p_bwd:5.2f}"
        )
    for phase in ("forward", "backward"):
        ops = sorted(detail[phase].items(), key=lambda kv: -kv[1])
        print(f"\n{phase} (last row), MB per aten op: " + ", ".join(
            f"{name} {value / 1e6:.2f}" for name, value in ops))  # fmt: skip


if __name__ == "__main__":
    main()
