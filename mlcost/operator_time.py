"""The time of one operator row of a step on one GPU, under the software that runs it.

Per execution of an operator, with ceilings from :class:`mlcost.roofline.Ceilings` (the ceilings
of the format the operator runs in: BF16 for the heads and attention under an FP8 recipe):

* GEMMs: ``F / (peak · eta · w)`` per pass (forward ``nn``, input gradient ``nt``, weight
  gradient ``tn``), ``eta`` the GEMM efficiency, ``w`` the wave quantization of its output tiles,
  both at the shape one GPU runs (:func:`shard_shapes`: a tensor- and context-parallel rank's
  share of the GEMM), and where a measured profile has it, the slowdown of a linear layer whose
  features are not 16-byte aligned (:meth:`mlcost.roofline.Ceilings.gemm_alignment_efficiency`);
  other operators ``F / (vector peak · eta_v)``; memory ``B / (bandwidth · eta_m)``;
* ``roofline``: ``max(compute, memory)``, ``no-overlap``: their sum; plus one launch gap per kernel
  (forward, backward, recomputed forward);
* a fused attention kernel the implementation calls and that was measured on this GPU
  (:func:`mlcost.implementation.attention_kernel_seconds`) replaces the attention core's rows: the
  scores row carries the kernel's time, the softmax, dropout and score x V rows none;
* a fused implementation folds the residual adds into the kernels before them (bias-dropout-add):
  no launch, no traffic of their own;
* the optimizer update moves ``optimizer_passes`` x the bytes of one fused kernel;
* the loss moves, per logit, the bytes of the implementation's cross-entropy kernels
  (``Implementation.cross_entropy``; Megatron-Core's unfused vocabulary-parallel loss makes
  about ten passes over FP32 logits where a fused kernel makes three over 16-bit ones);
* the host dispatches every kernel (``dispatch_overhead`` each; a for-loop optimizer dispatches
  ``optimizer_ops_per_tensor`` per parameter tensor): an operator takes at least its host time,
  ``max(GPU time, host time)`` (the GPU waits for a host that falls behind).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from mlcost.implementation import Software, attention_kernel_seconds
from mlcost.records import Record, cached_property, replace
from mlcost.results import any_true, floats, largest, maximum, stack_rows
from mlcost.roofline import Ceilings, gemm_pass_seconds
from mlcost.specs import Implementation, Kernel
from mlcost.workload import OperatorKind, OperatorRole, OperatorTable
from mlcost.workload.table import ELEMENTWISE_FLOPS, MATMUL_KINDS, Operator

#: The operator kinds and role the per-row time tests, read once (:mod:`mlcost.workload.builder`:
#: an enum member read through its class is slow on Python 3.11).
_ATTENTION, _OPTIMIZER, _LOSS, _ELEMENTWISE = (
    OperatorKind.ATTENTION,
    OperatorKind.OPTIMIZER,
    OperatorKind.LOSS,
    OperatorKind.ELEMENTWISE,
)
_ATTENTION_CORE = OperatorRole.ATTENTION_CORE
_DROPOUT = OperatorKind.DROPOUT
_NUMBERS = (int, float)
Number = Any
Mode = Literal["roofline", "no-overlap"]


class OperatorTime(Record, frozen=True):
    """Time of one operator row per step, split into its parts (seconds, arrays in sweeps)."""

    name: str
    kind: str
    compute: Number
    memory: Number
    launch: Number
    total: Number
    gaps: Number = 0.0  # the GPU's gaps between this operator's kernels (part of ``launch``)
    host: Number = 0.0  # host time dispatching them (``launch`` holds what exceeds the GPU's)

    @property
    def bound(self) -> Any:
        """``"compute"`` or ``"memory"``, whichever time is larger."""
        return np.where(np.asarray(self.compute) >= np.asarray(self.memory), "compute", "memory")


class Execution(Record, frozen=True, dict=True):
    """What an operator's time depends on besides the operator: the ceilings of each format the
    step computes in (key ``""``: the table's own), the software, the accelerator's names (for
    the measured kernels) and the combination mode."""

    ceilings: dict[str, Ceilings]
    software: Software | None = None
    accelerators: tuple[str, ...] = ()
    mode: Mode = "roofline"
    shard: tuple[int, int] = (1, 1)  # (t, c): the GEMM shapes of one rank (:func:`shard_shapes`)
    fused: frozenset[str] = frozenset()  # fuse groups run as one GEMM (:func:`fused_groups`)

    @property
    def main(self) -> Ceilings:
        return self.ceilings[""]

    def of(self, op: Operator) -> Ceilings:
        """The ceilings of the format ``op`` computes in (the table's own by default)."""
        found = self.ceilings.get(op.format)  # "" (most rows): the table's own
        return self.main if found is None else found

    @cached_property
    def dispatch(self) -> float:
        """The software's per-op dispatch overhead in seconds (converted once)."""
        return 0.0 if self.spec is None else self.spec.dispatch_seconds

    @cached_property
    def rates(self) -> dict[str, tuple[Ceilings, float, float]]:
        """Per format of :attr:`ceilings`, what every row's time reads: the ceilings, the
        achievable memory bandwidth ``bandwidth · eta_mem`` (byte/s) and the launch overhead
        (s), read once per execution."""
        return {
            key: (found, found.bandwidth_bytes * found.memory_efficiency, found.launch_seconds)
            for key, found in self.ceilings.items()
        }

    @cached_property
    def spec(self) -> Implementation | None:
        """The implementation profile (None without software)."""
        return None if self.software is None else self.software.spec

    @cached_property
    def groups_experts(self) -> bool:
        """Whether the implementation runs an MoE layer's local experts as one grouped GEMM
        (``grouped_expert_gemm``, :func:`_grouped`)."""
        return self.spec is not None and self.spec.grouped_expert_gemm

    @cached_property
    def folds(self) -> bool:
        """Whether the implementation folds residual adds into the kernel before them
        (``fused_elementwise``: the residual adds, :func:`operator_time`)."""
        return self.spec is not None and self.spec.fused_elementwise

    @cached_property
    def roofline(self) -> bool:
        """Whether an operator takes the larger of its compute and memory times (``roofline``
        mode), not their sum."""
        return self.mode == "roofline"


def _gemm_compute(
    op: Operator, ceilings: Ceilings, grouped: bool = False, shard: tuple[int, int] = (1, 1)
) -> Number:
    """The compute seconds of one GEMM row (:func:`gemm_compute`)."""
    return gemm_compute((op,), ceilings, (grouped,), shard)[0]


def shard_shapes(
    ops: Sequence[Operator], m: Any, n: Any, k: Any, batch: Any, shard: tuple[Any, Any]
) -> tuple[Any, Any, Any, Any, Any]:
    """The GEMM dimensions one of ``t`` tensor-parallel and ``c`` context-parallel ranks runs
    (arrays ``(rows, ...)``, one row per operator), and the share of each GEMM's FLOPs it
    computes. Context parallelism gives each rank ``m / c`` of the rows (its tokens, or its
    queries in the attention core: Liu et al. 2023, ring attention); tensor parallelism splits
    a column-parallel GEMM's ``n`` output features, a row-parallel one's ``k`` input features
    (:attr:`Operator.row_parallel`), and the attention core's heads, so its batch of per-head
    GEMMs (Shoeybi et al. 2019, section 3). Dimensions that do not divide round up (the largest
    rank's share). Operators tensor parallelism replicates keep ``n``, ``k`` and the batch.
    ``t`` and ``c`` may be arrays of shards, shaped ``(shards, 1, ...)`` with one more axis than
    ``m``: the dimensions then have that leading axis (:func:`gemm_compute_by_shard`)."""
    t, c = shard
    split = np.array([bool(op.tensor_parallel) for op in ops]).reshape((-1,) + (1,) * (m.ndim - 1))
    heads = np.array([op.kind == _ATTENTION for op in ops]).reshape(split.shape)
    row = np.array([bool(op.row_parallel) for op in ops]).reshape(split.shape)
    t_of = np.where(split, t, 1)
    rows = np.ceil(m / c)
    cols = np.where(split & ~heads & ~row, np.ceil(n / t_of), n)
    depth = np.where(split & ~heads & row, np.ceil(k / t_of), k)
    per_head = np.where(split & heads, np.ceil(batch / t_of), batch)
    return rows, cols, depth, per_head, 1.0 / (c * t_of)


def gemm_compute(
    ops: Sequence[Operator],
    ceilings: Ceilings,
    grouped: Sequence[bool],
    shard: tuple[int, int] = (1, 1),
) -> list[Number]:
    """The compute seconds of GEMM rows at one ``shard`` (:func:`gemm_compute_by_shard`)."""
    return gemm_compute_by_shard(ops, ceilings, grouped, (shard,))[0]


def gemm_compute_by_shard(
    ops: Sequence[Operator],
    ceilings: Ceilings,
    grouped: Sequence[bool],
    shards: Sequence[tuple[int, int]],
) -> list[list[Number]]:
    """The compute seconds of GEMM rows at each of ``shards``, all evaluated at once: each pass
    on its own output tiles and depth: forward ``[m x k]·[k x n]``, input gradient
    ``[m x n]·[n x k]``, weight gradient ``[k x m]·[m x n]``, ``F / (peak · eta · w · d)``
    (``eta`` the size curve of the pass's layout, ``w`` the wave and ``d`` the depth
    efficiency), each efficiency at the shape and size one rank of a shard ``(t, c)`` runs
    (:func:`shard_shapes`; ``(1, 1)``: the whole GEMM) while ``F`` stays the whole GEMM's (the
    caller divides the time over the ranks); a pass without FLOPs costs nothing. A grouped GEMM
    (``grouped``, the ``gemm_group`` local experts of an MoE layer in one launch) fills the
    GPU's waves with the tiles of all its GEMMs together. The shards are one more leading axis
    of the same arrays (a search times one table at every tensor- and context-parallel degree).

    Element by element the same arithmetic as one row and one shard at a time (so the same
    numbers, to the last bit); per shard, a row's result has the shape of its own fields (a
    number, or the sweep's). Rows of Python numbers at whole GEMMs (one configuration's step)
    are timed row by row on Python floats (:meth:`Ceilings.gemm_row_seconds`: the same formulas,
    a few dozen numbers for which numpy's per-call cost outweighs its loops)."""
    peak = ceilings.peak_flops
    if len(shards) == 1 and shards[0] == (1, 1):  # one configuration's whole GEMMs: numbers?
        row_seconds = _gemm_rows_of_numbers(ops, ceilings, grouped)
        if row_seconds is not None:
            return [row_seconds]
    # One pass over the rows: their dimensions, FLOPs per pass and whether all are numbers.
    ms, ns, ks, forwards, batches, heads = [], [], [], [], [], []
    passes: tuple[list[Number], list[Number], list[Number]] = ([], [], [])
    numbers = True
    for op, group in zip(ops, grouped, strict=True):
        m, n, k, forward, batch, first, second, third = _gemm_fields(op, group)
        numbers = numbers and (
            type(m) in _NUMBERS and type(n) in _NUMBERS and type(k) in _NUMBERS
            and type(forward) in _NUMBERS and type(batch) in _NUMBERS
            and type(first) in _NUMBERS and type(second) in _NUMBERS and type(third) in _NUMBERS
        )  # fmt: skip
        ms.append(m)
        ns.append(n)
        ks.append(k)
        forwards.append(forward)
        batches.append(batch)
        heads.append(op.kind == _ATTENTION)
        passes[0].append(first)
        passes[1].append(second)
        passes[2].append(third)
    # Several shards: their axis leads, (shards, rows, *shape); the whole GEMMs alone (a
    # one-GPU step): no such axis, one added to the result.
    whole = [shard == (1, 1) for shard in shards]
    stacked = not all(whole)
    own: list[tuple[int, ...]]
    if numbers:  # numbers only (at several shards): no sweep
        own, shape = [()] * len(ops), ()
        m, n, k = np.array((ms, ns, ks), dtype=np.float64)  # as stack_rows converts
        flops = np.array(forwards, dtype=np.float64)
        batch = np.array(batches, dtype=np.float64)
        values = np.array(passes, dtype=np.float64)
        active = values != 0  # a pass is active where it has FLOPs
    else:
        own = [
            np.broadcast_shapes(*map(np.shape, fields), *(np.shape(part[i]) for part in passes))
            for i, fields in enumerate(zip(ms, ns, ks, forwards, batches, strict=True))
        ]
        shape = np.broadcast_shapes(*own)
        m, n, k = (stack_rows(x, shape) for x in (ms, ns, ks))
        batch = stack_rows(batches, shape)
        flops = stack_rows(forwards, shape)
        values = np.stack([stack_rows(part, shape) for part in passes])
        # Sweeps: a pass is active for a row where it has FLOPs at any point of the sweep.
        active = np.array([[any_true(x) for x in part] for part in passes]).reshape(
            (len(passes), -1) + (1,) * len(shape)
        )
    if stacked:
        values, active = values[:, np.newaxis], active[:, np.newaxis]
        axis = (-1,) + (1,) * m.ndim
        t = np.array([shard[0] for shard in shards]).reshape(axis)
        c = np.array([shard[1] for shard in shards]).reshape(axis)
        rows, cols, depth, per_head, share = shard_shapes(ops, m, n, k, batch, (t, c))
        unsplit = np.array(whole).reshape(axis)  # a whole GEMM keeps its own dimensions
        m, n, k, batch = (
            np.where(unsplit, x, split)
            for x, split in ((m, rows), (n, cols), (k, depth), (batch, per_head))
        )
        flops = flops * share  # 1 for a whole GEMM
    # Each pass's output tiles and depth: forward [m x n] over k, input gradient [m x k] over
    # n, weight gradient [k x n] over m; their efficiencies for the three passes in one call.
    shapes = ceilings.gemm_shape_efficiency(
        np.stack((m, m, k)), np.stack((n, k, n)), np.stack((k, n, m)), batch
    )
    attention = np.array(heads)
    # Each pass's operand layout's size curve (the attention rows' own where measured).
    layouts = ceilings.gemm_pass_efficiencies(flops, attention.reshape((-1,) + (1,) * len(shape)))
    if ceilings.unaligned_gemm != (1.0, 1.0, 1.0):
        # A linear layer whose features are not 16-byte aligned runs on slower kernels
        # (Ceilings.gemm_alignment_efficiency); attention's matmuls are not linear layers.
        aligned = ceilings.gemm_alignment_efficiency(n, k)
        linear = ~attention.reshape((-1,) + (1,) * len(shape))
        layouts = layouts * np.where(linear, aligned, 1.0)
    seconds = gemm_pass_seconds(values, peak, layouts, shapes)  # IEEE: inactive ones masked
    timed = np.where(active, seconds, 0.0)  # a pass without FLOPs costs nothing
    compute = timed[0] + timed[1] + timed[2]
    if not stacked:
        compute = compute[np.newaxis]
    if not shape:  # numbers only: each row's seconds as a Python float
        return compute.tolist()
    compute = np.broadcast_to(compute, (len(shards), len(ops), *shape))
    out: list[list[Number]] = []
    for s, shard in enumerate(shards):
        out.append(
            [
                compute[s, i].copy()
                if row_shape == shape
                # A row narrower than the others' sweep: its own evaluation.
                else gemm_compute((ops[i],), ceilings, (grouped[i],), shard)[0]
                for i, row_shape in enumerate(own)
            ]
        )
    return out


def _gemm_fields(op: Operator, grouped: bool) -> tuple[Number, ...]:
    """What a GEMM row's compute seconds read: ``m, n, k``, its forward FLOPs, the GEMMs one
    launch runs (a grouped GEMM's ``gemm_group``, else its ``gemm_batch``, else 1) and the
    FLOPs of its three passes (forward with the recomputed one, input and weight gradient)."""
    forward = op.forward_flops
    batch = op.gemm_group if grouped else (op.gemm_batch if any_true(op.gemm_batch) else 1)
    return (
        op.m, op.n, op.k, forward, batch, forward + forward * op.recompute_fraction,
        op.backward_input_flops, op.backward_weight_flops,
    )  # fmt: skip


def _gemm_rows_of_numbers(
    ops: Sequence[Operator], ceilings: Ceilings, grouped: Sequence[bool]
) -> list[float] | None:
    """:func:`gemm_compute_by_shard` of whole GEMMs (one shard, ``(1, 1)``) whose fields are
    all Python numbers (one configuration's step), row by row on Python floats
    (:meth:`Ceilings.gemm_row_seconds`: the same formulas, a few dozen numbers for which
    numpy's per-call cost outweighs its loops); None when a row holds an array."""
    out: list[float] = []
    numbers = _NUMBERS
    for op, group in zip(ops, grouped, strict=True):
        m, n, k, forward, batch, first, second, third = _gemm_fields(op, group)
        if not (
            type(m) in numbers and type(n) in numbers and type(k) in numbers
            and type(forward) in numbers and type(batch) in numbers
            and type(first) in numbers and type(second) in numbers and type(third) in numbers
        ):  # fmt: skip
            return None
        out.append(
            ceilings.gemm_row_seconds(
                float(m), float(n), float(k), float(batch), float(forward),
                op.kind == _ATTENTION, (first, second, third),
            )
        )  # fmt: skip
    return out


def attention_kernels(table: OperatorTable, ex: Execution) -> dict[str, tuple[Number, Kernel]]:
    """Per attention pattern, the seconds per execution of the measured fused kernel that
    replaces the attention core (empty when the table's attention is eager or no kernel of the
    implementation was measured on this GPU), at ``ex``'s tensor-parallel degree (one launch
    carries ``1/t`` of the heads)."""
    return attention_kernels_by_degree(table, ex, (ex.shard[0],))[ex.shard[0]]


def attention_kernels_by_degree(
    table: OperatorTable, ex: Execution, degrees: Sequence[int]
) -> dict[int, dict[str, tuple[Number, Kernel]]]:
    """:func:`attention_kernels` at each tensor-parallel degree of ``degrees`` (``ex``'s own
    shard is not used). A sweep's launches (arrays) at several degrees are looked up in one
    call, the degrees one more leading axis of the launch sizes (element by element the same
    arithmetic as one degree at a time); one configuration's (Python numbers), degree by
    degree."""
    found: dict[int, dict[str, tuple[Number, Kernel]]] = {t: {} for t in degrees}
    config = table.metadata.get("config")
    if ex.software is None or config is None or config.attention != "flash":
        return found
    kernel, accelerator = ex.software.attention_kernel_on(ex.accelerators)
    if kernel is None:
        return found
    causal = bool(table.metadata.get("causal", True))
    # One pass over the rows: the attention core's scores rows (one per pattern) and whether
    # the attention drops out.
    scores, dropout = [], False
    for op in table.operators:
        kind = op.kind
        if kind == _ATTENTION and op.name.startswith("attention scores QK^T"):
            scores.append(op)
        elif kind == _DROPOUT and op.name.startswith("attention dropout"):
            dropout = True
    for op in scores:
        flops = 2 * op.forward_flops
        heads = launch_heads(flops, op.m, op.k, causal)
        # (np.shape of a Python number costs microseconds: one configuration's path)
        shape = heads.shape if type(heads) is np.ndarray else ()
        together = (
            len(degrees) > 1
            and bool(shape)
            and np.broadcast_shapes(np.shape(op.recompute_fraction), shape) == shape
        )
        head_dim = op.k if type(op.k) is int else int(np.max(op.k))

        def seconds_at(
            batch_heads: Number,
            op: Operator = op,
            flops: Number = flops,
            head_dim: int = head_dim,
        ) -> Any:
            return attention_kernel_seconds(
                kernel, accelerator, flops, causal=causal, head_dim=head_dim,
                sequence=op.m, recompute=op.recompute_fraction, dropout=dropout,
                batch_heads=batch_heads,
            )  # fmt: skip

        if together:  # every degree's launches in one call, the degrees leading
            seconds = seconds_at(heads / np.array(degrees).reshape((-1,) + (1,) * len(shape)))
            if seconds is not None:
                every = np.broadcast_to(seconds, (len(degrees), *shape)).copy()
                for t, at_degree in zip(degrees, every, strict=True):
                    found[t][op.pattern] = (at_degree, kernel)
            continue
        for t in degrees:
            seconds = seconds_at(heads / t)
            if seconds is not None:
                found[t][op.pattern] = (seconds, kernel)
    return found


def launch_heads(forward_flops: Number, sequence: Number, head_dim: Number, causal: bool) -> Number:
    """The work of one attention launch in heads of the full mask: ``F_fwd / (4·d·s²·½)``
    (causal; ``4·d·s²`` without a mask), i.e. batch x heads for a full causal or unmasked
    attention and less for a sliding window: what a kernel measured over launch sizes is read
    at (one launch per micro-batch and layer; a tensor-parallel rank runs ``1/t`` of it)."""
    s = floats(sequence)
    d = floats(head_dim)
    return forward_flops / (4 * d * s * s * (0.5 if causal else 1.0))


def parameter_tensors(table: OperatorTable) -> float:
    """Parameter tensors of the model (one per operator row with parameters, per layer): what a
    for-loop optimizer dispatches its operations over (biases counted with their weights)."""
    micro = float(table.metadata.get("micro_batches", 1))
    return float(
        sum(
            largest(op.count) / micro
            for op in table.operators
            if op.kind != _OPTIMIZER and any_true(op.parameters > 0)
        )
    )


def _grouped(op: Operator, ex: Execution) -> bool:
    """Whether ``op``'s GEMMs run as one grouped launch (MoE experts under a grouped GEMM:
    :attr:`Execution.groups_experts`)."""
    return ex.groups_experts and any_true(op.gemm_group)


def fused_groups(ops: Sequence[Operator], software: Software | None, fused_qkv: bool) -> frozenset:
    """The fuse groups (:attr:`Operator.fuse_group`) that run as one GEMM: every group under an
    implementation whose code fuses its projections (``fused_projections``: Megatron-Core's
    ``linear_qkv`` and ``linear_fc1``), else the Q, K, V projections of a model whose own code
    fuses them (``fused_qkv``: GPT-2's ``c_attn``)."""
    if software is not None and software.spec.fused_projections:
        return frozenset(op.fuse_group for op in ops if op.fuse_group)
    return frozenset({"qkv"}) if fused_qkv else frozenset()


def _fused(members: Sequence[Operator]) -> Operator:
    """One GEMM for fused projections reading the same ``[m x k]`` input: their output widths
    and FLOPs added."""
    n = forward = backward_input = backward_weight = 0  # summed as sum() does, from 0
    for op in members:
        n, forward = n + op.n, forward + op.forward_flops
        backward_input = backward_input + op.backward_input_flops
        backward_weight = backward_weight + op.backward_weight_flops
    return replace(
        members[0], n=n, forward_flops=forward, backward_input_flops=backward_input,
        backward_weight_flops=backward_weight,
    )  # fmt: skip


def operator_rows(
    ops: Sequence[Operator],
    executions: Sequence[Execution],
    kernels: Sequence[dict[str, tuple[Number, Kernel]]],
    tensors: float,
) -> list[tuple[OperatorTime, ...]]:
    """The time of every operator row (module docstring) under each of ``executions`` (the same
    but for their ``shard``; ``kernels``: each one's :func:`attention_kernels`), the GEMM rows of
    each format evaluated together at every shard (:func:`gemm_compute_by_shard`). The rows of a
    fuse group that runs as one GEMM (``ex.fused``) are timed as that GEMM (:func:`_fused`: the
    sum of their widths, so its tiles and waves), each row taking its share of the FLOPs, one
    launch for them all. Only the GEMMs and the attention core depend on the shard: every other
    row is timed once and shared by all executions."""
    ex = executions[0]
    members: dict[str, list[int]] = {}
    singles: list[int] = []
    for i, op in enumerate(ops):  # the GEMM rows the model times: not a measured kernel's
        if op.kind not in MATMUL_KINDS or (  # (op.is_matmul, inline: every row of every step)
            op.role == _ATTENTION_CORE and all(op.pattern in found for found in kernels)
        ):
            continue
        if op.fuse_group in ex.fused:
            members.setdefault(op.fuse_group, []).append(i)
        else:
            singles.append(i)
    fused = {name: rows for name, rows in members.items() if len(rows) > 1}
    singles += [rows[0] for rows in members.values() if len(rows) == 1]
    timed: list[tuple[Operator, tuple[int, ...]]] = [(ops[i], (i,)) for i in sorted(singles)]
    timed += [(_fused([ops[i] for i in rows]), tuple(rows)) for rows in fused.values()]
    by_ceilings: dict[int, list[tuple[Operator, tuple[int, ...]]]] = {}
    for entry in timed:
        by_ceilings.setdefault(id(ex.of(entry[0])), []).append(entry)
    shards = [e.shard for e in executions]
    gemms: list[dict[int, Number]] = [{} for _ in executions]
    for entries in by_ceilings.values():
        group = [op for op, _ in entries]
        per_shard = gemm_compute_by_shard(
            group, ex.of(group[0]), [_grouped(op, ex) for op in group], shards
        )
        for found, seconds in zip(gemms, per_shard, strict=True):
            for (op, rows), time in zip(entries, seconds, strict=True):
                for i in rows:
                    found[i] = (
                        time if len(rows) == 1 else time * (ops[i].forward_flops / op.forward_flops)
                    )
    launches = {i: len(rows) for rows in fused.values() for i in rows}
    if len(executions) == 1:  # one execution: every row timed once
        measured, timed_gemms = kernels[0], gemms[0]
        return [
            tuple(
                [
                    operator_time(op, ex, measured, tensors, timed_gemms.get(i), launches.get(i, 1))
                    for i, op in enumerate(ops)
                ]
            )
        ]
    # Several executions: the rows no shard changes timed once, the GEMM rows of a sweep at
    # every shard in one call.
    shared = {
        i: operator_time(op, ex, kernels[0], tensors)
        for i, op in enumerate(ops)
        if op.kind not in MATMUL_KINDS and op.role != _ATTENTION_CORE
    }
    by_shard = _gemm_rows_by_shard(ops, ex, kernels[0], tensors, gemms, launches)
    return [
        tuple(
            [
                shared[i]
                if i in shared
                else by_shard[i][s]
                if i in by_shard
                else operator_time(op, one, found, tensors, seconds.get(i), launches.get(i, 1))
                for i, op in enumerate(ops)
            ]
        )
        for s, (one, found, seconds) in enumerate(zip(executions, kernels, gemms, strict=True))
    ]


def _gemm_rows_by_shard(
    ops: Sequence[Operator],
    ex: Execution,
    kernels: dict[str, tuple[Number, Kernel]],
    tensors: float,
    gemms: Sequence[dict[int, Number]],
    launches: dict[int, int],
) -> dict[int, list[OperatorTime]]:
    """The GEMM rows of a sweep (their compute seconds arrays) timed at every shard in one
    :func:`operator_time` call each, the shards one more leading axis, then taken apart per
    shard: a GEMM row's time depends on its shard only through its compute seconds (``gemms``,
    one dict per execution), so each element is the same arithmetic as timing it shard by
    shard. Its memory time, gaps and host time do not depend on the shard: one value shared by
    every shard's row. Left out (timed per shard by the caller): the attention core (its
    measured kernel depends on the tensor-parallel degree), rows of Python numbers, and rows
    whose other fields are wider than their compute seconds (their shard axis would not lead)."""
    out: dict[int, list[OperatorTime]] = {}
    for i, first in gemms[0].items():
        op = ops[i]
        if op.role == _ATTENTION_CORE or type(first) is not np.ndarray or not first.ndim:
            continue
        per_shard = [found[i] for found in gemms]
        shape = first.shape
        if any(type(x) is not np.ndarray or x.shape != shape for x in per_shard) or (
            np.broadcast_shapes(
                np.shape(op.bytes_moved), np.shape(op.count), np.shape(op.recompute_fraction),
                shape,
            ) != shape
        ):  # fmt: skip
            continue
        row = operator_time(op, ex, kernels, tensors, np.stack(per_shard), launches.get(i, 1))
        name, kind, memory, gaps, host = row.name, row.kind, row.memory, row.gaps, row.host
        compute, launch, total = row.compute, row.launch, row.total
        out[i] = [
            OperatorTime(name, kind, compute[s], memory, launch[s], total[s], gaps, host)
            for s in range(len(per_shard))
        ]
    return out


def operator_time(
    op: Operator,
    ex: Execution,
    kernels: dict[str, tuple[Number, Kernel]],
    tensors: float,
    gemm: Number | None = None,
    kernels_shared: int = 1,
) -> OperatorTime:
    """The time of one operator row per step (module docstring); ``gemm``: its GEMM compute
    seconds when already evaluated (:func:`operator_rows`); ``kernels_shared``: the rows of a
    fused GEMM sharing its launches."""
    rates = ex.rates
    found = rates.get(op.format)  # ex.of(op), inline: called for every row
    ceilings, bandwidth, launch = rates[""] if found is None else found
    # The operator's properties (backward_flops, bytes_moved, total_flops) read inline: this
    # runs for every row of every step.
    kind, count, recompute = op.kind, op.count, op.recompute_fraction
    backward = op.backward_input_flops + op.backward_weight_flops
    backward_bytes = op.backward_bytes
    if type(backward) in _NUMBERS and type(backward_bytes) in _NUMBERS:  # (a GEMM's are ints)
        host_ops: float = 1 + bool(backward or backward_bytes)
    else:
        host_ops = 1 + (any_true(backward) or any_true(backward_bytes))
    host_ops = host_ops + recompute
    forward_bytes = op.bytes_read + op.bytes_written
    moved = forward_bytes + backward_bytes + forward_bytes * recompute
    kernel = kernels.get(op.pattern) if op.role == _ATTENTION_CORE else None
    if kernel is not None:
        first = kind == _ATTENTION and op.name.startswith("attention scores QK^T")
        compute, memory = (kernel[0] if first else 0.0), 0.0
        host_ops = host_ops if first else 0
    elif kind in MATMUL_KINDS:  # op.is_matmul
        grouped = _grouped(op, ex)
        compute = _gemm_compute(op, ceilings, grouped, ex.shard) if gemm is None else gemm
        memory = moved / bandwidth
        if grouped:  # one launch (and one dispatch) for the group's GEMMs
            host_ops = host_ops / op.gemm_group
        host_ops = host_ops / kernels_shared  # a fused GEMM's launches shared by its rows
    elif ex.folds and kind == _ELEMENTWISE and op.name.endswith("residual add"):
        # Residual adds, folded into the bias-dropout-add (or GEMM epilogue) kernel before them
        # (never a GEMM: residual adds are element-wise).
        compute, memory, host_ops = 0.0, 0.0, 0
    else:
        spec, forward = ex.spec, op.forward_flops
        vector = ceilings.vector_flops
        efficiency = ceilings.vector_efficiency_of(kind, forward)
        compute = (forward + backward + forward * recompute) / (vector * efficiency)
        memory = moved / bandwidth
        if kind == _OPTIMIZER and spec is not None:
            memory = memory * spec.optimizer_passes
            host_ops = host_ops + spec.optimizer_ops_per_tensor * tensors
        loss = spec.cross_entropy if spec is not None and kind == _LOSS else None
        if loss is not None:
            logits = forward / ELEMENTWISE_FLOPS["cross-entropy"]
            passes = loss.forward_bytes * (1 + recompute)
            memory = logits * (passes + loss.backward_bytes) / bandwidth
            host_ops = float(loss.kernels)
    if not ex.roofline:
        body = compute + memory
    elif type(compute) is float and type(memory) is float and compute >= memory:
        body = compute  # maximum()'s own first case, inline: every row of every step
    else:
        body = maximum(compute, memory)
    gaps = host_ops * launch
    gpu = body + gaps
    dispatch = ex.dispatch
    host = host_ops * dispatch
    total = (
        gpu if type(gpu) is float and type(host) is float and gpu >= host else maximum(gpu, host)
    )
    # Positional, in OperatorTime's field order (name, kind, compute, memory, launch, total,
    # gaps, host): msgspec matches each keyword at ~50 ns, on every row of every step.
    return OperatorTime(
        op.name, kind, compute * count, memory * count, (total - body) * count, total * count,
        gaps * count, host * count,
    )  # fmt: skip


__all__ = [
    "Execution",
    "OperatorTime",
    "attention_kernels",
    "fused_groups",
    "gemm_compute",
    "gemm_compute_by_shard",
    "operator_rows",
    "operator_time",
    "parameter_tensors",
    "shard_shapes",
]
