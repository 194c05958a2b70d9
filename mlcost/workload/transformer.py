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

from typing import Any

from mlcost.specs.models import TransformerSpec
from mlcost.workload.attention import attention_matmul_flops, attention_pairs
from mlcost.workload.config import PrecisionPolicy, TrainingConfig
from mlcost.workload.optimizer import optimizer_operator
from mlcost.workload.table import (
    ELEMENTWISE_BACKWARD_FACTOR,
    ELEMENTWISE_FLOPS,
    Operator,
    OperatorTable,
)

Number = Any


def _elementwise(
    name: str,
    block: str,
    count: Number,
    elements: Number,
    flops_key: str,
    *,
    activation_bytes: float,
    inputs: int = 1,
    saved_elements: Number = 0,
    saved_element_bytes: float | None = None,
    kind: str = "elementwise",
    parameters: Number = 0,
    recompute_fraction: float = 0.0,
    note: str = "",
) -> Operator:
    """An element-wise operator over ``elements`` values: reads ``inputs`` tensors, writes one."""
    forward = ELEMENTWISE_FLOPS[flops_key] * elements
    saved_size = activation_bytes if saved_element_bytes is None else saved_element_bytes
    return Operator(
        name=name,
        kind=kind,
        block=block,
        count=count,
        forward_flops=forward,
        backward_input_flops=ELEMENTWISE_BACKWARD_FACTOR * forward,
        bytes_read=inputs * elements * activation_bytes,
        bytes_written=elements * activation_bytes,
        backward_bytes=(inputs + 1) * elements * activation_bytes,
        saved_bytes=saved_elements * saved_size,
        parameters=parameters,
        recompute_fraction=recompute_fraction,
        note=note,
    )


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
    dropout_on = (
        (model.hidden_dropout > 0 or model.attention_dropout > 0)
        if config.dropout is None
        else config.dropout
    )
    norm_key = model.norm
    norm_params = h * (2 if model.has_norm_bias else 1)
    norm_saved = tokens * h * act + tokens * 2 * 4  # input, plus mean and 1/sigma (FP32)

    full = {"none": 0.0, "selective": 0.0, "full": 1.0}.get(config.recompute)
    if config.recompute == "every-k":
        every = config.recompute_every or 1
        full = (layers // every) / layers
    layer_recompute = float(full or 0.0)
    attention_core_recompute = 1.0 if config.recompute == "selective" else layer_recompute

    ops: list[Operator] = []

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
            backward_bytes=tokens * h * act + tokens * h * grad,
            parameters=vocab * h,
            note="gather; its backward is a scatter-add into the embedding gradient",
        )
    )
    if model.position_encoding == "learned":
        ops.append(
            _elementwise(
                "position embedding add",
                emb,
                micro,
                tokens * h,
                "add",
                activation_bytes=act,
                inputs=2,
                parameters=model.max_position_embeddings * h,
            )
        )
    if model.type_vocab_size:
        ops.append(
            _elementwise(
                "token type embedding add",
                emb,
                micro,
                tokens * h,
                "add",
                activation_bytes=act,
                inputs=2,
                parameters=model.type_vocab_size * h,
            )
        )
    if model.norm_placement == "sandwich":  # Gemma scales embeddings by sqrt(h)
        ops.append(
            _elementwise("embedding scale", emb, micro, tokens * h, "scale", activation_bytes=act)
        )
    if model.embedding_norm:
        ops.append(
            _elementwise(
                "embedding norm",
                emb,
                micro,
                tokens * h,
                norm_key,
                activation_bytes=act,
                kind="norm",
                parameters=norm_params,
                saved_elements=tokens,
                saved_element_bytes=act + 8,
            )
        )
    if dropout_on:
        ops.append(
            _elementwise(
                "embedding dropout",
                emb,
                micro,
                tokens * h,
                "dropout",
                activation_bytes=act,
                kind="dropout",
                saved_elements=tokens * h,
                saved_element_bytes=1,
            )
        )

    # ----- layers -------------------------------------------------------------------------
    lay = "layer"
    count = layers * micro
    rf = layer_recompute
    if model.norm_placement != "post":  # post-LN (BERT) normalizes after the residual add
        ops.append(
            _elementwise(
                "attention norm",
                lay,
                count,
                tokens * h,
                norm_key,
                activation_bytes=act,
                kind="norm",
                parameters=norm_params,
                saved_elements=1,
                saved_element_bytes=norm_saved,
                recompute_fraction=rf,
            )
        )
    ops.append(
        _gemm(
            "q projection",
            lay,
            count,
            tokens,
            n_q * d,
            h,
            bias=model.qkv_bias,
            recompute_fraction=rf,
            policy=policy,
        )
    )
    ops.append(
        _gemm(
            "k projection",
            lay,
            count,
            tokens,
            n_kv * d,
            h,
            bias=model.qkv_bias,
            saves_input=False,
            recompute_fraction=rf,
            note="shares its saved input with the q projection",
            policy=policy,
        )
    )
    ops.append(
        _gemm(
            "v projection",
            lay,
            count,
            tokens,
            n_kv * d,
            h,
            bias=model.qkv_bias,
            saves_input=False,
            recompute_fraction=rf,
            note="shares its saved input with the q projection",
            policy=policy,
        )
    )
    if model.position_encoding == "rotary":
        ops.append(
            _elementwise(
                "rotary embedding",
                lay,
                count,
                tokens * (n_q + n_kv) * d,
                "rotary",
                activation_bytes=act,
                recompute_fraction=rf,
            )
        )

    core_rf = attention_core_recompute
    for label, n_layers, pattern in _attention_layers(model, config):
        if n_layers == 0:
            continue
        suffix = f" ({label})" if label else ""
        mask_pairs = attention_pairs(s, causal=causal, **pattern)
        if config.attention_flops == "causal" or config.attention == "flash":
            pairs = mask_pairs
        else:
            pairs = s * s  # eager materializes the full score matrix whatever the mask
        attn_count = n_layers * micro
        matmul = attention_matmul_flops(pairs, head_dim=d, heads=n_q, batch=b)
        scores = b * n_q * pairs
        eager = config.attention == "eager"
        qkv_bytes = tokens * (n_q + 2 * n_kv) * d * act
        ops.append(
            Operator(
                name=f"attention scores QK^T{suffix}",
                kind="attention",
                block=lay,
                count=attn_count,
                forward_flops=matmul,
                backward_input_flops=2 * matmul,
                bytes_read=tokens * (n_q + n_kv) * d * act,
                bytes_written=scores * act if eager else 0,
                backward_bytes=(scores * act + tokens * (n_q + n_kv) * d * act * 2) if eager else 0,
                saved_bytes=tokens * (n_q + n_kv) * d * act if eager else qkv_bytes,
                recompute_fraction=core_rf,
                m=s,
                n=s,
                k=d,
                gemm_batch=b * n_q,
                note="eager: materializes b·n_q·s·s scores; flash: fused, saves q, k, v"
                if eager
                else "fused (FlashAttention): no score matrix in memory; saves q, k, v",
            )
        )
        ops.append(
            _elementwise(
                f"softmax{suffix}",
                lay,
                attn_count,
                scores,
                "softmax",
                activation_bytes=act if eager else 0,
                kind="softmax",
                saved_elements=scores if eager else b * n_q * s,
                saved_element_bytes=act if eager else 4,
                recompute_fraction=core_rf,
            )
        )
        if dropout_on and model.attention_dropout > 0:
            ops.append(
                _elementwise(
                    f"attention dropout{suffix}",
                    lay,
                    attn_count,
                    scores,
                    "dropout",
                    activation_bytes=act if eager else 0,
                    kind="dropout",
                    saved_elements=scores if eager else 0,
                    saved_element_bytes=1,
                    recompute_fraction=core_rf,
                )
            )
        ops.append(
            Operator(
                name=f"attention scores x V{suffix}",
                kind="attention",
                block=lay,
                count=attn_count,
                forward_flops=matmul,
                backward_input_flops=2 * matmul,
                bytes_read=(scores * act if eager else 0) + tokens * n_kv * d * act,
                bytes_written=tokens * n_q * d * act,
                backward_bytes=(scores * act * 2 + tokens * (n_q + n_kv) * d * act * 2)
                if eager
                else tokens * (3 * n_q + 2 * n_kv) * d * act,
                saved_bytes=(scores * act + tokens * n_kv * d * act)
                if eager
                else tokens * n_q * d * act,
                recompute_fraction=core_rf,
                m=s,
                n=d,
                k=s,
                gemm_batch=b * n_q,
            )
        )
    ops.append(
        _gemm(
            "output projection",
            lay,
            count,
            tokens,
            h,
            n_q * d,
            bias=model.attn_out_bias,
            recompute_fraction=rf,
            policy=policy,
        )
    )
    if model.norm_placement == "sandwich":
        ops.append(
            _elementwise(
                "post-attention norm",
                lay,
                count,
                tokens * h,
                norm_key,
                activation_bytes=act,
                kind="norm",
                parameters=norm_params,
                saved_elements=1,
                saved_element_bytes=norm_saved,
                recompute_fraction=rf,
            )
        )
    if dropout_on:
        ops.append(
            _elementwise(
                "attention residual dropout",
                lay,
                count,
                tokens * h,
                "dropout",
                activation_bytes=act,
                kind="dropout",
                saved_elements=tokens * h,
                saved_element_bytes=1,
                recompute_fraction=rf,
            )
        )
    ops.append(
        _elementwise(
            "attention residual add",
            lay,
            count,
            tokens * h,
            "add",
            activation_bytes=act,
            inputs=2,
            recompute_fraction=rf,
        )
    )
    if model.norm_placement == "post":
        ops.append(
            _elementwise(
                "attention post-norm",
                lay,
                count,
                tokens * h,
                norm_key,
                activation_bytes=act,
                kind="norm",
                parameters=norm_params,
                saved_elements=1,
                saved_element_bytes=norm_saved,
                recompute_fraction=rf,
            )
        )
    else:
        ops.append(
            _elementwise(
                "mlp norm",
                lay,
                count,
                tokens * h,
                norm_key,
                activation_bytes=act,
                kind="norm",
                parameters=norm_params,
                saved_elements=1,
                saved_element_bytes=norm_saved,
                recompute_fraction=rf,
            )
        )
    if model.gated_mlp:
        ops.append(
            _gemm(
                "mlp gate projection",
                lay,
                count,
                tokens,
                f,
                h,
                bias=model.mlp_bias,
                recompute_fraction=rf,
                policy=policy,
            )
        )
        ops.append(
            _gemm(
                "mlp up projection",
                lay,
                count,
                tokens,
                f,
                h,
                bias=model.mlp_bias,
                saves_input=False,
                recompute_fraction=rf,
                note="shares its saved input with the gate projection",
                policy=policy,
            )
        )
        ops.append(
            _elementwise(
                f"mlp activation ({model.activation})",
                lay,
                count,
                tokens * f,
                model.activation,
                activation_bytes=act,
                kind="activation",
                saved_elements=tokens * f,
                recompute_fraction=rf,
            )
        )
        ops.append(
            _elementwise(
                "mlp gate x up",
                lay,
                count,
                tokens * f,
                "multiply",
                activation_bytes=act,
                inputs=2,
                saved_elements=tokens * f,
                recompute_fraction=rf,
                note="saves the up projection; the activation output is "
                "recomputed from its saved input in fused kernels",
            )
        )
    else:
        ops.append(
            _gemm(
                "mlp up projection",
                lay,
                count,
                tokens,
                f,
                h,
                bias=model.mlp_bias,
                recompute_fraction=rf,
                policy=policy,
            )
        )
        ops.append(
            _elementwise(
                f"mlp activation ({model.activation})",
                lay,
                count,
                tokens * f,
                model.activation,
                activation_bytes=act,
                kind="activation",
                saved_elements=tokens * f,
                recompute_fraction=rf,
            )
        )
    ops.append(
        _gemm(
            "mlp down projection",
            lay,
            count,
            tokens,
            h,
            f,
            bias=model.mlp_bias,
            recompute_fraction=rf,
            policy=policy,
        )
    )
    if model.norm_placement == "sandwich":
        ops.append(
            _elementwise(
                "post-mlp norm",
                lay,
                count,
                tokens * h,
                norm_key,
                activation_bytes=act,
                kind="norm",
                parameters=norm_params,
                saved_elements=1,
                saved_element_bytes=norm_saved,
                recompute_fraction=rf,
            )
        )
    if dropout_on:
        ops.append(
            _elementwise(
                "mlp residual dropout",
                lay,
                count,
                tokens * h,
                "dropout",
                activation_bytes=act,
                kind="dropout",
                saved_elements=tokens * h,
                saved_element_bytes=1,
                recompute_fraction=rf,
            )
        )
    ops.append(
        _elementwise(
            "mlp residual add",
            lay,
            count,
            tokens * h,
            "add",
            activation_bytes=act,
            inputs=2,
            recompute_fraction=rf,
        )
    )
    if model.norm_placement == "post":
        ops.append(
            _elementwise(
                "mlp post-norm",
                lay,
                count,
                tokens * h,
                norm_key,
                activation_bytes=act,
                kind="norm",
                parameters=norm_params,
                saved_elements=1,
                saved_element_bytes=norm_saved,
                recompute_fraction=rf,
            )
        )
    if layer_recompute > 0:
        ops.append(
            Operator(
                name="layer input checkpoint",
                kind="checkpoint",
                block=lay,
                count=layers * layer_recompute * micro,
                saved_bytes=tokens * h * act,
                note="the input of each recomputed layer is kept to replay its forward",
            )
        )

    # ----- head ---------------------------------------------------------------------------
    head = "head"
    if model.final_norm:
        ops.append(
            _elementwise(
                "final norm",
                head,
                micro,
                tokens * h,
                norm_key,
                activation_bytes=act,
                kind="norm",
                parameters=norm_params,
                saved_elements=1,
                saved_element_bytes=norm_saved,
            )
        )
    if model.lm_head_transform:
        ops.append(_gemm("lm head transform", head, micro, tokens, h, h, bias=True, policy=policy))
        ops.append(
            _elementwise(
                f"lm head transform activation ({model.activation})",
                head,
                micro,
                tokens * h,
                model.activation,
                activation_bytes=act,
                kind="activation",
                saved_elements=tokens * h,
            )
        )
        ops.append(
            _elementwise(
                "lm head transform norm",
                head,
                micro,
                tokens * h,
                norm_key,
                activation_bytes=act,
                kind="norm",
                parameters=norm_params,
                saved_elements=1,
                saved_element_bytes=norm_saved,
            )
        )
    if model.lm_head:
        lm = _gemm(
            "lm head (logits)",
            head,
            micro,
            tokens,
            vocab,
            h,
            bias=model.lm_head_bias,
            policy=policy,
        )
        if model.tie_word_embeddings:
            lm = Operator(
                **{
                    **lm.__dict__,
                    "parameters": vocab if model.lm_head_bias else 0,
                    "note": "weight tied to the token embedding",
                }
            )
        ops.append(lm)
    if model.final_logit_softcap:
        ops.append(
            _elementwise(
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
        ops.append(_gemm("pooler", head, micro, b, h, h, bias=True, policy=policy))
    if model.nsp_head:
        ops.append(_gemm("next-sentence head", head, micro, b, 2, h, bias=True, policy=policy))
    ops.append(
        _elementwise(
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
