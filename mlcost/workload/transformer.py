"""The operator table of one training step of a transformer.

Notation: ``b`` micro-batch, ``s`` sequence length, ``T = b·s`` tokens, ``h`` hidden size,
``d`` head dim, ``n_q`` / ``n_kv`` query / key-value heads, ``f`` FFN size, ``V`` vocabulary,
``L`` layers. Every GEMM ``[M x K] · [K x N]`` costs ``2·M·N·K`` FLOPs forward and the same again
for each of its two gradients (input and weight; Narayanan et al. 2021, section 5.1). The
layout follows the Hugging Face reference implementations (``GPT2LMHeadModel``,
``LlamaForCausalLM``, ``MistralForCausalLM``, ``Qwen2ForCausalLM``, ``Gemma2ForCausalLM``,
``BertForPreTraining``), against which the test suite checks the GEMM FLOPs with
``torch.utils.flop_counter``.

Per layer (forward GEMM FLOPs): Q ``2·T·h·n_q·d``, K and V ``2·T·h·n_kv·d`` each, O
``2·T·n_q·d·h``, MLP ``2·T·h·f`` per matrix (2 plain, 3 gated), and the two attention matmuls
``2·d·pairs·n_q·b`` each (``pairs`` from :mod:`mlcost.workload.attention`). For MHA with
``f = 4h`` and the executed full score matrix this is the familiar ``24·T·h^2 + 4·b·s^2·h``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from mlcost.specs.models import TransformerSpec
from mlcost.workload.attention import attention_matmul_flops, attention_pairs
from mlcost.workload.config import PrecisionPolicy, TrainingConfig
from mlcost.workload.optimizer import optimizer_operator
from mlcost.workload.table import Operator, OperatorTable, elementwise_operator

Number = Any


def _gemm(
    name: str,
    block: str,
    count: Number,
    m: Number,
    n: int,
    k: int,
    *,
    policy: PrecisionPolicy,
    bias: bool,
    saves_input: bool = True,
    input_needs_grad: bool = True,
    recompute_fraction: float = 0.0,
    note: str = "",
) -> Operator:
    """A GEMM ``[m x k] · [k x n]`` against a weight of ``k·n`` parameters (plus ``n`` bias)."""
    gemm_input_bytes, activation_bytes = policy.gemm_input, policy.activation
    weight_bytes, gradient_bytes = policy.weight, policy.gradient
    forward = 2 * m * n * k
    return Operator(
        name=name,
        kind="matmul",
        block=block,
        count=count,
        forward_flops=forward,
        backward_input_flops=forward if input_needs_grad else 0,
        backward_weight_flops=forward,
        bytes_read=m * k * gemm_input_bytes + k * n * weight_bytes,
        bytes_written=m * n * activation_bytes,
        # dX = dY·W^T reads dY and W, writes dX; dW = X^T·dY reads X and dY, writes dW.
        backward_bytes=(m * n * activation_bytes + k * n * weight_bytes + m * k * activation_bytes)
        + (m * k * gemm_input_bytes + m * n * activation_bytes + k * n * gradient_bytes),
        saved_bytes=m * k * gemm_input_bytes if saves_input else 0,
        parameters=k * n + (n if bias else 0),
        recompute_fraction=recompute_fraction,
        m=m,
        n=n,
        k=k,
        note=note,
    )


def _attention_layers(
    model: TransformerSpec, config: TrainingConfig
) -> list[tuple[str, int, dict[str, Any]]]:
    """(label, number of layers, pattern keywords for ``attention_pairs``) per attention pattern.

    A pattern in the config (window or dilation) applies to every layer; otherwise Gemma-2
    alternates sliding-window and global layers and Mistral uses its window in every layer.
    """
    if config.dilated_segments:
        dilated = {
            "dilated_segments": config.dilated_segments,
            "dilation_rates": config.dilation_rates,
        }
        return [("dilated", model.num_layers, dilated)]
    if config.attention_window is not None:
        return [("", model.num_layers, {"window": config.attention_window})]
    window = model.sliding_window
    if window is not None and model.global_attention_every:
        every = model.global_attention_every
        global_layers = model.num_layers // every
        return [
            ("local", model.num_layers - global_layers, {"window": window}),
            ("global", global_layers, {}),
        ]
    return [("", model.num_layers, {} if window is None else {"window": window})]


def transformer_operators(
    model: TransformerSpec,
    config: TrainingConfig,
    *,
    micro_batch_size: Number | None = None,
    sequence_length: Number | None = None,
) -> OperatorTable:
    """The operator table of one training step (``gradient_accumulation_steps`` micro-batches
    and one optimizer update) of ``model`` under ``config``.

    ``micro_batch_size`` and ``sequence_length`` override the config's and may be numpy arrays
    (broadcast together): every figure of the table is then an array, one value per
    configuration, so a sweep is one call.
    """
    b = config.micro_batch_size if micro_batch_size is None else micro_batch_size
    s = config.sequence_length if sequence_length is None else sequence_length
    tokens = b * s
    h, d, f, vocab = model.hidden_size, model.head_size, model.ffn_hidden_size, model.vocab_size
    n_q, n_kv, layers = model.num_attention_heads, model.kv_heads, model.num_layers
    micro = config.gradient_accumulation_steps
    policy = config.policy
    act, weight, grad = policy.activation, policy.weight, policy.gradient
    causal = model.architecture == "decoder" if config.causal is None else config.causal
    dropout_on = config.dropout
    if dropout_on is None:
        dropout_on = model.hidden_dropout > 0 or model.attention_dropout > 0
    norm_params = h * (2 if model.has_norm_bias else 1)
    if model.norm == "layernorm":  # torch.layer_norm: input, mean and 1/sigma (FP32)
        norm_saved = tokens * h * act + tokens * 2 * 4
    else:  # HF RMSNorm: FP32 copy of the input, 1/rms (FP32), normalized value before the weight
        norm_saved = tokens * h * 4 + tokens * 4 + tokens * h * act
    mask = act if config.dropout_mask == "dtype" else 1.0

    layer_rf = {"full": 1.0, "every-k": (layers // (config.recompute_every or 1)) / layers}.get(
        config.recompute, 0.0
    )
    core_rf = 1.0 if config.recompute == "selective" else layer_rf
    ops: list[Operator] = []

    def norm(name: str, block: str, count: Number, rf: float = 0.0) -> Operator:
        return elementwise_operator(
            name,
            block,
            count,
            tokens * h,
            model.norm,
            activation_bytes=act,
            kind="norm",
            parameters=norm_params,
            saved_elements=1,
            saved_element_bytes=norm_saved,
            recompute_fraction=rf,
        )

    def hidden(
        name: str, block: str, count: Number, key: str, rf: float = 0.0, **extra: Any
    ) -> Operator:
        """An element-wise operator over the ``T x h`` hidden states."""
        if key == "dropout":
            extra = {
                "kind": "dropout",
                "saved_elements": tokens * h,
                "saved_element_bytes": mask,
                **extra,
            }
        return elementwise_operator(
            name,
            block,
            count,
            tokens * h,
            key,
            activation_bytes=act,
            recompute_fraction=rf,
            **extra,
        )

    def gemm(
        name: str,
        block: str,
        count: Number,
        m: Number,
        n: int,
        k: int,
        *,
        bias: bool,
        rf: float = 0.0,
        **extra: Any,
    ) -> Operator:
        return _gemm(
            name, block, count, m, n, k, policy=policy, bias=bias, recompute_fraction=rf, **extra
        )

    # ----- embeddings -----------------------------------------------------------------------
    emb = "embedding"
    ops.append(
        Operator(
            name="token embedding",
            kind="embedding",
            block=emb,
            count=micro,
            bytes_read=tokens * h * weight + tokens * 8,
            bytes_written=tokens * h * act,
            # Backward: read the output gradient, zero-fill the dense V x h weight gradient and
            # scatter-add into it (PyTorch embedding_dense_backward); with tied weights the
            # LM head's gradient is then added to it (read both, write one).
            backward_bytes=tokens * h * act
            + vocab * h * grad * (2 + (3 if model.tie_word_embeddings else 0)),
            parameters=vocab * h,
            saved_bytes=tokens * 8 * (2 if model.position_encoding == "learned" else 1)
            + (2 * s * d * act if model.position_encoding == "rotary" else 0),
            note="gather; saves the int64 token (and position) ids for its scatter-add backward; "
            "with rotary positions also the cos and sin tables (s x d each) all layers share",
        )
    )
    if model.position_encoding == "learned":
        ops.append(
            hidden(
                "position embedding add",
                emb,
                micro,
                "add",
                inputs=2,
                parameters=model.max_position_embeddings * h,
            )
        )
    if model.type_vocab_size:
        ops.append(
            hidden(
                "token type embedding add",
                emb,
                micro,
                "add",
                inputs=2,
                parameters=model.type_vocab_size * h,
            )
        )
    if model.norm_placement == "sandwich":  # Gemma scales embeddings by sqrt(h)
        ops.append(hidden("embedding scale", emb, micro, "scale"))
    if model.embedding_norm:
        ops.append(norm("embedding norm", emb, micro))
    if dropout_on:
        ops.append(hidden("embedding dropout", emb, micro, "dropout"))

    # ----- layers: attention ----------------------------------------------------------------
    lay, count, rf = "layer", layers * micro, layer_rf
    if model.norm_placement != "post":  # post-LN (BERT) normalizes after the residual add
        ops.append(norm("attention norm", lay, count, rf))
    shared: dict[str, Any] = {
        "saves_input": False,
        "note": "shares its saved input with the q projection",
    }
    ops.append(gemm("q projection", lay, count, tokens, n_q * d, h, bias=model.qkv_bias, rf=rf))
    ops.append(
        gemm("k projection", lay, count, tokens, n_kv * d, h, bias=model.qkv_bias, rf=rf, **shared)
    )
    ops.append(
        gemm("v projection", lay, count, tokens, n_kv * d, h, bias=model.qkv_bias, rf=rf, **shared)
    )
    if model.position_encoding == "rotary":
        ops.append(
            elementwise_operator(
                "rotary embedding",
                lay,
                count,
                tokens * (n_q + n_kv) * d,
                "rotary",
                activation_bytes=act,
                recompute_fraction=rf,
                note="the cos and sin tables it saves are shared by all layers (embedding row)",
            )
        )
    eager = config.attention == "eager"
    for label, n_layers, pattern in _attention_layers(model, config):
        if n_layers == 0:
            continue
        ops += _attention_core(
            label,
            n_layers * micro,
            b,
            s,
            d,
            n_q,
            n_kv,
            act,
            core_rf,
            pairs=attention_pairs(s, causal=causal, **pattern),
            eager=eager,
            executed_full=eager and config.attention_flops == "executed",
            dropout=dropout_on and model.attention_dropout > 0,
            mask_bytes=mask,
            softmax_bytes=4 if model.softmax_in_fp32 else act,
            q_saved_width=np.where(np.asarray(b) == 1, n_q + 2 * n_kv, n_q)
            if model.fused_qkv
            else n_q,
            fused_qkv=model.fused_qkv,
        )
    ops.append(
        gemm("output projection", lay, count, tokens, h, n_q * d, bias=model.attn_out_bias, rf=rf)
    )
    if model.norm_placement == "sandwich":
        ops.append(norm("post-attention norm", lay, count, rf))
    if dropout_on:
        ops.append(hidden("attention residual dropout", lay, count, "dropout", rf))
    ops.append(hidden("attention residual add", lay, count, "add", rf, inputs=2))
    ops.append(
        norm(
            "attention post-norm" if model.norm_placement == "post" else "mlp norm", lay, count, rf
        )
    )

    # ----- layers: MLP ----------------------------------------------------------------------
    activation = f"mlp activation ({model.activation})"
    ffn: dict[str, Any] = {
        "activation_bytes": act,
        "recompute_fraction": rf,
        "saved_elements": tokens * f,
    }
    # A fused activation keeps its input; one written as element-wise ops (HF's gelu_new:
    # x^3, the tanh argument, tanh and the final product) keeps four f-wide tensors.
    activation_saved = {
        **ffn,
        "saved_elements": tokens * f * (4 if model.activation_decomposed else 1),
    }
    shares_input: dict[str, Any] = {}
    if model.gated_mlp:
        ops.append(
            gemm("mlp gate projection", lay, count, tokens, f, h, bias=model.mlp_bias, rf=rf)
        )
        shares_input = {
            "saves_input": False,
            "note": "shares its saved input with the gate projection",
        }
    ops.append(
        gemm(
            "mlp up projection",
            lay,
            count,
            tokens,
            f,
            h,
            bias=model.mlp_bias,
            rf=rf,
            **shares_input,
        )
    )
    ops.append(
        elementwise_operator(
            activation,
            lay,
            count,
            tokens * f,
            model.activation,
            kind="activation",
            **activation_saved,
        )
    )
    if model.gated_mlp:
        ops.append(
            elementwise_operator(
                "mlp gate x up",
                lay,
                count,
                tokens * f,
                "multiply",
                inputs=2,
                note="saves both operands: the activation output and the up projection",
                **{**ffn, "saved_elements": 2 * tokens * f},
            )
        )
    ops.append(gemm("mlp down projection", lay, count, tokens, h, f, bias=model.mlp_bias, rf=rf))
    if model.norm_placement == "sandwich":
        ops.append(norm("post-mlp norm", lay, count, rf))
    if dropout_on:
        ops.append(hidden("mlp residual dropout", lay, count, "dropout", rf))
    ops.append(hidden("mlp residual add", lay, count, "add", rf, inputs=2))
    if model.norm_placement == "post":
        ops.append(norm("mlp post-norm", lay, count, rf))
    if layer_rf > 0:
        ops.append(
            Operator(
                name="layer input checkpoint",
                kind="checkpoint",
                block=lay,
                count=layers * layer_rf * micro,
                saved_bytes=tokens * h * act,
                note="the input of each recomputed layer is kept to replay its forward",
            )
        )

    # ----- head -----------------------------------------------------------------------------
    head = "head"
    if model.final_norm:
        ops.append(norm("final norm", head, micro))
    if model.lm_head_transform:
        ops.append(gemm("lm head transform", head, micro, tokens, h, h, bias=True))
        ops.append(
            hidden(
                f"lm head transform activation ({model.activation})",
                head,
                micro,
                model.activation,
                kind="activation",
                saved_elements=tokens * h,
            )
        )
        ops.append(norm("lm head transform norm", head, micro))
    if model.lm_head:
        lm = gemm("lm head (logits)", head, micro, tokens, vocab, h, bias=model.lm_head_bias)
        if model.tie_word_embeddings:
            lm = replace(
                lm,
                parameters=vocab if model.lm_head_bias else 0,
                note="weight tied to the token embedding",
            )
        ops.append(lm)
    if model.final_logit_softcap:
        ops.append(
            elementwise_operator(
                "logit soft-capping",
                head,
                micro,
                tokens * vocab,
                "softcap",
                activation_bytes=act,
                saved_elements=tokens * vocab,
            )
        )
    if model.pooler:
        ops.append(gemm("pooler", head, micro, b, h, h, bias=True))
    if model.nsp_head:
        ops.append(gemm("next-sentence head", head, micro, b, 2, h, bias=True))
    ops.append(
        elementwise_operator(
            "cross-entropy loss",
            "loss",
            micro,
            tokens * vocab,
            "cross-entropy",
            activation_bytes=4,
            kind="loss",
            saved_elements=tokens * vocab,
            saved_element_bytes=4,
            note="logits upcast to FP32; log-softmax saved for backward",
        )
    )
    ops.append(optimizer_operator(model.parameter_count, config))

    return OperatorTable(
        operators=tuple(ops),
        description=f"{model.name}: b={b}, s={s}, {config.precision}, {config.attention} "
        f"attention ({config.attention_flops}), recompute {config.recompute}, "
        f"{micro} micro-batch(es)",
        tokens_per_step=tokens * micro,
        metadata={
            "micro_batches": micro,
            "model": model.name,
            "config": config,
            "causal": causal,
            "dropout": dropout_on,
        },
    )


def _attention_core(
    label: str,
    count: Number,
    b: Number,
    s: Number,
    d: int,
    n_q: int,
    n_kv: int,
    act: float,
    rf: float,
    *,
    pairs: Number,
    eager: bool,
    executed_full: bool,
    dropout: bool,
    mask_bytes: float,
    softmax_bytes: float,
    q_saved_width: Number,
    fused_qkv: bool = False,
) -> list[Operator]:
    """QK^T, softmax, (dropout,) PV for one attention pattern.

    ``pairs`` are the (query, key) scores under the mask. An eager kernel materializes the whole
    ``s x s`` score matrix (and, under the ``executed`` convention, is charged for all of it).
    What it saves follows the Hugging Face eager implementations: the batched matmuls keep
    contiguous copies of q and of k and v repeated to all ``n_q`` heads (GQA's ``repeat_kv``);
    with a fused QKV projection and one sequence, q is a view of the whole QKV output
    (``q_saved_width`` heads' worth); the softmax keeps its output (FP32 when upcast), dropout
    its mask, and PV the probabilities it multiplies (a new tensor after dropout or a cast).
    A fused (FlashAttention) kernel keeps no score matrix and saves q, k, v, the output and the
    row log-sum-exp (FP32) instead (Dao et al. 2022, section 3.1); the output is the output
    projection's saved input too, so it is counted there. Through PyTorch's SDPA with a fused QKV
    projection (GPT-2) q and v are saved as contiguous copies and k as a view of the whole QKV
    output.
    """
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
        pv_saved = tokens * n_q * d * act + (stored * act if probabilities_new else 0)
    else:
        if fused_qkv:
            scores_saved = tokens * (n_q + (n_q + 2 * n_kv) + n_kv) * d * act
        else:
            scores_saved = qk + tokens * n_kv * d * act
        pv_saved = 0
    ops = [
        Operator(
            name=f"attention scores QK^T{suffix}",
            kind="attention",
            block="layer",
            count=count,
            forward_flops=matmul,
            backward_input_flops=2 * matmul,
            bytes_read=qk,
            bytes_written=stored * act,
            backward_bytes=stored * act + 2 * qk,
            saved_bytes=scores_saved,
            recompute_fraction=rf,
            m=s,
            n=s,
            k=d,
            gemm_batch=b * n_q,
            note="eager: materializes the score matrix"
            if eager
            else "fused (FlashAttention): no score matrix in memory; saves q, k, v",
        ),
        elementwise_operator(
            f"softmax{suffix}",
            "layer",
            count,
            scores,
            "softmax",
            activation_bytes=act if eager else 0,
            kind="softmax",
            saved_elements=stored if eager else b * n_q * s,
            saved_element_bytes=softmax_bytes if eager else 4,
            recompute_fraction=rf,
        ),
    ]
    if dropout:
        ops.append(
            elementwise_operator(
                f"attention dropout{suffix}",
                "layer",
                count,
                scores,
                "dropout",
                activation_bytes=act if eager else 0,
                kind="dropout",
                saved_elements=stored,
                saved_element_bytes=mask_bytes,
                recompute_fraction=rf,
            )
        )
    v_bytes = tokens * n_kv * d * act
    out_bytes = tokens * n_q * d * act
    ops.append(
        Operator(
            name=f"attention scores x V{suffix}",
            kind="attention",
            block="layer",
            count=count,
            forward_flops=matmul,
            backward_input_flops=2 * matmul,
            bytes_read=stored * act + v_bytes,
            bytes_written=out_bytes,
            backward_bytes=2 * stored * act + 2 * (v_bytes + out_bytes),
            saved_bytes=pv_saved,
            recompute_fraction=rf,
            m=s,
            n=d,
            k=s,
            gemm_batch=b * n_q,
        )
    )
    return ops
