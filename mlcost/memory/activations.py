"""Activations saved for the backward pass, per micro-batch of one model replica, split by where
they live (layers, embedding and head, logits) and by how tensor parallelism divides them.

Two profiles:

* ``pytorch`` (default): the bytes each operator of the workload table saves
  (:mod:`mlcost.workload.transformer`), i.e. what an eager implementation keeps, checked against
  PyTorch's saved-tensor hooks. Under tensor parallelism an operator's saved tensors are divided
  by ``t`` when Megatron-style tensor parallelism splits them (``Operator.tensor_parallel`` and
  not ``Operator.saved_replicated``); the rest (norm inputs, residual dropout masks, the inputs of
  the QKV, first MLP and LM-head GEMMs) only under sequence parallelism.
* ``megatron``: Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer
  Models"), Table 2, bytes per layer for 16-bit activations and 1-byte dropout masks:
  ``s·b·h·(34 + 5·a·s/h)``; with tensor parallelism ``s·b·h·(10 + 24/t + 5·a·s/(h·t))``; with
  sequence parallelism ``s·b·h·(34 + 5·a·s/h)/t``; selective recomputation (or FlashAttention)
  drops the ``5·a·s/h`` term; full recomputation keeps only the layer input, ``2·s·b·h``.

Mini-sequences (Mini-Sequence Transformer, Luo et al. 2024) split the MLP's FFN-width
intermediates and the LM head's logits into ``M`` chunks, dividing their memory by ``M``.
"""

from __future__ import annotations

from typing import Literal

import pint

from mlcost.arrays import Real
from mlcost.checks import counts
from mlcost.errors import MlcostError
from mlcost.layout import Layout
from mlcost.records import Record
from mlcost.specs import Implementation, TransformerSpec
from mlcost.units import Q_
from mlcost.workload import (
    OperatorKind,
    OperatorRole,
    OperatorTable,
    TrainingConfig,
    transformer_operators,
)

Profile = Literal["pytorch", "megatron"]
PROFILES: tuple[str, ...] = ("pytorch", "megatron")


def megatron_activation_bytes_per_layer(
    sequence: Real,
    batch: Real,
    hidden: int,
    heads: int,
    *,
    tensor_parallel: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
    flash: bool = False,
) -> pint.Quantity:
    """Korthikanti et al. 2022, Table 2 (16-bit activations, 1-byte dropout masks); every
    count a whole number >= 1, ``recompute`` one of none, selective, full."""
    for value, name in ((sequence, "sequence"), (batch, "batch"), (hidden, "hidden"),
                        (heads, "heads"), (tensor_parallel, "tensor_parallel")):  # fmt: skip
        counts(value, name)
    if recompute not in ("none", "selective", "full"):
        raise MlcostError(
            f"recompute: got {recompute!r}, expected none, selective or full (Table 2's rows)"
        )
    s, b, h, a, t = sequence, batch, hidden, heads, tensor_parallel
    if recompute == "full":
        return Q_(2 * s * b * h, "byte")
    attention_scores = 0 if (recompute == "selective" or flash) else 5 * a * s / h
    if sequence_parallel:
        return Q_(s * b * h * (34 + attention_scores) / t, "byte")
    return Q_(s * b * h * (10 + 24 / t + attention_scores / t), "byte")


class ActivationParts(Record, frozen=True):
    """Bytes one micro-batch of one replica saves for backward (plain numbers, arrays over a
    sweep), before any parallel split:

    * ``layers_split`` / ``layers_replicated``: all ``L`` layers, the part tensor parallelism
      divides by ``t`` and the part only sequence parallelism divides;
    * ``embedding``: saved by the embedding (first pipeline stage);
    * ``head_split`` / ``head_replicated``: final norm and LM-head inputs (last stage);
    * ``logits``: the log-softmax the cross-entropy keeps, ``4·b·s·V`` with FP32 logits (the
      loss operator's saved bytes; last stage; divided by ``t`` as the loss is
      vocabulary-parallel).
    """

    layers_split: Real
    layers_replicated: Real
    embedding: Real
    head_split: Real
    head_replicated: Real
    logits: Real
    formula: str
    source: str


