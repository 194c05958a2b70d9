"""What fine-tuning changes in the operator table (:class:`mlcost.finetune.FineTuning`).

* **Frozen weights** need no weight gradient: a frozen GEMM's backward is the input gradient
  only, ``2·M·N·K`` (``4·N·T`` forward + backward for ``N`` weights and ``T`` tokens instead of
  ``6·N·T``; Narayanan et al. 2021, section 5.1, without the weight-gradient term), and PyTorch
  saves no input for it (``mm`` keeps its input only to compute the weight gradient). Several
  GEMMs read one input (Q/K/V, gate/up): it is saved once if any of them needs it. A frozen
  RMSNorm weight drops the normalized value it would keep; a frozen embedding keeps no token ids
  and has no backward; a frozen LM head keeps no input.
* **LoRA adapters** (Hu et al. 2021, section 4.1; peft ``lora.Linear.forward``): per targeted
  linear ``d_in -> d_out``, (dropout over ``T x d_in``: mask and output kept), ``A`` a GEMM
  ``T x d_in -> r`` keeping its input (the dropout output, or the shared input of the base
  linear when there is no dropout), ``B`` a GEMM ``T x r -> d_out`` keeping the ``r``-wide
  intermediate, the scale ``alpha/r`` and the add to the base output (neither keeps anything).
  A fused attention kernel keeps its output, the output projection's input, either way.
* **QLoRA** (Dettmers et al. 2023, section 3): each NF4 weight is dequantized to BF16 before each
  use, forward and backward (bitsandbytes ``MatMul4Bit`` dequantizes again for the input
  gradient) and again in a recomputed forward: a memory-bound element-wise kernel that reads the
  4-bit weight with its constants and writes ``2`` bytes per weight.
* Layers frozen below every trainable weight (``frozen_layers`` with frozen ``embeddings``) are
  outside the autograd graph: they keep nothing and have no backward.

The embedding output is taken to require a gradient under LoRA (peft's
``prepare_model_for_kbit_training`` and gradient checkpointing call Hugging Face's
``enable_input_require_grads``), so every layer keeps what its input gradient needs. Under full
fine-tuning with frozen embeddings, the first trainable layer's input has no gradient, and its
first norm keeps only what its weight gradient needs (:func:`graph_boundary_norm`).
"""

from __future__ import annotations

from mlcost.finetune import (
    FineTuning,
    LinearModule,
    layer_linears,
    quantized_bits_per_parameter,
    targeted_linears,
)
from mlcost.records import replace
from mlcost.workload.builder import StepBuilder
from mlcost.workload.config import PrecisionPolicy
from mlcost.workload.table import ELEMENTWISE_FLOPS, Operator, OperatorKind, elementwise_operator

#: GEMMs of a layer that read the same input: it is saved at most once (by the first).
SHARED_INPUTS: tuple[tuple[str, ...], ...] = (
    ("q projection", "k projection", "v projection"),
    ("output projection",),
    ("mlp gate projection", "mlp up projection"),
    ("mlp down projection",),
)


def frozen_gemm(op: Operator, *, saves_input: bool, policy: PrecisionPolicy) -> Operator:
    """``op`` with a frozen weight: the backward is ``dX = dY·W^T`` only (reads dY and W,
    writes dX; :func:`mlcost.workload.builder.gemm_operator` counts the same), no weight-gradient
    GEMM, and its input saved only when ``saves_input``."""
    fmt = policy.format_of(op.block)
    gemm_input = policy.gemm_input if fmt == policy.compute_format else policy.activation
    m, k = op.m, op.k
    weight_read = op.bytes_read - m * k * gemm_input
    input_gradient = op.bytes_written + weight_read + m * k * policy.activation
    return replace(
        op,
        backward_weight_flops=0,
        backward_bytes=input_gradient,
        saved_bytes=m * k * gemm_input if saves_input else 0,
        note=(op.note + "; " if op.note else "") + "frozen weight: input gradient only",
    )


def frozen_layer_gemms(
    step: StepBuilder, ops: list[Operator], targets: tuple[LinearModule, ...], tuning: FineTuning
) -> list[Operator]:
    """The layer's GEMMs with frozen weights: the input of each shared-input group is kept when
    an adapter without dropout reads it (module docstring)."""
    policy = step.policy
    reads_input = {gemm: True for module in targets if tuning.dropout == 0 for gemm in module.gemms}
    if step.config.attention == "flash":  # the fused kernel keeps its output (o's input)
        reads_input["output projection"] = True
    out = []
    for op in ops:
        if op.kind != OperatorKind.MATMUL or op.block != "layer":
            out.append(op)
            continue
        group = next((g for g in SHARED_INPUTS if op.name in g), (op.name,))
        leader = next(name for name in group if any(o.name == name for o in ops))
        saves = op.name == leader and any(reads_input.get(name, False) for name in group)
        out.append(frozen_gemm(op, saves_input=saves, policy=policy))
    return out


