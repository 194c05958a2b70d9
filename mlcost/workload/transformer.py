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

A mixture-of-experts model runs its dense MLP in the dense layers only and, in the others, the
router, the routed experts at their expected tokens and the shared experts
(:mod:`mlcost.workload.experts`); multi-head latent attention replaces the Q, K, V projections
by their low-rank down and up projections (:func:`mlcost.workload.layer.
latent_attention_projection_ops`). Both are checked against ``torch.utils.flop_counter`` and
saved tensors on small real models.

This module builds the embedding, the LM head and the loss, and assembles the table; the
operators of a layer are in :mod:`mlcost.workload.layer`, the shared row builders in
:mod:`mlcost.workload.builder`.
"""

from __future__ import annotations

from mlcost.arrays import Real
from mlcost.finetune import check_finetuning, frozen_parts, trainable_parameters
from mlcost.layout import Layout
from mlcost.records import replace
from mlcost.results import sweep_text
from mlcost.specs.models import TransformerSpec
from mlcost.specs.software import Implementation
from mlcost.workload.adapters import (
    adapter_layer_ops,
    frozen_embedding_ops,
    frozen_head_ops,
    frozen_layer_gemms,
    graph_boundary_norm,
    without_autograd,
)
from mlcost.workload.builder import StepBuilder
from mlcost.workload.config import TrainingConfig
from mlcost.workload.layer import (
    attention_block_ops,
    fp8_cast_ops,
    layer_checkpoint_ops,
    mlp_block_ops,
)
from mlcost.workload.optimizer import optimizer_operator
from mlcost.workload.table import Operator, OperatorKind, OperatorTable, elementwise_operator


def embedding_ops(step: StepBuilder) -> list[Operator]:
    """Token embedding gather (and learned positions, token types, scale, norm, dropout)."""
    model, tokens, act, micro = step.model, step.tokens, step.act, step.micro
    h, vocab = model.hidden_size, model.vocab_size
    policy = step.policy
    block = "embedding"
    ops = [
        Operator(
            name="token embedding",
            kind=OperatorKind.EMBEDDING,
            block=block,
            count=micro,
            bytes_read=tokens * h * policy.weight + tokens * 8,
            bytes_written=tokens * h * act,
            # Backward: read the output gradient, zero-fill the dense V x h weight gradient and
            # scatter-add into it (PyTorch embedding_dense_backward); with tied weights the
            # LM head's gradient is then added to it (read both, write one).
            backward_bytes=tokens * h * act
            + vocab * h * policy.gradient * (2 + (3 if model.tie_word_embeddings else 0)),
            parameters=vocab * h,
            saved_bytes=tokens * 8 * (2 if model.position_encoding == "learned" else 1)
            + (2 * step.s * model.head_size * act if model.position_encoding == "rotary" else 0),
            note="gather; saves the int64 token (and position) ids for its scatter-add backward; "
            "with rotary positions also the cos and sin tables (s x d each) all layers share",
        )
    ]
    if model.position_encoding == "learned":
        ops.append(
            step.hidden(
                "position embedding add",
                block,
                micro,
                "add",
                inputs=2,
                parameters=model.max_position_embeddings * h,
            )
        )
    if model.type_vocab_size:
        ops.append(
            step.hidden(
                "token type embedding add",
                block,
                micro,
                "add",
                inputs=2,
                parameters=model.type_vocab_size * h,
            )
        )
    if model.norm_placement == "sandwich":  # Gemma scales embeddings by sqrt(h)
        ops.append(step.hidden("embedding scale", block, micro, "scale"))
    if model.embedding_norm:
        ops.append(step.norm("embedding norm", block, micro))
    if step.dropout_on:
        ops.append(step.hidden("embedding dropout", block, micro, "dropout"))
    return ops


def head_ops(step: StepBuilder) -> list[Operator]:
    """Final norm, (BERT's LM-head transform,) the LM head, (logit soft-capping, pooler, NSP)."""
    model, micro, tokens, act = step.model, step.micro, step.tokens, step.act
    h, vocab = model.hidden_size, model.vocab_size
    block = "head"
    ops = []
    if model.final_norm:
        ops.append(step.norm("final norm", block, micro))
    if model.lm_head_transform:
        ops.append(step.gemm("lm head transform", block, micro, tokens, h, h, bias=True))
        ops.append(
            step.hidden(
                f"lm head transform activation ({model.activation})",
                block,
                micro,
                model.activation,
                kind=OperatorKind.ACTIVATION,
                saved_elements=tokens * h,
            )
        )
        ops.append(step.norm("lm head transform norm", block, micro))
    if model.lm_head:
        lm = step.gemm(
            "lm head (logits)",
            block,
            micro,
            tokens,
            vocab,
            h,
            bias=model.lm_head_bias,
            tensor_parallel=True,
            saved_replicated=True,
        )
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
                block,
                micro,
                tokens * vocab,
                "softcap",
                activation_bytes=act,
                saved_elements=tokens * vocab,
                tensor_parallel=True,
            )
        )
    if model.pooler:
        ops.append(step.gemm("pooler", block, micro, step.b, h, h, bias=True))
    if model.nsp_head:
        ops.append(step.gemm("next-sentence head", block, micro, step.b, 2, h, bias=True))
    return ops