def activation_parts(
    model: TransformerSpec,
    config: TrainingConfig,
    layout: Layout,
    profile: Profile,
    batch: Real,
    sequence: Real,
    mini_sequences: int = 1,
    *,
    table: OperatorTable | None = None,
    implementation: Implementation | None = None,
) -> ActivationParts:
    """The :class:`ActivationParts` of ``model`` for micro-batches of ``batch`` sequences of
    ``sequence`` tokens (the tokens one GPU holds: divide by the context-parallel degree first)
    under ``layout``'s recomputation (module docstring): the bytes the operators of one
    micro-batch save (the table of one micro-batch). ``table``: that table when the
    caller has built it already (:func:`mlcost.workload.operators` at ``batch`` and
    ``sequence``; the ``pytorch`` profile). ``implementation``: the software whose MoE layer's
    saved tensors the table follows (:func:`mlcost.workload.transformer_operators`)."""
    if profile not in PROFILES:
        raise MlcostError(f"profile: got {profile!r}, expected pytorch or megatron")
    if mini_sequences < 1:
        raise MlcostError(f"mini_sequences: got {mini_sequences!r}, expected a count >= 1")
    if profile == "megatron" and model.moe is None:  # Table 2 is of dense layers; MoE: the table
        fp32_logits = 4 * batch * sequence * model.vocab_size / mini_sequences
        return _megatron_parts(model, config, layout, batch, sequence, mini_sequences, fp32_logits)
    if table is None:
        table = transformer_operators(
            model, config, layout, micro_batch_size=batch, sequence_length=sequence,
            micro_batches=1, implementation=implementation,
        )  # fmt: skip
    else:
        table.require_one_micro_batch(model.name)
    sums: dict[str, list[Real]] = {"layer": [0.0, 0.0], "embedding": [0.0, 0.0], "head": [0.0, 0.0]}
    logits: Real = 0.0
    for op in table.operators:
        if op.kind == OperatorKind.LOSS:
            logits = logits + op.saved_bytes * op.count / mini_sequences
            continue
        column = sums.get(op.block)
        if op.kind == OperatorKind.OPTIMIZER or column is None:
            continue
        saved = op.saved_bytes_after_recompute * op.count
        if op.role == OperatorRole.MLP_INTERMEDIATE:
            saved = saved / mini_sequences
        index = 0 if op.tensor_parallel and not op.saved_replicated else 1  # split, replicated
        column[index] = column[index] + saved
    return ActivationParts(
        layers_split=sums["layer"][0],
        layers_replicated=sums["layer"][1],
        embedding=sums["embedding"][0] + sums["embedding"][1],
        head_split=sums["head"][0],
        head_replicated=sums["head"][1],
        logits=logits,
        formula="sum over operators of bytes saved for backward (workload table)",
        source="mlcost.workload operator table (PyTorch eager / Hugging Face layout)",
    )


def _megatron_parts(
    model: TransformerSpec,
    config: TrainingConfig,
    layout: Layout,
    batch: Real,
    sequence: Real,
    mini_sequences: int,
    logits: Real,
) -> ActivationParts:
    """Korthikanti et al. 2022 Table 2 split into its replicated ``10·s·b·h`` (layer-norm and
    QKV/MLP inputs, dropout masks) and tensor-parallel ``24·s·b·h + 5·a·s²·b`` parts."""
    sbh = sequence * batch * model.hidden_size
    scores = 0 if layout.recompute == "selective" or config.attention == "flash" else 1
    scores_bytes = 5 * model.num_attention_heads * sequence * sequence * batch * scores
    # Mini-sequences shrink the MLP's 4h-wide intermediates (16·s·b·h of the 34; Korthikanti
    # section 4.1: fc1 output 8sbh and GeLU output 8sbh) by M.
    kept_split = 24 * sbh + scores_bytes - 16 * sbh * (1 - 1 / mini_sequences)
    kept_replicated = 10 * sbh
    layers = model.num_layers
    recomputed = round(layout.recompute_fraction(layers) * layers)
    kept = layers - recomputed
    return ActivationParts(
        layers_split=kept_split * kept,
        layers_replicated=kept_replicated * kept + 2 * sbh * recomputed,
        embedding=0 * sbh,
        head_split=0 * sbh,
        head_replicated=0 * sbh,
        logits=logits,
        formula="L x s·b·h·(34 + 5·a·s/h) with Table 2's parallel/recompute variants",
        source="Korthikanti et al. 2022, Table 2",
    )


__all__ = [
    "PROFILES",
    "ActivationParts",
    "Profile",
    "activation_parts",
    "megatron_activation_bytes_per_layer",
]
