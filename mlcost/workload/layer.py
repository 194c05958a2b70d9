"""The operators of one transformer layer: the attention block (norm, Q/K/V projections,
rotary, the attention core per pattern, output projection, residual) and the MLP block (norm,
gate/up projections, activation, down projection, residual), in execution order as the Hugging
Face reference implementations run them (see :mod:`mlcost.workload.transformer`), and the layer
inputs kept for recomputation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mlcost.arrays import Real
from mlcost.records import replace
from mlcost.workload.attention import attention_matmul_flops, attention_pairs
from mlcost.workload.builder import (
    StepBuilder,
    attention_layers,
    feed_forward_ops,
    recomputed_region,
)
from mlcost.workload.experts import moe_block_ops
from mlcost.workload.table import Operator, OperatorKind, OperatorRole, elementwise_operator


def attention_block_ops(step: StepBuilder) -> list[Operator]:
    """One layer's attention block: norm, Q/K/V projections, rotary, the attention core per
    pattern, output projection, (sandwich norm, dropout) and the residual add."""
    model, config, count, rf, tokens = (
        step.model,
        step.config,
        step.layer_count,
        step.layer_rf,
        step.tokens,
    )
    h, d = model.hidden_size, model.head_size
    n_q, n_kv = model.num_attention_heads, model.kv_heads
    block = "layer"
    ops = []
    # post-LN (BERT) normalizes after the residual add, OLMo 2's reordered norm the output
    pre_norm = model.norm_placement not in ("post", "reordered")
    # Megatron-Core's ``layernorm`` module: the input norm's output is discarded and recomputed,
    # so the projection reading it keeps nothing of it (under FP8 it keeps the original input,
    # set_save_original_input, not an FP8 copy: MLASelfAttention.set_for_recompute_input_layernorm)
    discard = pre_norm and step.recomputes("layernorm")
    if pre_norm:
        ops.append(step.norm("attention norm", block, count, rf, discard_output=discard))
    mla = model.latent_attention
    if mla is not None:
        ops += latent_attention_projection_ops(step)
        d, v_dim, n_kv = mla.qk_head_dim, mla.v_head_dim, n_q  # K and V expanded to every head
    else:
        v_dim = d
        ops.append(
            step.layer_gemm("q projection", n_q * d, h, bias=model.qkv_bias,
                            saved_replicated=True, fuse_group="qkv", tensor_parallel=True,
                            saves_input=not discard)
        )  # fmt: skip
        for name in ("k projection", "v projection"):
            ops.append(
                step.layer_gemm(name, n_kv * d, h, bias=model.qkv_bias, fuse_group="qkv",
                                tensor_parallel=True, saves_input=False,
                                note="shares its saved input with the q projection")
            )  # fmt: skip
        if model.qk_norm:
            weight = d if model.qk_norm_per_head else None  # Qwen3: one d-wide weight per norm
            ops += [qk_norm_op(step, "q norm", n_q * d, weight=weight),
                    qk_norm_op(step, "k norm", n_kv * d, weight=weight)]  # fmt: skip
        if model.position_encoding == "rotary":
            ops.append(
                elementwise_operator(
                    "rotary embedding",
                    block,
                    count,
                    tokens * (n_q + n_kv) * d,
                    "rotary",
                    activation_bytes=step.act,
                    recompute_fraction=rf,
                    tensor_parallel=True,
                    note="the cos and sin tables it saves are shared by all layers (embedding row)",
                )
            )
    eager = config.attention == "eager"
    for label, pattern_layers, pattern in attention_layers(model, config):
        if pattern_layers == 0:
            continue
        n_layers: float = pattern_layers
        if step.layers is not None:  # rows for a part of the layers: the pattern's share
            n_layers = pattern_layers * step.layers / model.num_layers
        ops += attention_core_ops(
            label,
            n_layers * step.micro,
            step.b,
            step.s,
            d,
            n_q,
            n_kv,
            step.act,
            step.core_rf,
            pairs=attention_pairs(step.s, causal=step.causal, **pattern),
            eager=eager,
            executed_full=eager and config.attention_flops == "executed",
            dropout=step.dropout_on and model.attention_dropout > 0,
            mask_bytes=step.mask_bytes,
            softmax_bytes=4 if model.softmax_in_fp32 else step.act,
            q_saved_width=np.where(np.asarray(step.b) == 1, n_q + 2 * n_kv, n_q)
            if model.fused_qkv
            else n_q,
            fused_qkv=model.fused_qkv,
            softcap=eager and model.attention_logit_softcap is not None,
            format=step.policy.high_precision_format if step.policy.layer_gemms_only else "",
            v_dim=v_dim,
            alone=step.core_rf - step.layer_rf,
            qkv_discarded=mla is not None and step.recomputes("mla_up_proj"),
        )
    ops.append(
        step.layer_gemm(
            "output projection",
            h,
            n_q * v_dim,
            bias=model.attn_out_bias,
            row_parallel=True,
            tensor_parallel=True,
        )
    )
    if model.norm_placement in ("sandwich", "reordered"):
        ops.append(step.norm("post-attention norm", block, count, rf))
    if step.dropout_on:
        ops.append(step.hidden("attention residual dropout", block, count, "dropout", rf))
    ops.append(step.hidden("attention residual add", block, count, "add", rf, inputs=2))
    return ops


def latent_attention_projection_ops(step: StepBuilder) -> list[Operator]:
    """Multi-head latent attention's projections (DeepSeek-AI 2024, arXiv 2405.04434 section
    2.1; as ``DeepseekV3Attention`` runs them): query down ``h -> r_q``, its RMSNorm, query up
    ``r_q -> n·(d_n + d_r)`` (or one ``h -> n·(d_n + d_r)`` projection without ``q_lora_rank``);
    KV down ``h -> r_kv + d_r`` (the latent and the rotary key shared by all heads), the latent's
    RMSNorm, KV up ``r_kv -> n·(d_n + d_v)``; rotary on ``n·d_r + d_r`` values per token."""
    model, tokens = step.model, step.tokens
    mla = model.latent_attention
    if mla is None:
        return []
    h, n = model.hidden_size, model.num_attention_heads
    bias = model.qkv_bias
    discard = model.norm_placement not in ("post", "reordered") and step.recomputes("layernorm")
    first: dict[str, Any] = {"saved_replicated": True, "saves_input": not discard}
    ops = []
    if mla.q_lora_rank is None:
        ops.append(step.layer_gemm("q projection", n * mla.qk_head_dim, h, bias=False, **first,
                                   tensor_parallel=True))  # fmt: skip
        first = {"saves_input": False, "note": "shares its saved input with the q projection"}
    else:
        r_q = mla.q_lora_rank
        ops.append(step.layer_gemm("q down projection", r_q, h, bias=bias, **first))
        ops.append(qk_norm_op(step, "q latent norm", r_q, tensor_parallel=False))
        ops.append(step.layer_gemm("q up projection", n * mla.qk_head_dim, r_q, bias=False,
                                   tensor_parallel=True))  # fmt: skip
        first = {"saves_input": False, "note": "shares its saved input with the q projection"}
    r_kv = mla.kv_lora_rank
    ops.append(
        step.layer_gemm("kv down projection", r_kv + mla.qk_rope_head_dim, h, bias=bias, **first)
    )
    ops.append(qk_norm_op(step, "kv latent norm", r_kv, tensor_parallel=False))
    ops.append(
        step.layer_gemm("kv up projection", n * (mla.qk_nope_head_dim + mla.v_head_dim), r_kv,
                        bias=False, tensor_parallel=True)
    )  # fmt: skip
    ops.append(
        elementwise_operator(
            "rotary embedding", "layer", step.layer_count,
            tokens * (n + 1) * mla.qk_rope_head_dim, "rotary", activation_bytes=step.act,
            recompute_fraction=step.layer_rf, tensor_parallel=True,
            note="on the rotary query parts and the one shared rotary key",
        )
    )  # fmt: skip
    if not step.recomputes("mla_up_proj"):
        return ops
    # Megatron-Core's ``mla_up_proj`` module (MLASelfAttention.get_query_key_value_tensors,
    # qkv_up_proj_and_rope_apply under CheckpointWithoutOutput; the latent norms are fused into
    # the up projections, TELayerNormColumnParallelLinear in gpt_layer_specs.py): the latent
    # norms, up projections and rotary are replayed from the kept inputs, the compressed query
    # ``T·r_q`` (or the hidden states without ``q_lora_rank``) and the compressed KV with the
    # rotary key ``T·(r_kv + d_r)``; their outputs q, k, v are discarded (attention_core_ops).
    act, tokens = step.act, step.tokens
    region = {
        "q latent norm": tokens * (mla.q_lora_rank or 0) * act,
        "q up projection": 0.0,
        "q projection": 0.0 if discard else tokens * h * act,
        "kv latent norm": tokens * (r_kv + mla.qk_rope_head_dim) * act,
        "kv up projection": 0.0,
        "rotary embedding": 0.0,
    }
    return [
        recomputed_region(step, op, region[op.name], "mla_up_proj") if op.name in region else op
        for op in ops
    ]


def qk_norm_op(
    step: StepBuilder,
    name: str,
    width: int,
    *,
    tensor_parallel: bool = True,
    weight: int | None = None,
) -> Operator:
    """An RMSNorm over the whole query (or key) projection, ``width`` wide (OLMoE's QK-norm;
    Muennighoff et al. 2024 section 2), saving what the hidden-state RMSNorm saves
    (:meth:`StepBuilder.norm`) at that width: an FP32 copy of the input, one FP32 ``1/rms`` per
    row normalized and the normalized value (FP32 where the weight is applied in FP32, Gemma 3;
    none where the weight is frozen). ``weight``: its parameters when they are fewer than
    ``width`` (Qwen3 and Gemma 3 normalize each head with one ``d``-wide weight, so a token has
    ``width / d`` rows)."""
    tokens, act, model = step.tokens, step.act, step.model
    normalized = 0 if step.frozen_norms else (4 if model.norm_in_fp32 else act)
    rows = tokens * (width // weight if weight else 1)
    return elementwise_operator(
        name, "layer", step.layer_count, tokens * width, "rmsnorm", activation_bytes=act,
        kind=OperatorKind.NORM, parameters=width if weight is None else weight, saved_elements=1,
        saved_element_bytes=tokens * width * 4 + rows * 4 + tokens * width * normalized,
        recompute_fraction=step.layer_rf, tensor_parallel=tensor_parallel,
    )  # fmt: skip


def mlp_block_ops(step: StepBuilder) -> list[Operator]:
    """One layer's MLP block: norm, (gate,) up, activation, (gate x up,) down, (sandwich norm,
    dropout,) residual add (and BERT's post-norm). In a mixture-of-experts model the dense MLP
    runs in the dense layers only and the experts (:mod:`mlcost.workload.experts`) in the others;
    the norm and the residual add run in every layer."""
    model, count, rf = step.model, step.layer_count, step.layer_rf
    block = "layer"
    post = model.norm_placement == "post"
    ops = []
    # Megatron-Core's ``layernorm`` module recomputes the pre-MLP norm too (its output
    # discarded: the MLP's first projection or the router keeps nothing of it).
    discard = model.norm_placement not in ("post", "reordered") and step.recomputes("layernorm")
    if model.norm_placement != "reordered":
        name = "attention post-norm" if post else "mlp norm"
        ops.append(step.norm(name, block, count, rf, discard_output=discard))
    if step.dense_mlp_count:
        dense = feed_forward_ops(
            step, "mlp", model.ffn_hidden_size, step.dense_mlp_count, saves_input=not discard
        )
        if step.recomputes("mlp"):  # the dense MLP checkpointed whole: it keeps its input
            kept = 0.0 if discard else step.tokens * model.hidden_size * step.act
            dense = [
                recomputed_region(step, op, kept if i == 0 else 0.0, "mlp")
                for i, op in enumerate(dense)
            ]
        ops += dense
    ops += moe_block_ops(step, norm_output_discarded=discard)
    if model.norm_placement in ("sandwich", "reordered"):
        ops.append(step.norm("post-mlp norm", block, count, rf))
    if step.dropout_on:
        ops.append(step.hidden("mlp residual dropout", block, count, "dropout", rf))
    ops.append(step.hidden("mlp residual add", block, count, "add", rf, inputs=2))
    if post:
        ops.append(step.norm("mlp post-norm", block, count, rf))
    return ops


def fp8_cast_ops(step: StepBuilder, layer_ops: list[Operator]) -> list[Operator]:
    """Under an FP8 recipe, the casts of every FP8 GEMM of a layer (Transformer Engine's
    cast-transpose kernels): its input and its weight (each micro-batch) in forward and its output
    gradient in backward, each read in BF16 and written as FP8 and as its FP8 transpose (the
    weight-gradient GEMM reads the transposes): ``(2 + 1 + 1)`` bytes per element of
    ``m·k + k·n`` forward and of ``m·n`` backward, per GEMM."""
    if not step.policy.layer_gemms_only:
        return []
    gemms = [op for op in layer_ops if op.kind == OperatorKind.MATMUL and not op.format]
    if not gemms:
        return []
    forward = sum(op.m * op.k + op.k * op.n for op in gemms)
    backward = sum(op.m * op.n for op in gemms)
    return [
        Operator(
            name="fp8 casts (inputs, weights, output gradients)",
            kind=OperatorKind.ELEMENTWISE,
            block="layer",
            count=step.layer_count,
            bytes_read=2 * forward,
            bytes_written=2 * forward,
            backward_bytes=4 * backward,
            recompute_fraction=step.layer_rf,
            tensor_parallel=True,
            note=f"Transformer Engine cast-transpose of {len(gemms)} FP8 GEMMs per layer",
        )
    ]


def layer_checkpoint_ops(step: StepBuilder) -> list[Operator]:
    """The layer inputs kept to replay the forward of recomputed layers."""
    if step.layer_rf <= 0:
        return []
    layers = step.model.num_layers
    return [
        Operator(
            name="layer input checkpoint",
            kind=OperatorKind.CHECKPOINT,
            block="layer",
            count=layers * step.layer_rf * step.micro,
            saved_bytes=step.tokens * step.model.hidden_size * step.act,
            note="the input of each recomputed layer is kept to replay its forward",
        )
    ]


def attention_core_ops(
    label: str,
    count: Real,
    b: Real,
    s: Real,
    d: int,
    n_q: int,
    n_kv: int,
    act: float,
    rf: float,
    *,
    pairs: Real,
    eager: bool,
    executed_full: bool,
    dropout: bool,
    mask_bytes: float,
    softmax_bytes: float,
    q_saved_width: Real,
    fused_qkv: bool = False,
    softcap: bool = False,
    format: str = "",
    v_dim: int | None = None,
    alone: float = 0.0,
    qkv_discarded: bool = False,
) -> list[Operator]:
    """QK^T, (logit soft-capping,) softmax, (dropout,) PV for one attention pattern.

    ``pairs`` are the (query, key) scores under the mask. An eager kernel materializes the whole
    ``s x s`` score matrix (and, under the ``executed`` convention, is charged for all of it).
    What it saves follows the Hugging Face eager implementations: the batched matmuls keep
    contiguous copies of q and of k and v repeated to all ``n_q`` heads (GQA's ``repeat_kv``);
    with a fused QKV projection and one sequence, q is a view of the whole QKV output
    (``q_saved_width`` heads' worth); the softmax keeps its output (FP32 when upcast), dropout
    its mask, and PV the probabilities it multiplies (a new tensor after dropout or a cast).
    Soft-capping (Gemma 2: ``c·tanh(scores/c)``) in eager attention keeps the tanh output, one
    more score matrix in the activation format; a fused kernel caps inside.
    A fused (FlashAttention) kernel keeps no score matrix and saves q, k, v, the output and the
    row log-sum-exp (FP32) instead (Dao et al. 2022, section 3.1); the output is the output
    projection's saved input too, so it is counted there. Through PyTorch's SDPA with a fused QKV
    projection (GPT-2) q and v are saved as contiguous copies and k as a view of the whole QKV
    output. ``v_dim`` is the value head size when it differs from the query/key one ``d``
    (multi-head latent attention): scores x V then costs ``2·v_dim`` FLOPs per pair and head.
    ``alone``: the share of the layers whose attention core is recomputed on its own (selective
    recomputation, not the whole layer): the checkpointed region keeps its inputs q, k and v
    for backward, ``b·s·(n_q·d + n_kv·d + n_kv·d_v)`` elements (Megatron's
    ``CheckpointFunction`` over ``core_attention``; Korthikanti et al. 2022, section 4.2: the
    ``34·s·b·h`` of Table 2 keeps the ``6·s·b·h`` of Q, K and V), on the scores row.
    ``qkv_discarded``: q, k and v are the discarded outputs of a region recomputed before it
    (Megatron-Core's ``mla_up_proj``), so neither the kernel nor a checkpoint around it holds
    them between forward and backward.
    """
    dv = d if v_dim is None else v_dim
    suffix = f" ({label})" if label else ""
    counted = s * s if executed_full else pairs
    stored = b * n_q * s * s if eager else 0  # scores materialized in memory
    matmul = attention_matmul_flops(counted, head_dim=d, heads=n_q, batch=b)
    scores = b * n_q * counted
    tokens = b * s
    qk = tokens * (n_q + n_kv) * d * act
    if eager:
        scores_saved = tokens * (q_saved_width + n_q) * d * act  # q (or QKV view), repeated k
        probabilities_new = dropout or softmax_bytes != act  # PV's operand is a new tensor
        pv_saved = tokens * n_q * dv * act + (stored * act if probabilities_new else 0)
    else:
        if fused_qkv:
            scores_saved = tokens * (n_q + (n_q + 2 * n_kv) + n_kv) * d * act
        else:
            scores_saved = qk + tokens * n_kv * dv * act
        pv_saved = 0
    core: dict[str, Any] = {
        "recompute_fraction": rf,
        "pattern": label,
        "tensor_parallel": True,
        "role": OperatorRole.ATTENTION_CORE,
    }
    elementwise: dict[str, Any] = {**core, "activation_bytes": act if eager else 0}
    ops = [
        _attention_matmul(
            f"attention scores QK^T{suffix}", count, matmul, qk, stored * act,
            stored * act + 2 * qk, scores_saved, (s, s, d), rf, label, b * n_q, format,
            "eager: materializes the score matrix" if eager
            else "fused (FlashAttention): no score matrix in memory; saves q, k, v",
            region_input_bytes=qk + tokens * n_kv * dv * act,
            recomputed_alone=alone,
        ),
        elementwise_operator(
            f"softmax{suffix}", "layer", count, scores, "softmax", kind=OperatorKind.SOFTMAX,
            saved_elements=stored if eager else b * n_q * s,
            saved_element_bytes=softmax_bytes if eager else 4, **elementwise,
        ),
    ]  # fmt: skip
    if softcap:
        ops.insert(
            1,
            elementwise_operator(
                f"attention logit soft-capping{suffix}", "layer", count, scores, "softcap",
                saved_elements=stored, **elementwise,
            ),
        )  # fmt: skip
    if dropout:
        ops.append(
            elementwise_operator(
                f"attention dropout{suffix}", "layer", count, scores, "dropout",
                kind=OperatorKind.DROPOUT, saved_elements=stored, saved_element_bytes=mask_bytes,
                **elementwise,
            )
        )  # fmt: skip
    v_bytes = tokens * n_kv * dv * act
    if qkv_discarded:  # q and k (with v in a fused kernel) on the scores row, v on PV's
        ops[0] = replace(
            ops[0],
            saved_bytes=ops[0].saved_bytes - qk - (0 if eager else v_bytes),
            region_input_bytes=0.0,
            note=f"{ops[0].note}; q, k, v regenerated by the recomputed up projections",
        )
        pv_saved = pv_saved - (v_bytes if eager else 0)
    out_bytes = tokens * n_q * dv * act
    pv_flops = matmul if dv == d else attention_matmul_flops(counted, head_dim=dv, heads=n_q,
                                                             batch=b)  # fmt: skip
    ops.append(
        _attention_matmul(
            f"attention scores x V{suffix}", count, pv_flops, stored * act + v_bytes, out_bytes,
            2 * stored * act + 2 * (v_bytes + out_bytes), pv_saved, (s, dv, s), rf, label,
            b * n_q, format,
        )
    )  # fmt: skip
    return ops


def _attention_matmul(
    name: str,
    count: Real,
    forward: Real,
    bytes_read: Real,
    bytes_written: Real,
    backward_bytes: Real,
    saved_bytes: Real,
    shape: tuple[Real, Real, Real],
    rf: float,
    pattern: str,
    batch_heads: Real,
    format: str,
    note: str = "",
    region_input_bytes: Real = 0.0,
    recomputed_alone: float = 0.0,
) -> Operator:
    """One of the attention core's two batched matmuls (scores ``[s x d]·[d x s]``, scores x V
    ``[s x s]·[s x d_v]``; ``shape`` its ``m, n, k``, ``batch_heads`` GEMMs of it per
    launch): ``forward`` FLOPs, an input gradient of twice that (no weight), split over the
    tensor-parallel ranks by heads, recomputed with the attention core."""
    m, n, k = shape
    return Operator(
        name=name,
        kind=OperatorKind.ATTENTION,
        block="layer",
        count=count,
        forward_flops=forward,
        backward_input_flops=2 * forward,
        bytes_read=bytes_read,
        bytes_written=bytes_written,
        backward_bytes=backward_bytes,
        saved_bytes=saved_bytes,
        region_input_bytes=region_input_bytes,
        recomputed_alone=recomputed_alone,
        recompute_fraction=rf,
        m=m,
        n=n,
        k=k,
        gemm_batch=batch_heads,
        role=OperatorRole.ATTENTION_CORE,
        pattern=pattern,
        tensor_parallel=True,
        format=format,
        note=note,
    )
