"""Compute of one GPU's shard of a step: the single-GPU step-time model
(:func:`mlcost.timing.step_time`, every operator on the roofline) split into the parts that
tensor, context and pipeline parallelism divide differently, and the slowest pipeline stage's
micro-batch, its bubble and the optimizer update (see :mod:`mlcost.parallel.step` for how they
compose into a step).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np

from mlcost.arrays import Array, Real, stack_rows
from mlcost.errors import MlcostError
from mlcost.implementation import Software
from mlcost.layout import Layout
from mlcost.memory.states import model_state_bytes_per_parameter
from mlcost.memory.terms import MemoryTerm
from mlcost.parallel.degrees import Degrees, ModelDims, ShardCompute
from mlcost.records import Record
from mlcost.roofline import Ceilings
from mlcost.specs import Accelerator, ModelSpec, TransformerSpec
from mlcost.systems import System
from mlcost.timing import Mode, StepTime, step_times, table_step_times
from mlcost.workload import OperatorKind, OperatorTable, TrainingConfig


# ----- compute at the shard ---------------------------------------------------------------------
class ComputeParts(Record, frozen=True):
    """Seconds of one micro-batch on one GPU holding the whole model (arrays over micro-batch
    sizes), grouped by how a layout splits
    them: the ``L`` transformer layers' tensor-parallel and replicated operators (and their
    backward shares), the attention kernels, the layers' GEMMs (what tensor-parallel
    communication can overlap), the embedding, the head's tensor-parallel and replicated
    operators (final norm, LM head, loss), and the optimizer update (its kernels, their gaps
    and the host time dispatching them, which sharding does not divide); the per-kernel time
    (launch gaps, host dispatch beyond the GPU's time) of the layers, the embedding and the head
    apart (``*_launch``): every tensor- and context-parallel rank launches every kernel of its
    stage, so it is not divided by ``t`` or ``c``; plus model FLOPs of one micro-batch and the
    peak they were timed against."""

    micro_batch_size: Real
    layers_split: Real
    layers_split_backward: Real
    layers_replicated: Real
    layers_replicated_backward: Real
    attention: Real
    embedding: Real
    embedding_backward: Real
    head_split: Real
    head_split_backward: Real
    head_replicated: Real
    head_replicated_backward: Real
    layers_gemm: Real
    layers_launch: Real
    layers_launch_backward: Real
    embedding_launch: Real
    embedding_launch_backward: Real
    head_launch: Real
    head_launch_backward: Real
    optimizer: Real
    optimizer_gaps: Real
    optimizer_host: Real
    model_flops: Real
    peak: float  # flop/s

    def take(self, index: Any) -> ComputeParts:
        """The parts at ``index`` into the micro-batch sizes (fancy indexing)."""
        values = {
            name: getattr(self, name) if name == "peak" else getattr(self, name)[index]
            for name in self.__struct_fields__
        }
        return ComputeParts(**values)


_GROUPS = {
    ("layer", True): "layers_split",
    ("layer", False): "layers_replicated",
    ("embedding", False): "embedding",
    ("embedding", True): "embedding",
    ("head", True): "head_split",
    ("head", False): "head_replicated",
    ("loss", True): "head_split",
    ("loss", False): "head_replicated",
}
#: Per group, the parts an operator's time adds to: the group and its backward share, and the
#: per-kernel time of its block (layers, embedding or head) and that time's backward share.
_PARTS = {
    group: (
        group,
        f"{group}_backward",
        f"{group.split('_')[0]}_launch",
        f"{group.split('_')[0]}_launch_backward",
    )
    for group in set(_GROUPS.values())
}


def compute_parts(
    model: ModelSpec,
    config: TrainingConfig,
    gpu: Accelerator | Ceilings | System,
    layout: Layout,
    micro_batch_sizes: Real,
    *,
    mode: Mode = "roofline",
    software: Software | None = None,
    table: OperatorTable | None = None,
) -> ComputeParts:
    """Split the single-GPU step of one micro-batch (:func:`mlcost.timing.step_time`, one
    vectorized call over ``micro_batch_sizes``, with ``layout``'s recomputation, its GEMMs at
    the efficiency of the shapes one of ``layout``'s ``t x c`` tensor- and context-parallel
    ranks runs) into the parts a layout shards differently. The backward share of an operator
    is its backward (and recomputed) FLOPs over all its FLOPs (2/3 for an operator without
    FLOPs). ``table``: the operator table of this step when already built (see
    :func:`compute_parts_by_shard`)."""
    return compute_parts_by_shard(
        model,
        config,
        gpu,
        layout,
        micro_batch_sizes,
        [(layout.tp, layout.cp)],
        mode=mode,
        software=software,
        table=table,
    )[0]


def compute_parts_by_shard(
    model: ModelSpec,
    config: TrainingConfig,
    gpu: Accelerator | Ceilings | System,
    layout: Layout,
    micro_batch_sizes: Real,
    shards: Sequence[tuple[int, int]],
    *,
    mode: Mode = "roofline",
    software: Software | None = None,
    table: OperatorTable | None = None,
) -> list[ComputeParts]:
    """:func:`compute_parts` with the GEMMs of each of ``shards`` (``(t, c)`` pairs; ``layout``'s
    own degrees are not used), the operator table built once (:func:`mlcost.timing.step_times`).
    The parts are arrays over the micro-batch sizes (one size: arrays of one). ``table``: the
    transformer's operator table of this step when the caller has built it
    already (:func:`mlcost.workload.operators` of ``model`` under ``config`` and
    ``layout.one_micro_batch()`` at the one micro-batch size given), timed instead of built
    again."""
    sizes = np.atleast_1d(np.asarray(micro_batch_sizes, dtype=np.int64))
    transformer = isinstance(model, TransformerSpec)
    if table is not None:
        if not transformer:
            raise MlcostError(
                f"table: {model.name!r} is a {model.KIND}; a table built by the caller is timed "
                "for transformers only (leave table out)"
            )
        table.require_one_micro_batch(model.name)
        steps = table_step_times(table, config, gpu, shards, mode=mode, implementation=software)
    elif transformer:
        # One size: the table of that size (its rows numbers), several: a sweep's table.
        batch = int(sizes[0]) if sizes.size == 1 else sizes
        steps = step_times(
            model,
            config,
            gpu,
            layout.one_micro_batch(),
            shards,
            mode=mode,
            micro_batch_size=batch,
            implementation=software,
        )
    else:
        if sizes.size != 1:
            raise MlcostError("micro_batch_sizes: sweeps are supported for transformers only")
        size = int(sizes[0])
        one = layout.one_micro_batch().model_copy(update={"micro_batch_size": size})
        steps = step_times(model, config, gpu, one, shards, mode=mode, implementation=software)
    if not steps:
        return []
    # The same table for every shard: where its rows go worked out once.
    return _split(steps, sizes, _split_plan(steps[0].table, transformer))


#: The parts of :class:`ComputeParts` the operator rows add to, in field order.
_SUMMED = tuple(
    name
    for name in ComputeParts.__struct_fields__
    if name not in ("peak", "micro_batch_size", "model_flops")
)
_INDEX = {name: i for i, name in enumerate(_SUMMED)}
#: Per group, the indices in :data:`_SUMMED` of its four parts (:data:`_PARTS`).
_PART_INDEX = {group: tuple(_INDEX[name] for name in names) for group, names in _PARTS.items()}


class _SplitPlan(Record, frozen=True, dict=True):
    """Where each operator row of a table adds its time (:func:`_split`), worked out once per
    table (it does not depend on how the ranks split the GEMMs): for each kind of contribution,
    the rows that make it and the part each adds to (:attr:`index`: body, its backward share,
    launches, their backward share, attention, layers' GEMMs, optimizer, its gaps, its host
    time), plus the FLOPs of the pass rows that give their backward shares."""

    body_rows: list[int]  # the pass operators' rows (not the optimizer's)
    flops: list[Real]  # per such row, its FLOPs (forward, backward and recomputed)
    backward: list[Real]  # and those of its backward (and recomputed) passes
    row_parts: list[tuple[int, ...]]  # per such row, the four parts it adds to (:data:`_PARTS`)
    attention_rows: list[int]
    gemm_rows: list[int]  # the layers' GEMMs
    optimizer_rows: list[int]
    model_flops: float | np.ndarray

    @cached_property
    def index(self) -> list[int]:
        """The part of every contribution, in the order :func:`_split` lists them (what its
        ``np.add.at`` reads)."""
        index = [part[j] for j in range(4) for part in self.row_parts]
        index += [_INDEX["attention"]] * len(self.attention_rows)
        index += [_INDEX["layers_gemm"]] * len(self.gemm_rows)
        for name in ("optimizer", "optimizer_gaps", "optimizer_host"):
            index += [_INDEX[name]] * len(self.optimizer_rows)
        return index


#: Per (block, split by tensor parallelism), the four parts an operator row adds to
#: (:data:`_PART_INDEX` of its group in :data:`_GROUPS`); any other block's: the layers'
#: replicated ones.
_GROUP_PARTS = {key: _PART_INDEX[group] for key, group in _GROUPS.items()}
_REPLICATED_PARTS = _PART_INDEX["layers_replicated"]


def _place(
    kind: str, block: str, tensor_parallel: Any
) -> tuple[tuple[int, ...] | None, int | None]:
    """Where an operator row adds its time: ``(parts, whole)``. A pass operator adds its time
    less its launches to its group (:data:`_GROUPS`: block and whether tensor parallelism splits
    it) and that times its backward share to the group's backward part, its launches to its
    block's launch part and their backward share to that part's backward (``parts``: the four,
    :data:`_PART_INDEX`); attention and softmax rows add their whole time to ``attention``, the
    layers' GEMMs to ``layers_gemm`` (``whole``: that part, else None). The optimizer's row
    (``parts`` None) adds its time less its launches, its gaps and its host time to the three
    optimizer parts."""
    if kind == OperatorKind.OPTIMIZER:
        return None, None
    if kind in (OperatorKind.ATTENTION, OperatorKind.SOFTMAX):
        whole: int | None = _ATTENTION_PART
    else:
        whole = _GEMM_PART if kind == OperatorKind.MATMUL and block == "layer" else None
    return _GROUP_PARTS.get((block, bool(tensor_parallel)), _REPLICATED_PARTS), whole


def _split_plan(table: OperatorTable, transformer: bool) -> _SplitPlan:
    """The :class:`_SplitPlan` of ``table``: each row placed by :func:`_place` (a non-transformer
    table's rows as the layers'), with its FLOPs and its backward FLOPs (their ratio is its
    backward share, :func:`_backward_share`)."""
    body_rows, parts, flops, backward, attention, gemms, optimizer = [], [], [], [], [], [], []
    for i, op in enumerate(table.operators):
        four, whole = _place(op.kind, op.block if transformer else "layer", op.tensor_parallel)
        if four is None:
            optimizer.append(i)
            continue
        body_rows.append(i)
        parts.append(four)
        flops.append(op.total_flops)
        backward.append(op.backward_flops + op.recompute_flops)
        if whole == _ATTENTION_PART:
            attention.append(i)
        elif whole == _GEMM_PART:
            gemms.append(i)
    return _SplitPlan(
        body_rows=body_rows,
        flops=flops,
        backward=backward,
        row_parts=parts,
        attention_rows=attention,
        gemm_rows=gemms,
        optimizer_rows=optimizer,
        model_flops=table.model_flop_count,
    )


def _split(steps: Sequence[StepTime], sizes: np.ndarray, plan: _SplitPlan) -> list[ComputeParts]:
    """The rows of each of ``steps`` (one table's, at one shard each) summed into the parts of
    :class:`ComputeParts` (:func:`_split_plan` says where each goes). Every row's total and
    launches of every step are stacked, ``(steps, rows, sizes)``, each kind of contribution is
    taken for all steps in one array operation, and each part adds its contributions one
    after the other in :func:`_split_plan`'s order, from 0 (``np.bincount``/``np.add.at``
    accumulate in order): the same numbers as adding them row by row, step by step."""
    count, rows = len(steps), len(steps[0].rows)

    def stacked(field: str, which: Sequence[int]) -> np.ndarray:
        values = [getattr(step.rows[i], field) for step in steps for i in which]
        return stack_rows(values, sizes.shape).reshape(count, len(which), sizes.size)

    every = range(rows)
    total, launch = stacked("total", every), stacked("launch", every)
    body_rows, optimizer = plan.body_rows, plan.optimizer_rows
    shares = _backward_share(
        stack_rows(plan.flops, sizes.shape), stack_rows(plan.backward, sizes.shape)
    ).reshape(1, len(body_rows), sizes.size)
    launched = launch[:, body_rows]
    body = total[:, body_rows] - launched
    weights = np.concatenate(
        (
            body,
            body * shares,
            launched,
            launched * shares,
            total[:, plan.attention_rows],
            total[:, plan.gemm_rows],
            total[:, optimizer] - launch[:, optimizer],
            stacked("gaps", optimizer),
            stacked("host", optimizer),
        ),
        axis=1,
    )
    # (contributions, steps x sizes): each part's contributions added in order, from 0.
    columns = weights.transpose(1, 0, 2).reshape(len(plan.index), -1)
    summed = np.zeros((len(_SUMMED), columns.shape[1]))
    if columns.shape[1] == 1:  # one step of one size: numpy's faster sum of one column
        summed[:, 0] = np.bincount(plan.index, weights=columns[:, 0], minlength=len(_SUMMED))
    else:
        np.add.at(summed, plan.index, columns)
    by_part = summed.reshape(len(_SUMMED), count, *sizes.shape)
    out = []
    for s, step in enumerate(steps):
        arrays = {name: by_part[i, s] for i, name in enumerate(_SUMMED)}
        arrays["model_flops"] = _column(plan.model_flops, sizes.shape)
        out.append(ComputeParts(micro_batch_size=sizes, peak=step.ceilings.peak_flops, **arrays))
    return out


_ATTENTION_PART, _GEMM_PART = _INDEX["attention"], _INDEX["layers_gemm"]
#: The backward share of an operator without FLOPs (:func:`_backward_share`): a pass's
#: backward is twice its forward.
_NO_FLOPS_SHARE = 2 / 3


def _column(value: Real, shape: tuple[int, ...]) -> np.ndarray:
    """``value`` (a number, or an array over the sizes) as a float64 array of ``shape``."""
    return np.broadcast_to(np.asarray(value, dtype=np.float64), shape).copy()


def _backward_share(flops: Real, backward: Real) -> Array:
    """An operator's backward (and recomputed) FLOPs over all its FLOPs, 2/3 for an operator
    without FLOPs (numbers, or arrays over micro-batch sizes)."""
    total = np.asarray(flops, dtype=np.float64)
    part = np.asarray(backward, dtype=np.float64)
    return np.where(total > 0, part / np.where(total > 0, total, 1.0), _NO_FLOPS_SHARE)


def shard_compute(parts: ComputeParts, degrees: Degrees, layers: int) -> ShardCompute:
    """Per-GPU compute of a layout (module docstring): the slowest of the first stage (its
    layers and the embedding), the last (its layers and the head) and the most loaded middle
    stage; the optimizer ``/ (t·p)`` and ``/ (d·c)`` with ZeRO >= 1."""
    d = degrees
    t, c = d.tp, d.cp
    t_replicated = np.where(np.asarray(d.sequence_parallel, dtype=bool), t, 1)

    def split(tensor_split: Any, replicated: Any, launch: Any) -> Any:
        """A block's time per GPU: its tensor-parallel part over ``t``, its replicated part
        over ``t`` under sequence parallelism, both over ``c``, and its launches."""
        return (tensor_split / t + replicated / t_replicated) / c + launch

    p = parts
    per_layer = split(p.layers_split, p.layers_replicated, p.layers_launch) / layers
    per_layer_backward = (
        split(p.layers_split_backward, p.layers_replicated_backward, p.layers_launch_backward)
        / layers
    )
    head = split(p.head_split, p.head_replicated, p.head_launch)
    head_backward = split(p.head_split_backward, p.head_replicated_backward, p.head_launch_backward)
    embedding = parts.embedding / t_replicated / c + parts.embedding_launch
    embedding_backward = (
        parts.embedding_backward / t_replicated / c + parts.embedding_launch_backward
    )
    single = d.pp == 1
    stages = (
        d.first_layers * per_layer + embedding + np.where(single, head, 0.0),
        np.where(single, 0.0, d.last_layers * per_layer + head),
        d.middle_layers * per_layer,
    )
    backwards = (
        d.first_layers * per_layer_backward
        + embedding_backward
        + np.where(single, head_backward, 0.0),
        np.where(single, 0.0, d.last_layers * per_layer_backward + head_backward),
        d.middle_layers * per_layer_backward,
    )
    layer_counts = (d.first_layers, d.last_layers, d.middle_layers)
    # The slowest stage of each candidate (the first of equals).
    stacked = np.stack(np.broadcast_arrays(*stages))
    index = np.argmax(stacked, axis=0)[None]
    micro = np.take_along_axis(stacked, index, axis=0)[0]
    backward = np.take_along_axis(np.stack(np.broadcast_arrays(*backwards)), index, axis=0)[0]
    layers_on_slowest = np.choose(index[0], np.broadcast_arrays(*layer_counts))
    shards = (d.tp * d.pp) * np.where(d.zero >= 1, d.dp * d.cp, 1)
    optimizer = np.maximum(parts.optimizer / shards + parts.optimizer_gaps, parts.optimizer_host)
    return ShardCompute(
        micro_batch=micro,
        forward=micro - backward,
        backward=backward,
        attention=parts.attention / (t * c) * layers_on_slowest / layers,
        layer_gemm=parts.layers_gemm / (t * c) * layers_on_slowest / layers,
        all_stages=layers * per_layer + embedding + head,
        optimizer=optimizer,
    )


def model_dims(
    model: ModelSpec, config: TrainingConfig, software: Software | None = None
) -> ModelDims:
    """The sizes the traffic formulas need, from a model spec and its precision policy; the
    gradients weigh what the software reduces them in (FP32 main gradients under BF16 in
    Megatron and FSDP's default mixed precision), else the policy's gradient bytes."""
    per_param = model_state_bytes_per_parameter(
        config.precision, config.optimizer, model=model, finetune=config.finetune
    )
    dense_gradient = config.policy.gradient
    # Fine-tuning reduces the gradients of the trainable parameters only: their share.
    trained_share = per_param[MemoryTerm.GRADIENTS] / dense_gradient if dense_gradient else 1.0
    reduce_bytes = None if software is None else software.spec.gradient_reduce_bytes
    parameters = float(model.parameter_count)
    activation_bytes = config.policy.activation
    gradient_bytes = (reduce_bytes or dense_gradient) * trained_share
    weight_bytes = per_param[MemoryTerm.WEIGHTS]
    if isinstance(model, TransformerSpec):
        moe = model.moe
        return ModelDims(
            layers=model.num_layers,
            hidden=model.hidden_size,
            kv_width=model.kv_heads * model.head_size,
            sequence=config.sequence_length,
            moe_layers=model.moe_layers,
            num_experts=0 if moe is None else moe.num_experts,
            experts_per_token=0 if moe is None else moe.experts_per_token,
            expert_parameters=float(model.expert_parameter_count),
            parameters=parameters,
            activation_bytes=activation_bytes,
            gradient_bytes=gradient_bytes,
            weight_bytes=weight_bytes,
        )
    return ModelDims(
        layers=1,
        hidden=0,
        kv_width=0,
        sequence=1,
        parameters=parameters,
        activation_bytes=activation_bytes,
        gradient_bytes=gradient_bytes,
        weight_bytes=weight_bytes,
    )