def lora_ops(step: StepBuilder, module: LinearModule, tuning: FineTuning) -> list[Operator]:
    """One targeted linear's adapter path: (dropout,) A, B, scale, add (module docstring)."""
    tokens, act, count, rf = step.tokens, step.act, step.layer_count, step.layer_rf
    r, name = tuning.rank, module.name
    ops: list[Operator] = []
    if tuning.dropout > 0:
        ops.append(
            elementwise_operator(
                f"lora dropout ({name})", "layer", count, tokens * module.d_in, "dropout",
                activation_bytes=act, kind=OperatorKind.DROPOUT,
                saved_elements=tokens * module.d_in, saved_element_bytes=step.mask_bytes,
                recompute_fraction=rf, tensor_parallel=True,
            )
        )  # fmt: skip
    ops.append(
        step.layer_gemm(
            f"lora A ({name})", r, module.d_in, bias=False, saves_input=tuning.dropout > 0,
            tensor_parallel=True, saved_replicated=True,
            note="keeps the dropout output" if tuning.dropout > 0
            else "shares its saved input with the base linear",
        )
    )  # fmt: skip
    ops.append(
        step.layer_gemm(
            f"lora B ({name})", module.d_out, r, bias=False, tensor_parallel=True,
            note="keeps the r-wide intermediate",
        )
    )  # fmt: skip
    for label, key in (("scale alpha/r", "scale"), ("add to the base output", "add")):
        ops.append(
            elementwise_operator(
                f"lora {label} ({name})", "layer", count, tokens * module.d_out, key,
                activation_bytes=act, inputs=2 if key == "add" else 1, recompute_fraction=rf,
                tensor_parallel=True,
            )
        )  # fmt: skip
    return ops


def dequantize_op(step: StepBuilder, module: LinearModule, tuning: FineTuning) -> Operator:
    """Dequantizing one NF4 weight to BF16 before its GEMM, forward and again in backward
    (and in a recomputed forward): reads ``d_in·d_out`` weights at the quantized bits per
    weight, writes them in the working format; ``ELEMENTWISE_FLOPS['dequantize']`` per weight."""
    elements = module.d_in * module.d_out
    read = elements * quantized_bits_per_parameter(tuning) / 8
    written = elements * step.policy.stored_weight
    flops = ELEMENTWISE_FLOPS["dequantize"] * elements
    return Operator(
        name=f"dequantize NF4 weight ({module.name})",
        kind=OperatorKind.ELEMENTWISE,
        block="layer",
        count=step.layer_count,
        forward_flops=flops,
        backward_input_flops=flops,
        bytes_read=read,
        bytes_written=written,
        backward_bytes=read + written,
        recompute_fraction=step.layer_rf,
        tensor_parallel=True,
        note="bitsandbytes dequantize_4bit before each use (forward, backward, recompute)",
    )


def adapter_layer_ops(step: StepBuilder, layer: list[Operator]) -> list[Operator]:
    """A layer's rows under LoRA/QLoRA: frozen base GEMMs, each targeted linear followed by its
    adapter path, each quantized weight preceded by its dequantization."""
    tuning = step.config.finetune
    model = step.model
    targets = targeted_linears(model, tuning)
    linears = layer_linears(model)
    base = frozen_layer_gemms(step, layer, targets, tuning)
    out: list[Operator] = []
    for op in base:
        owner = next((m for m in linears if op.name in m.gemms), None)
        first = owner is not None and op.name == owner.gemms[0]
        last = owner is not None and op.name == owner.gemms[-1]
        if first and tuning.quantized and owner is not None:
            out.append(dequantize_op(step, owner, tuning))
        out.append(op)
        if last and owner is not None and owner in targets:
            out += lora_ops(step, owner, tuning)
    return out


def without_autograd(ops: list[Operator]) -> list[Operator]:
    """Rows outside the autograd graph (below every trainable weight): forward only."""
    return [
        replace(op, backward_input_flops=0, backward_weight_flops=0, backward_bytes=0,
                saved_bytes=0, note="frozen, below every trainable weight: forward only")
        for op in ops
    ]  # fmt: skip


def frozen_head_ops(ops: list[Operator], step: StepBuilder) -> list[Operator]:
    """The head's rows with a frozen LM head (no weight gradient, no saved input)."""
    return [
        frozen_gemm(op, saves_input=False, policy=step.policy)
        if op.kind == OperatorKind.MATMUL and op.name.startswith("lm head")
        else op
        for op in ops
    ]


def frozen_embedding_ops(ops: list[Operator], step: StepBuilder) -> list[Operator]:
    """The embedding's rows with a frozen embedding table: the gather has no backward and keeps
    no token ids (the rotary tables the layers share stay)."""
    model = step.model
    rotary = 2 * step.s * model.head_size * step.act if model.position_encoding == "rotary" else 0
    return [
        replace(op, backward_bytes=0, saved_bytes=rotary,
                note="frozen: no backward; keeps only the rotary tables the layers share")
        if op.kind == OperatorKind.EMBEDDING
        else op
        for op in ops
    ]  # fmt: skip


def graph_boundary_norm(step: StepBuilder, layer: list[Operator]) -> list[Operator]:
    """The layer rows when the first of their layers reads an input outside the autograd graph
    (frozen embeddings below, full fine-tuning): that layer's first norm keeps only what its
    weight gradient needs, the normalized value of an RMSNorm (HF ``weight * x.to(dtype)``), all
    of a LayerNorm's (``native_layer_norm`` keeps the same for its weight), nothing when the norm
    is frozen. One layer of the rows' ``layers``: the row keeps the average per execution."""
    if not layer or layer[0].kind != OperatorKind.NORM or not step.layers:
        return layer
    model, first = step.model, layer[0]
    tokens, h = step.tokens, model.hidden_size
    if step.frozen_norms:
        boundary = 0
    elif model.norm == "rmsnorm":
        boundary = tokens * h * (4 if model.norm_in_fp32 else step.act)
    else:
        return layer
    saved = first.saved_bytes - (first.saved_bytes - boundary) / step.layers
    note = "the first layer's input has no gradient: its norm keeps less (averaged over layers)"
    return [replace(first, saved_bytes=saved, note=note), *layer[1:]]