def loss_ops(step: StepBuilder) -> list[Operator]:
    """The cross-entropy over the logits, upcast to FP32 where the implementation does
    (``TransformerSpec.loss_in_fp32``; vocabulary-parallel under tensor parallelism); the
    log-softmax is saved for backward."""
    element = 4.0 if step.model.loss_in_fp32 else step.act
    return [
        elementwise_operator(
            "cross-entropy loss",
            "loss",
            step.micro,
            step.tokens * step.model.vocab_size,
            "cross-entropy",
            activation_bytes=element,
            kind=OperatorKind.LOSS,
            saved_elements=step.tokens * step.model.vocab_size,
            saved_element_bytes=element,
            tensor_parallel=True,
            note="log-softmax of the logits"
            + (" upcast to FP32" if step.model.loss_in_fp32 else "")
            + " saved for backward",
        )
    ]


def frozen_prefix_ops(step: StepBuilder, layers: int, *, below_all: bool) -> list[Operator]:
    """The first ``layers`` layers frozen under full fine-tuning: frozen GEMMs and norms, and
    outside the autograd graph altogether when the embedding below them is frozen too
    (:mod:`mlcost.workload.adapters`)."""
    if layers == 0:
        return []
    prefix = replace(step, layers=layers, frozen_norms=True)
    ops = [*attention_block_ops(prefix), *mlp_block_ops(prefix)]
    ops = frozen_layer_gemms(prefix, ops, (), step.config.finetune)
    ops = [*ops, *fp8_cast_ops(prefix, ops)]
    if below_all:
        ops = without_autograd(ops)
    return [replace(op, name=f"{op.name} [frozen layers]") for op in ops]


def transformer_operators(
    model: TransformerSpec,
    config: TrainingConfig,
    layout: Layout | None = None,
    *,
    micro_batch_size: Real | None = None,
    sequence_length: Real | None = None,
    micro_batches: int | None = None,
    implementation: Implementation | None = None,
) -> OperatorTable:
    """The operator table of one training step of one model replica: ``m`` micro-batches of
    ``b`` sequences (``layout``: micro-batch size, micro-batches and recomputation; the parallel
    degrees do not change the table, :mod:`mlcost.parallel` shards it) and one optimizer update.

    ``micro_batch_size`` and ``sequence_length`` override the layout's and the config's and may
    be numpy arrays (broadcast together): every figure of the table is then an array, one value
    per configuration, so a sweep is one call. ``micro_batches`` overrides the layout's ``m``
    (1: the table of one micro-batch, as of ``layout.one_micro_batch()``). ``implementation``:
    the software profile whose MoE layer's saved tensors the rows follow
    (:class:`mlcost.specs.MoeSaving`; default the Hugging Face eager modules'). Under selective
    recomputation the regions ``layout.recompute_modules`` names are replayed on their own.
    """
    layout = layout or Layout()
    check_finetuning(model, config.finetune)
    layout.check_recompute_modules(
        model.name,
        latent_attention=model.latent_attention is not None,
        experts=model.routed_experts,
        shared_experts=bool(model.moe and model.moe.shared_ffn_size),
    )
    modules = layout.selective_modules
    layers = model.num_layers
    layer_rf = layout.recompute_fraction(layers)
    step = StepBuilder(
        model=model,
        config=config,
        b=layout.micro_batch_size if micro_batch_size is None else micro_batch_size,
        s=config.sequence_length if sequence_length is None else sequence_length,
        micro=layout.micro_batches if micro_batches is None else micro_batches,
        layer_rf=layer_rf,
        core_rf=1.0 if "core_attn" in modules else layer_rf,
        layers=layers,
        ep=layout.ep,
        modules=modules,
        moe_saving=None if implementation is None else implementation.moe_saving,
    )
    tuning = config.finetune
    frozen = frozen_parts(model, tuning) if not tuning.is_default else set()
    prefix_layers = min(tuning.frozen_layers, layers)
    # The trained layers' rows: every layer's (the step's own builder) unless a prefix of
    # layers or the norms are frozen; the embedding, head and loss rows read no layer count.
    trained = (
        step
        if prefix_layers == 0 and "norms" not in frozen
        else replace(step, layers=layers - prefix_layers, frozen_norms="norms" in frozen)
    )
    layer = [*attention_block_ops(trained), *mlp_block_ops(trained)]
    if tuning.adapters:
        layer = adapter_layer_ops(trained, layer)
    elif "embeddings" in frozen:  # the first trained layer's input has no gradient
        layer = graph_boundary_norm(trained, layer)
    embedding = embedding_ops(step)
    tied_head = model.tie_word_embeddings and "lm_head" in frozen
    if "embeddings" in frozen or tied_head:
        embedding = frozen_embedding_ops(embedding, step)
    head = head_ops(trained)
    if "lm_head" in frozen:
        head = frozen_head_ops(head, step)
    ops = [
        *embedding,
        *frozen_prefix_ops(step, prefix_layers, below_all="embeddings" in frozen),
        *layer,
        *fp8_cast_ops(trained, layer),
        *layer_checkpoint_ops(step),
        *head,
        *loss_ops(step),
        optimizer_operator(
            trainable_parameters(model, tuning) if frozen else model.parameter_count, config
        ),
    ]
    return OperatorTable(
        operators=tuple(ops),
        description=f"{model.name}: b={sweep_text(step.b)}, s={sweep_text(step.s)}, "
        f"{config.precision}, "
        + (f"{tuning.describe()}, " if frozen else "")
        + f"{config.attention} attention ({config.attention_flops}), recompute "
        f"{layout.recompute}{layout.modules_text()}, {step.micro} micro-batch(es)",
        tokens_per_step=step.tokens * step.micro,
        metadata={
            "micro_batches": step.micro,
            "model": model.name,
            "config": config,
            "layout": layout,
            "causal": step.causal,
            "dropout": step.dropout_on,
            # The model's own code runs Q, K and V as one GEMM (GPT-2's c_attn).
            "fused_qkv": model.fused_qkv,
        },
    )
