"""The operator table of a forward pass that serves: a prefill of a prompt and one decode step.

A serving forward processes ``q`` new tokens per sequence for ``b`` sequences whose cache already
holds ``p`` tokens: a prefill is ``(q, p) = (P, 0)`` (a chunk of a chunked prefill is any
``(q, p)``), a decode step at context ``C`` is ``(1, C)``: the new token attends to the ``C``
cached ones and itself. The table reuses the training step's operator builders
(:mod:`mlcost.workload.transformer`, :mod:`mlcost.workload.layer`) for the embedding, the
projections, the MLP and the norms over ``b·q`` tokens, keeps their forward only (no backward,
nothing saved for it), and replaces the attention core by the cached attention below.

Attention core per layer pattern (window ``w`` or none), per sequence and per head:

* unmasked (query, key) pairs ``pairs(p + q) - pairs(p)`` (:func:`mlcost.workload.attention.
  attention_pairs`, causal), the work a fused kernel (FlashAttention, PagedAttention) does;
* an eager kernel executes ``q · (cached(p) + q)`` scores (``cached`` from
  :func:`mlcost.serving.kv_cache.cached_tokens`), masked ones included; for a decode step the
  two are equal;
* each of the two matmuls costs ``2·d·pairs·n_q·b`` FLOPs and reads the cached keys (scores) or
  values (``x V``) of its key-value heads, ``b·(cached(p) + q)·n_kv·d·e_kv`` bytes (half the
  cache width of :func:`mlcost.serving.kv_cache.cache_elements_per_token`): the KV-cache
  reads that make decoding memory-bound; the new keys and values are written to the cache
  (``b·q·2·n_kv·d·e_kv`` bytes per layer).

Logits are computed for the last position of each sequence only (``b`` rows of the LM head), as
serving engines do (vLLM's ``LogitsProcessor``; Hugging Face ``logits_to_keep=1``). Weights of
the layers' GEMMs are read in the weight format (:mod:`mlcost.serving.weights`: group-wise scales
of weight-only INT4/INT8 counted); the embedding and the LM head stay in 16 bits.

Under tensor parallelism of degree ``t`` (Shoeybi et al. 2019, Megatron-LM section 3) a rank runs
``1/t`` of every split operator (the projections, the MLP, the attention heads, the LM head) and
all of the replicated ones (norms, residual adds); its attention has ``n_q/t`` query heads and
``max(1, n_kv/t)`` key-value heads.

Expert parallelism with attention data parallelism (how TensorRT-LLM, SGLang and vLLM serve
DeepSeek and Qwen3 MoE models: ``--ep`` with ``enable_attention_dp``, ``--enable-dp-attention``,
``--enable-expert-parallel``): ``e`` ranks each hold the whole attention, the norms, the
embedding and the head, and serve their own ``b/e`` sequences with their own KV cache; the
routed experts are split, ``E/e`` whole experts per rank, and each MoE layer dispatches every
token to the ranks of its ``k`` experts and combines the results (all-to-all,
:func:`mlcost.serving.latency.expert_parallel_seconds`).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from mlcost.arrays import Real, plain
from mlcost.checks import finite
from mlcost.errors import MlcostError
from mlcost.records import replace
from mlcost.results import sweep_text
from mlcost.serving.formats import compute_format, element_bytes
from mlcost.serving.kv_cache import cache_elements_per_token, cache_layers, cached_tokens
from mlcost.serving.weights import weight_bytes_per_parameter
from mlcost.specs import TransformerSpec
from mlcost.workload import TrainingConfig
from mlcost.workload.attention import attention_matmul_flops, attention_pairs
from mlcost.workload.builder import StepBuilder
from mlcost.workload.layer import attention_block_ops, mlp_block_ops
from mlcost.workload.table import (
    Operator,
    OperatorKind,
    OperatorRole,
    OperatorTable,
    elementwise_operator,
)
from mlcost.workload.transformer import embedding_ops, head_ops

AttentionCount = Literal["masked", "executed"]

#: The 16-bit configuration every forward row is built in (activations and unquantized weights).
_FORWARD = TrainingConfig(precision="bf16", dropout=False)


def check_tensor_parallel(model: TransformerSpec, tensor_parallel: Any) -> int:
    """``tensor_parallel`` if it splits ``model``'s attention: a whole number >= 1 dividing its
    query heads and dividing, or a multiple of, its key-value heads (vLLM's rule)."""
    t = tensor_parallel
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or t < 1:
        raise MlcostError(f"tp: got {t!r}, expected a whole number >= 1 (e.g. 1, 2, 4, 8)")
    heads, kv = model.num_attention_heads, model.kv_heads
    if heads % t or (kv % t and t % kv):
        raise MlcostError(
            f"tp: got {t}, expected a divisor of {model.name}'s {heads} attention heads that "
            f"divides or is a multiple of its {kv} key-value heads (e.g. 1, 2, 4, 8)"
        )
    return int(t)


def check_pipeline_stages(model: TransformerSpec, stages: Any) -> int:
    """``stages`` if ``model`` can be served in that many pipeline stages: a whole number from 1
    to its layer count (uneven splits allowed: vLLM gives the remainder layers to some stages)."""
    if (
        isinstance(stages, bool)
        or not isinstance(stages, (int, np.integer))
        or not (1 <= stages <= model.num_layers)
    ):
        raise MlcostError(
            f"pp: got {stages!r}, expected a whole number of pipeline stages from 1 to "
            f"{model.num_layers} ({model.name}'s layers), e.g. 2 or 4"
        )
    return int(stages)


def _forward_only(op: Operator) -> Operator:
    """The row without its backward pass and without anything saved for one."""
    return replace(
        op, backward_input_flops=0, backward_weight_flops=0, backward_bytes=0, saved_bytes=0,
        recompute_fraction=0.0,
    )  # fmt: skip


def _split(op: Operator, tensor_parallel: int) -> Operator:
    """One rank's share of a tensor-parallel row (FLOPs, bytes, parameters and GEMM width)."""
    if tensor_parallel == 1 or not op.tensor_parallel:
        return op
    t = tensor_parallel
    return replace(
        op, forward_flops=op.forward_flops / t, bytes_read=op.bytes_read / t,
        bytes_written=op.bytes_written / t, parameters=op.parameters / t,
        n=op.n / t if op.kind == OperatorKind.MATMUL else op.n,
    )  # fmt: skip


def touched_expert_fraction(model: TransformerSpec, tokens: Real) -> Real:
    """Expected share of a layer's routed experts that at least one of ``tokens`` tokens is
    sent to, each token choosing ``k`` distinct experts of ``E`` uniformly (balanced routing):
    ``1 - (1 - k/E)^T`` (an expert escapes one token with probability ``1 - k/E``). Only those
    experts' weights are read: a decode step of one sequence of Mixtral (k = 2, E = 8) reads a
    quarter of the expert weights; a training micro-batch of thousands of tokens all of them."""
    finite(tokens, "tokens")
    if model.moe is None:
        return 1.0
    escape = 1.0 - model.moe.experts_per_token / model.moe.num_experts
    return plain(1.0 - escape ** np.asarray(tokens, dtype=np.float64))


def _weights(
    op: Operator, act: float, per_parameter: float, fmt: str, touched: Real = 1.0
) -> Operator:
    """A layer GEMM reading its weight in the serving weight format (a routed expert's only
    when a token is sent to it: ``touched``, :func:`touched_expert_fraction`)."""
    if op.kind != OperatorKind.MATMUL or op.block != "layer":
        return op
    share = touched if op.gemm_group else 1.0  # a routed expert's GEMM (grouped per layer)
    return replace(
        op, bytes_read=op.m * op.k * act + op.k * op.n * per_parameter * share,
        format="" if fmt == "bf16" else fmt,
    )  # fmt: skip


def cached_attention_ops(
    model: TransformerSpec,
    batch: Real,
    new_tokens: Real,
    past_tokens: Real,
    *,
    kv_bytes: float,
    act: float = 2.0,
    eager: bool = False,
    tensor_parallel: int = 1,
    grouped_kv_reads: bool = True,
    fp8_attention: bool = False,
) -> list[Operator]:
    """The attention core of each layer pattern against the cache (module docstring): scores,
    softmax, scores x V, and the cache write of the new keys and values. A GQA-aware kernel
    (``grouped_kv_reads``: FlashAttention, FlashInfer, TensorRT-LLM's XQA) reads each cached
    key-value head once for its group of query heads; one that is not reads it once per query
    head, ``n_q / n_kv`` times the bytes (no saving from grouped-query attention). With
    ``fp8_attention`` the two matmuls compute in FP8 (an engine that runs its attention kernels
    on FP8 inputs under an FP8 KV cache, :attr:`mlcost.specs.Engine.fp8_attention`)."""
    d = model.head_size
    n_q = model.num_attention_heads // check_tensor_parallel(model, tensor_parallel)
    width = cache_elements_per_token(model, tensor_parallel)  # 2·n_kv·d for MHA/GQA/MQA
    b = np.asarray(batch, dtype=np.float64)
    q = np.asarray(new_tokens, dtype=np.float64)
    p = np.asarray(past_tokens, dtype=np.float64)
    layers = cache_layers(model)
    ops: list[Operator] = []
    for count, window in layers:
        label = "" if len(layers) == 1 else ("local" if window else "global")
        suffix = f" ({label})" if label else ""
        keys = np.asarray(cached_tokens(p, window), dtype=np.float64) + q
        masked = np.asarray(attention_pairs(p + q, causal=True, window=window)) - np.asarray(
            attention_pairs(p, causal=True, window=window)
        )
        pairs = q * keys if eager else masked
        flops = attention_matmul_flops(pairs, head_dim=d, heads=n_q, batch=b)
        stored = b * n_q * q * keys if eager else 0.0  # a materialized score matrix
        cache_read = b * keys * width / 2 * kv_bytes  # the keys (scores) or the values (x V)
        if not grouped_kv_reads and model.latent_attention is None:
            cache_read = cache_read * n_q / max(width / (2 * d), 1.0)  # once per query head
        queries = b * q * n_q * d * act
        core: dict[str, Any] = {
            "block": "layer", "count": count, "pattern": label, "tensor_parallel": True,
            "role": OperatorRole.ATTENTION_CORE,
        }  # fmt: skip
        matmul: dict[str, Any] = {
            **core, "kind": OperatorKind.ATTENTION, "gemm_batch": b * n_q,
            "format": "fp8" if fp8_attention else "",
        }  # fmt: skip
        ops += [
            Operator(
                name=f"attention scores QK^T{suffix}",
                forward_flops=flops,
                bytes_read=queries + cache_read,
                bytes_written=stored * act,
                m=q,
                n=keys,
                k=d,
                note="reads the cached keys" + (" and writes the score matrix" if eager else ""),
                **matmul,
            ),
            replace(
                elementwise_operator(
                    f"softmax{suffix}",
                    "layer",
                    count,
                    b * n_q * pairs,
                    "softmax",
                    kind=OperatorKind.SOFTMAX,
                    activation_bytes=act if eager else 0.0,
                    pattern=label,
                    role=OperatorRole.ATTENTION_CORE,
                    tensor_parallel=True,
                ),
                backward_input_flops=0,
            ),
            Operator(
                name=f"attention scores x V{suffix}",
                forward_flops=flops,
                bytes_read=stored * act + cache_read,
                bytes_written=queries,
                m=q,
                n=d,
                k=keys,
                note="reads the cached values",
                **matmul,
            ),
            Operator(
                name=f"kv cache write{suffix}",
                kind=OperatorKind.ELEMENTWISE,
                bytes_read=b * q * width * act,
                bytes_written=b * q * width * kv_bytes,
                note="the new tokens' keys and values stored in the cache",
                **core,
            ),
        ]
    return ops


def forward_operators(
    model: TransformerSpec,
    batch: Real,
    new_tokens: Real,
    past_tokens: Real = 0,
    *,
    weights: str = "bf16",
    kv_format: str = "bf16",
    attention: AttentionCount = "masked",
    tensor_parallel: int = 1,
    group_size: int | None = None,
    grouped_kv_reads: bool = True,
    expert_parallel: int = 1,
    fp8_attention: bool = False,
) -> OperatorTable:
    """One rank's forward over ``new_tokens`` per sequence for ``batch`` sequences with
    ``past_tokens`` already cached (module docstring); counts may be numpy arrays.

    ``expert_parallel`` ``e`` > 1: the rank is one of ``e`` attention data-parallel ranks that
    split the routed experts (module docstring): its ``batch`` sequences run the whole attention
    (``tensor_parallel`` 1), its ``E/e`` local experts take the tokens routed to them from all
    ``e`` ranks, ``e·b·q·k/E`` rows each (:class:`mlcost.workload.builder.StepBuilder`'s ``ep``),
    and an expert is touched by any of the ``e·b·q`` tokens."""
    if not isinstance(model, TransformerSpec):
        raise MlcostError(f"model: {model!r} is not a transformer; serving needs one")
    if attention not in ("masked", "executed"):
        raise MlcostError(f"attention: got {attention!r}, expected 'masked' or 'executed'")
    step = StepBuilder(
        model=model, config=_FORWARD, b=batch, s=new_tokens, micro=1, layer_rf=0.0, core_rf=0.0,
        ep=expert_parallel,
    )  # fmt: skip
    last = replace(step, s=1)  # logits of the last position only
    kv_bytes = element_bytes(kv_format, field="kv_format")
    per_parameter = weight_bytes_per_parameter(weights, group_size)
    fmt = compute_format(weights)
    attention_rows = cached_attention_ops(
        model, batch, new_tokens, past_tokens, kv_bytes=kv_bytes, act=step.act,
        eager=attention == "executed", tensor_parallel=tensor_parallel,
        grouped_kv_reads=grouped_kv_reads, fp8_attention=fp8_attention and kv_format == "fp8",
    )  # fmt: skip
    layer: list[Operator] = []
    for op in attention_block_ops(step):
        if op.role == OperatorRole.ATTENTION_CORE:
            if op.name.startswith("attention scores QK^T"):
                layer += attention_rows
                attention_rows = []
            continue
        layer.append(_weights(op, step.act, per_parameter, fmt))
    touched = touched_expert_fraction(
        model, np.asarray(batch) * np.asarray(new_tokens) * expert_parallel
    )
    layer += [_weights(op, step.act, per_parameter, fmt, touched) for op in mlp_block_ops(step)]
    rows = [*embedding_ops(step), *layer, *head_ops(last)]
    operators = tuple(
        _forward_only(op if op.role == OperatorRole.ATTENTION_CORE else _split(op, tensor_parallel))
        for op in rows
    )
    return OperatorTable(
        operators=operators,
        description=f"{model.name} forward: b={sweep_text(batch)}, {sweep_text(new_tokens)} new "
        f"token(s) after {sweep_text(past_tokens)} cached, weights {weights}, KV cache {kv_format}"
        + (f", tp={tensor_parallel} (one rank)" if tensor_parallel > 1 else "")
        + (
            f", ep={expert_parallel} with attention data parallel (one rank)"
            if expert_parallel > 1
            else ""
        ),
        tokens_per_step=np.asarray(batch) * np.asarray(new_tokens),
        metadata={
            "micro_batches": 1,
            "model": model.name,
            "config": _FORWARD,
            "causal": True,
            "dropout": False,
            "weights": weights,
            "kv_format": kv_format,
            "tensor_parallel": tensor_parallel,
            "expert_parallel": expert_parallel,
            # Serving engines run Q, K, V as one GEMM and gate and up as another (vLLM's
            # QKVParallelLinear and MergedColumnParallelLinear, TensorRT-LLM's fused QKV and
            # gated MLP, scripts/measure_serving.py alike): one launch each.
            "fused_projections": True,
        },
    )


def prefill_operators(
    model: TransformerSpec, batch: Real, prompt: Real, **options: Any
) -> OperatorTable:
    """The prefill of ``batch`` prompts of ``prompt`` tokens (nothing cached before)."""
    return forward_operators(model, batch, prompt, 0, **options)


def decode_operators(
    model: TransformerSpec, batch: Real, context: Real, **options: Any
) -> OperatorTable:
    """One decode step of ``batch`` sequences with ``context`` tokens cached."""
    return forward_operators(model, batch, 1, context, **options)


__all__ = [
    "cached_attention_ops",
    "check_pipeline_stages",
    "check_tensor_parallel",
    "decode_operators",
    "forward_operators",
    "prefill_operators",
    "touched_expert_fraction",
]
