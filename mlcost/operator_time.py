"""The time of one operator row of a step on one GPU, under the software that runs it.

Per execution of an operator, with ceilings from :class:`mlcost.roofline.Ceilings` (the ceilings
of the format the operator runs in: BF16 for the heads and attention under an FP8 recipe):

* GEMMs: ``F / (peak · eta · w)`` per pass (forward ``nn``, input gradient ``nt``, weight
  gradient ``tn``), ``eta`` the GEMM efficiency, ``w`` the wave quantization of its output tiles,
  both at the shape one GPU runs (:func:`shard_shapes`: a tensor- and context-parallel rank's
  share of the GEMM), and where a measured profile has it, the slowdown of a linear layer whose
  features are not 16-byte aligned (:meth:`mlcost.roofline.Ceilings.gemm_alignment_efficiency`);
  other operators ``F / (vector peak · eta_v)``; memory ``B / (bandwidth · eta_m)``, the reads
  beyond twice the writes at the read-stream rate where one was measured
  (:func:`memory_seconds`), plus, per launch of a GEMM, norm or attention core, the measured
  latency of its kernel class (:meth:`mlcost.roofline.Ceilings.latency_of`);
* ``roofline``: ``max(compute, memory)`` (or the measured smooth corner,
  :meth:`mlcost.roofline.Ceilings.combine`), ``no-overlap``: their sum; plus one launch gap per
  kernel (forward, backward, recomputed forward);
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
  ``max(GPU time, host time)`` (the GPU waits for a host that falls behind);
* on a host-executed device (a CPU profile that measured its first-touch rate), the loss adds
  the page faults of the buffers of the logits' shape the implementation allocates afresh
  every step (``CrossEntropyKernels.logit_buffers``) where they reach the allocator's mmap
  threshold (:meth:`mlcost.roofline.Ceilings.first_touch_seconds`): the host's own time,
  after the operator's (nothing overlaps it).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any, Literal

import numpy as np

from mlcost.arrays import Real, stack_rows
from mlcost.implementation import Software, attention_kernel_seconds
from mlcost.records import Record, replace
from mlcost.roofline import Ceilings, gemm_pass_seconds
from mlcost.specs import Implementation, Kernel
from mlcost.workload import OperatorKind, OperatorRole, OperatorTable
from mlcost.workload.experts import FP32_BYTES
from mlcost.workload.table import ELEMENTWISE_FLOPS, Operator

Mode = Literal["roofline", "no-overlap"]


class OperatorTime(Record, frozen=True):
    """Time of one operator row per step, split into its parts (seconds, arrays in sweeps)."""

    name: str
    kind: str
    compute: Real
    memory: Real
    launch: Real
    total: Real
    gaps: Real = 0.0  # the GPU's gaps between this operator's kernels (part of ``launch``)
    host: Real = 0.0  # host time dispatching them (``launch`` holds what exceeds the GPU's)
    first_touch: Real = 0.0  # a host-executed device's page faults of fresh buffers

    @property
    def bound(self) -> Any:
        """:func:`bound_of` this row's compute and memory seconds."""
        return bound_of(self.compute, self.memory)


def bound_of(compute: Any, memory: Any) -> Any:
    """``"compute"`` or ``"memory"``, whichever time is larger, and ``"fused"`` where both are
    zero: an operator folded into a neighbouring kernel (a residual add under a fused
    implementation, the softmax of a measured fused attention kernel) runs no kernel of its
    own, so neither ceiling bounds it."""
    compute, memory = np.asarray(compute), np.asarray(memory)
    return np.where(
        (compute <= 0) & (memory <= 0), "fused", np.where(compute >= memory, "compute", "memory")
    )


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
    grouped_experts: bool = False  # the table's MoE experts run as one grouped GEMM (serving)

    def of(self, op: Operator) -> Ceilings:
        """The ceilings of the format ``op`` computes in (the table's own by default)."""
        return self.rates_of(op)[0]

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

    def rates_of(self, op: Operator) -> tuple[Ceilings, float, float]:
        """:attr:`rates` of the format ``op`` computes in (the table's own by default)."""
        rates = self.rates
        return rates.get(op.format) or rates[""]

    @cached_property
    def spec(self) -> Implementation | None:
        """The implementation profile (None without software)."""
        return None if self.software is None else self.software.spec

    @cached_property
    def groups_experts(self) -> bool:
        """Whether the implementation runs an MoE layer's local experts as one grouped GEMM
        (``grouped_expert_gemm``) or the table says its engine does (a serving forward under an
        engine with ``grouped_expert_gemm``), :func:`_grouped`."""
        return self.grouped_experts or (self.spec is not None and self.spec.grouped_expert_gemm)

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
) -> Real:
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
    heads = np.array([op.kind == OperatorKind.ATTENTION for op in ops]).reshape(split.shape)
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
) -> list[Real]:
    """The compute seconds of GEMM rows at one ``shard`` (:func:`gemm_compute_by_shard`)."""
    return gemm_compute_by_shard(ops, ceilings, grouped, (shard,))[0]


def gemm_compute_by_shard(
    ops: Sequence[Operator],
    ceilings: Ceilings,
    grouped: Sequence[bool],
    shards: Sequence[tuple[int, int]],
) -> list[list[Real]]:
    """The compute seconds of GEMM rows at each of ``shards``, all evaluated at once: each pass
    on its own output tiles and depth: forward ``[m x k]·[k x n]``, input gradient
    ``[m x n]·[n x k]``, weight gradient ``[k x m]·[m x n]``, ``F / (peak · eta · w · d)``
    (``eta`` the size curve of the pass's layout, ``w`` the wave and ``d`` the depth
    efficiency), each efficiency at the shape and size one rank of a shard ``(t, c)`` runs
    (:func:`shard_shapes`; ``(1, 1)``: the whole GEMM) while ``F`` stays the whole GEMM's (the
    caller divides the time over the ranks); a pass without FLOPs costs nothing. A grouped GEMM
    (``grouped``, the ``gemm_group`` local experts of an MoE layer in one launch) fills the
    GPU's waves with the tiles of all its GEMMs together. The rows are one axis of the arrays
    and the shards one more, leading (a search times one table at every tensor- and
    context-parallel degree in one call). Per shard, a row's result has the shape of its own
    fields (a number, or the sweep's)."""
    fields = [_gemm_fields(op, group) for op, group in zip(ops, grouped, strict=True)]
    own = [np.broadcast_shapes(*map(np.shape, row)) for row in fields]
    shape = np.broadcast_shapes(*own)
    # (rows, *shape) each: dimensions, forward FLOPs, GEMMs per launch; (3, rows, *shape) the
    # FLOPs of the three passes.
    m, n, k, flops, batch = (stack_rows([row[j] for row in fields], shape) for j in range(5))
    values = np.stack([stack_rows([row[j] for row in fields], shape) for j in (5, 6, 7)])
    # A pass is active for a row where it has FLOPs at any point of the sweep.
    sweep_axes = tuple(range(2, values.ndim))
    active = (values != 0).any(axis=sweep_axes, keepdims=True)
    # The shards lead, (shards, rows, *shape), where any is not the whole GEMM.
    whole = [shard == (1, 1) for shard in shards]
    stacked = not all(whole)
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
    attention = np.array([op.kind == OperatorKind.ATTENTION for op in ops]).reshape(
        (-1,) + (1,) * len(shape)
    )
    # Each pass's operand layout's size curve (the attention rows' own where measured).
    layouts = ceilings.gemm_pass_efficiencies(flops, attention)
    if ceilings.unaligned_gemm != (1.0, 1.0, 1.0):
        # A linear layer whose features are not 16-byte aligned runs on slower kernels
        # (Ceilings.gemm_alignment_efficiency); attention's matmuls are not linear layers.
        aligned = ceilings.gemm_alignment_efficiency(n, k)
        layouts = layouts * np.where(~attention, aligned, 1.0)
    seconds = gemm_pass_seconds(values, ceilings.peak_flops, layouts, shapes)
    timed = np.where(active, seconds, 0.0)  # a pass without FLOPs costs nothing
    compute = timed[0] + timed[1] + timed[2]
    if not stacked:
        compute = compute[np.newaxis]
    compute = np.broadcast_to(compute, (len(shards), len(ops), *shape))
    return [
        [
            compute[s, i].copy()
            if row_shape == shape
            # A row narrower than the others' sweep: its own evaluation.
            else gemm_compute((ops[i],), ceilings, (grouped[i],), shard)[0]
            for i, row_shape in enumerate(own)
        ]
        for s, shard in enumerate(shards)
    ]


def _gemm_fields(op: Operator, grouped: bool) -> tuple[Real, ...]:
    """What a GEMM row's compute seconds read: ``m, n, k``, its forward FLOPs, the GEMMs one
    launch runs (a grouped GEMM's ``gemm_group``, else its ``gemm_batch``, else 1) and the
    FLOPs of its three passes (forward with the recomputed one, input and weight gradient)."""
    forward = op.forward_flops
    batch = op.gemm_group if grouped else (op.gemm_batch if np.any(op.gemm_batch) else 1)
    return (
        op.m,
        op.n,
        op.k,
        forward,
        batch,
        forward + op.recompute_flops,
        op.backward_input_flops,
        op.backward_weight_flops,
    )


def attention_kernels(table: OperatorTable, ex: Execution) -> dict[str, tuple[Real, Kernel]]:
    """Per attention pattern, the seconds per execution of the measured fused kernel that
    replaces the attention core (empty when the table's attention is eager or no kernel of the
    implementation was measured on this GPU), at ``ex``'s tensor-parallel degree (one launch
    carries ``1/t`` of the heads)."""
    return attention_kernels_by_degree(table, ex, (ex.shard[0],))[ex.shard[0]]


def attention_kernels_by_degree(
    table: OperatorTable, ex: Execution, degrees: Sequence[int]
) -> dict[int, dict[str, tuple[Real, Kernel]]]:
    """:func:`attention_kernels` at each tensor-parallel degree of ``degrees`` (``ex``'s own
    shard is not used). A sweep's launches (arrays) at several degrees are looked up in one
    call, the degrees one more leading axis of the launch sizes (element by element the same
    arithmetic as one degree at a time); launches of one size, degree by degree."""
    found: dict[int, dict[str, tuple[Real, Kernel]]] = {t: {} for t in degrees}
    config = table.metadata.get("config")
    if ex.software is None or config is None or config.attention != "flash":
        return found
    kernel, accelerator = ex.software.attention_kernel_on(ex.accelerators)
    if kernel is None:
        return found
    causal = bool(table.metadata.get("causal", True))
    # The attention core's scores rows (one per pattern), and whether the attention drops out.
    scores = [op for op in table.operators if _is_scores(op)]
    dropout = any(
        op.kind == OperatorKind.DROPOUT and op.name.startswith("attention dropout")
        for op in table.operators
    )
    for op in scores:
        flops = 2 * op.forward_flops
        heads = launch_heads(flops, op.m, op.k, causal)
        shape = np.shape(heads)
        together = (
            len(degrees) > 1
            and bool(shape)
            and np.broadcast_shapes(np.shape(op.recompute_fraction), shape) == shape
        )
        head_dim = int(np.max(op.k))

        def seconds_at(
            batch_heads: Real,
            op: Operator = op,
            flops: Real = flops,
            head_dim: int = head_dim,
        ) -> Any:
            return attention_kernel_seconds(
                kernel,
                accelerator,
                flops,
                causal=causal,
                head_dim=head_dim,
                sequence=op.m,
                recompute=op.recompute_fraction,
                dropout=dropout,
                batch_heads=batch_heads,
            )

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


def launch_heads(forward_flops: Real, sequence: Real, head_dim: Real, causal: bool) -> Real:
    """The work of one attention launch in heads of the full mask: ``F_fwd / (4·d·s²·½)``
    (causal; ``4·d·s²`` without a mask), i.e. batch x heads for a full causal or unmasked
    attention and less for a sliding window: what a kernel measured over launch sizes is read
    at (one launch per micro-batch and layer; a tensor-parallel rank runs ``1/t`` of it)."""
    s = np.asarray(sequence, dtype=np.float64)
    d = np.asarray(head_dim, dtype=np.float64)
    return forward_flops / (4 * d * s * s * (0.5 if causal else 1.0))


def parameter_tensors(table: OperatorTable, fused: frozenset[str] = frozenset()) -> float:
    """Parameter tensors of the model as its code holds them, what a for-loop optimizer
    dispatches its operations over: per layer, each row's :attr:`Operator.parameter_tensors`
    (a weight and a bias: two; a row with parameters but no count: one), the rows of a fuse
    group run as one GEMM (``fused``, :func:`fused_groups`: GPT-2's ``c_attn``, Megatron-Core's
    ``linear_qkv``) counted once, as the one module they are. The reference GPT of
    ``mlcost bench`` has 28, ``len(list(model.parameters()))`` (tests/test_host_work.py)."""
    micro = float(table.metadata.get("micro_batches", 1))
    seen: set[tuple[str, str]] = set()
    total = 0.0
    for op in table.operators:
        if op.kind == OperatorKind.OPTIMIZER or not np.any(op.parameters > 0):
            continue
        if op.fuse_group in fused:
            if (op.block, op.fuse_group) in seen:
                continue
            seen.add((op.block, op.fuse_group))
        tensors = float(np.max(op.parameter_tensors)) or 1.0
        total += float(np.max(op.count)) / micro * tensors
    return total


def _grouped(op: Operator, ex: Execution) -> bool:
    """Whether ``op``'s GEMMs run as one grouped launch (MoE experts under a grouped GEMM:
    :attr:`Execution.groups_experts`)."""
    return ex.groups_experts and _nonzero(op.gemm_group)


def fused_groups(
    ops: Sequence[Operator],
    software: Software | None,
    fused_qkv: bool,
    fused_projections: bool = False,
) -> frozenset:
    """The fuse groups (:attr:`Operator.fuse_group`) that run as one GEMM: every group under an
    implementation whose code fuses its projections (``fused_projections``: Megatron-Core's
    ``linear_qkv`` and ``linear_fc1``) or a table that says its engine does (a serving forward:
    vLLM's ``QKVParallelLinear`` and ``MergedColumnParallelLinear``), else the Q, K, V
    projections of a model whose own code fuses them (``fused_qkv``: GPT-2's ``c_attn``)."""
    if fused_projections or (software is not None and software.spec.fused_projections):
        return frozenset(op.fuse_group for op in ops if op.fuse_group)
    return frozenset({"qkv"}) if fused_qkv else frozenset()


def _fused(members: Sequence[Operator]) -> Operator:
    """One GEMM for fused projections reading the same ``[m x k]`` input: their output widths
    and FLOPs added."""
    # Summed as sum() does, from 0.
    n: Real = 0
    forward: Real = 0
    backward_input: Real = 0
    backward_weight: Real = 0
    for op in members:
        n, forward = n + op.n, forward + op.forward_flops
        backward_input = backward_input + op.backward_input_flops
        backward_weight = backward_weight + op.backward_weight_flops
    return replace(
        members[0],
        n=n,
        forward_flops=forward,
        backward_input_flops=backward_input,
        backward_weight_flops=backward_weight,
    )


def operator_rows(
    ops: Sequence[Operator],
    executions: Sequence[Execution],
    kernels: Sequence[dict[str, tuple[Real, Kernel]]],
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
    ops = recomputed_rows(ops, ex.spec)
    members: dict[str, list[int]] = {}
    singles: list[int] = []
    for i, op in enumerate(ops):  # the GEMM rows the model times: not a measured kernel's
        if not op.is_matmul or (
            op.role == OperatorRole.ATTENTION_CORE and all(op.pattern in found for found in kernels)
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
    gemms: list[dict[int, Real]] = [{} for _ in executions]
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
    # The rows no shard changes timed once, the GEMM rows of a sweep at every shard in one call.
    shared = {
        i: operator_time(op, ex, kernels[0], tensors)
        for i, op in enumerate(ops)
        if not op.is_matmul and op.role != OperatorRole.ATTENTION_CORE
    }
    # (One shard: each GEMM row timed on its own, below; stacking would only copy.)
    by_shard = (
        _gemm_rows_by_shard(ops, ex, kernels[0], tensors, gemms, launches)
        if len(executions) > 1
        else {}
    )
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


def recomputed_rows(ops: Sequence[Operator], spec: Implementation | None) -> Sequence[Operator]:
    """``ops`` as ``spec`` recomputes them: under a software whose checkpoint stops early
    (``Implementation.recompute_stops_early``, PyTorch's non-reentrant
    ``torch.utils.checkpoint``), the rows of a layer from its last row-parallel GEMM on (the MLP
    down projection and the dropout and residual add after it) are not recomputed: nothing the
    layer's backward needs is computed after them."""
    if spec is None or not spec.recompute_stops_early:
        return ops
    last: dict[str, int] = {}
    for i, op in enumerate(ops):
        if op.block == "layer" and op.is_matmul and op.row_parallel:
            last[op.pattern] = i
    tail = (OperatorKind.MATMUL, OperatorKind.ELEMENTWISE, OperatorKind.DROPOUT)
    return [
        replace(op, recompute_fraction=0.0)
        if op.block == "layer" and op.pattern in last and i >= last[op.pattern]
        and op.kind in tail and np.any(op.recompute_fraction)
        else op
        for i, op in enumerate(ops)
    ]  # fmt: skip


def _gemm_rows_by_shard(
    ops: Sequence[Operator],
    ex: Execution,
    kernels: dict[str, tuple[Real, Kernel]],
    tensors: float,
    gemms: Sequence[dict[int, Real]],
    launches: dict[int, int],
) -> dict[int, list[OperatorTime]]:
    """The GEMM rows of a sweep (their compute seconds arrays) timed at every shard in one
    :func:`operator_time` call each, the shards one more leading axis, then taken apart per
    shard: a GEMM row's time depends on its shard only through its compute seconds (``gemms``,
    one dict per execution), so each element is the same arithmetic as timing it shard by
    shard. Its memory time, gaps and host time do not depend on the shard: one value shared by
    every shard's row. Left out (timed per shard by the caller): the attention core (its
    measured kernel depends on the tensor-parallel degree), rows of one value, and rows
    whose other fields are wider than their compute seconds (their shard axis would not lead)."""
    out: dict[int, list[OperatorTime]] = {}
    for i, first in gemms[0].items():
        op = ops[i]
        if op.role == OperatorRole.ATTENTION_CORE or not isinstance(first, np.ndarray):
            continue
        per_shard = [found[i] for found in gemms]
        shape = first.shape
        if (
            first.ndim == 0
            or any(np.shape(x) != shape for x in per_shard)
            or (
                np.broadcast_shapes(
                    np.shape(op.bytes_moved),
                    np.shape(op.count),
                    np.shape(op.recompute_fraction),
                    shape,
                )
                != shape
            )
        ):
            continue
        row = operator_time(op, ex, kernels, tensors, np.stack(per_shard), launches.get(i, 1))
        name, kind, memory, gaps, host = row.name, row.kind, row.memory, row.gaps, row.host
        compute, launch, total = (np.asarray(x) for x in (row.compute, row.launch, row.total))
        out[i] = [
            OperatorTime(
                name=name,
                kind=kind,
                compute=compute[s],
                memory=memory,
                launch=launch[s],
                total=total[s],
                gaps=gaps,
                host=host,
            )
            for s in range(len(per_shard))
        ]
    return out


def operator_time(
    op: Operator,
    ex: Execution,
    kernels: dict[str, tuple[Real, Kernel]],
    tensors: float,
    gemm: Real | None = None,
    kernels_shared: int = 1,
) -> OperatorTime:
    """The time of one operator row per step (module docstring); ``gemm``: its GEMM compute
    seconds when already evaluated (:func:`operator_rows`); ``kernels_shared``: the rows of a
    fused GEMM sharing its launches."""
    ceilings, bandwidth, launch = ex.rates_of(op)
    kind, recompute = op.kind, op.recompute_fraction
    # One dispatch for the forward, one for the backward (where it has work), one per
    # recomputed forward.
    host_ops: Real = 1 + (_nonzero(op.backward_flops) or _nonzero(op.backward_bytes))
    host_ops = host_ops + recompute
    compute: Real
    memory: Real
    touch: Real = 0.0
    extra: Real = 0.0  # a bias's gradient sum, after the GEMM (nothing overlaps it)
    kernel = kernels.get(op.pattern) if op.role == OperatorRole.ATTENTION_CORE else None
    if kernel is not None:  # the measured fused kernel: its time on the scores row
        first = _is_scores(op)
        compute, memory = (kernel[0] if first else 0.0), 0.0
        host_ops = host_ops if first else 0
    elif op.is_matmul:
        grouped = _grouped(op, ex)
        compute = _gemm_compute(op, ceilings, grouped, ex.shard) if gemm is None else gemm
        if grouped:  # one launch (and one dispatch) for the group's GEMMs
            host_ops = host_ops / op.gemm_group
        host_ops = host_ops / kernels_shared  # a fused GEMM's launches shared by its rows
        # The attention core's fixed cost once, on its scores row (one fused kernel).
        latency = (
            ceilings.latency_of(kind) if kind != OperatorKind.ATTENTION or _is_scores(op) else 0.0
        )
        memory = memory_seconds(op, ceilings) + latency * host_ops
        sums = _bias_gradient_sum(op, ex, ceilings, kernels_shared)
        if sums is not None:  # its own kernel after the GEMM's: its launch and its bytes
            host_ops, extra = host_ops + 1 / kernels_shared, sums
    elif ex.folds and kind == OperatorKind.ELEMENTWISE and op.name.endswith("residual add"):
        # Residual adds, folded into the bias-dropout-add (or GEMM epilogue) kernel before them
        # (never a GEMM: residual adds are element-wise).
        compute, memory, host_ops = 0.0, 0.0, 0
    else:
        spec, forward = ex.spec, op.forward_flops
        efficiency = ceilings.vector_efficiency_of(kind, forward)
        compute = op.total_flops / (ceilings.vector_flops * efficiency)
        triad = None
        if ceilings.kind_memory_efficiency:  # measured per kind in a profiled run
            bandwidth = ceilings.bandwidth_bytes * ceilings.memory_efficiency_of(kind)
            triad = bandwidth
        memory = memory_seconds(op, ceilings, triad) + ceilings.latency_of(kind) * host_ops
        if kind == OperatorKind.OPTIMIZER and spec is not None:
            memory = memory * spec.optimizer_passes
            host_ops = host_ops + spec.optimizer_ops_per_tensor * tensors
        loss = spec.cross_entropy if spec is not None and kind == OperatorKind.LOSS else None
        if loss is not None:
            logits = forward / ELEMENTWISE_FLOPS["cross-entropy"]
            passes = loss.forward_bytes * (1 + recompute)
            memory = logits * (passes + loss.backward_bytes) / bandwidth
            host_ops = float(loss.kernels)
            if loss.logit_buffers:
                touch = ceilings.first_touch_seconds(logits * FP32_BYTES, loss.logit_buffers)
    body = ceilings.combine(compute, memory) if ex.roofline else compute + memory
    gaps = host_ops * launch
    host = host_ops * ex.dispatch
    total = np.maximum(body + gaps, host) + extra  # the GPU waits for a host that falls behind
    count = op.count
    return OperatorTime(
        name=op.name,
        kind=kind,
        compute=compute * count,
        memory=(memory + extra) * count,
        launch=(total - extra - body) * count,
        total=(total + touch) * count,
        gaps=gaps * count,
        host=host * count,
        first_touch=touch * count,
    )


def _bias_gradient_sum(
    op: Operator, ex: Execution, ceilings: Ceilings, kernels_shared: int
) -> Real | None:
    """Seconds of a GEMM's bias-gradient reduction under an implementation that runs it as
    its own kernel (``bias_gradient_sums``: eager autograd's ``grad.sum(0)`` in ``addmm``'s
    backward), None where there is none (no bias, no weight gradient, or fused): a read of
    the output gradient, shaped as the forward's output (``bytes_written``, one rank's share:
    ``1/c`` of the tokens, ``1/t`` of a column-parallel GEMM's features), at the read-stream
    rate; the fused rows of one GEMM (``kernels_shared``) share one sum over their outputs."""
    spec = ex.spec
    if spec is None or not spec.bias_gradient_sums:
        return None
    if not (_nonzero(np.greater(op.parameter_tensors, 1)) and _nonzero(op.backward_weight_flops)):
        return None
    t, c = ex.shard
    share = c * (t if op.tensor_parallel and not op.row_parallel else 1)
    return ceilings.stream_seconds(op.bytes_written / share, 0.0)


def memory_seconds(op: Operator, ceilings: Ceilings, triad: float | None = None) -> Real:
    """Seconds of one execution's memory traffic: the forward's reads and writes by
    :meth:`Ceilings.stream_seconds` (a pure read stream faster than a triad), recomputed forwards
    alike, the backward's traffic at the triad rate (``triad``: a per-kind measured rate in
    place of the ceilings'). Equal to ``bytes_moved / (bandwidth · eta_m)`` where no read stream
    was measured."""
    base, stream = ceilings.stream_rates
    rate = base if triad is None else triad
    if stream <= rate:  # no faster read stream: every byte at the one rate
        return op.bytes_moved / rate
    forward = ceilings.stream_seconds(op.bytes_read, op.bytes_written, triad)
    return forward * (1 + op.recompute_fraction) + op.backward_bytes / rate


def _nonzero(value: Real) -> bool:
    """Whether any element of ``value`` (a number or an array) is non-zero, by the array's own
    reduction (numpy's module-level ``np.any`` wrapper costs more than the test itself)."""
    return bool(np.asarray(value).any())


def _is_scores(op: Operator) -> bool:
    """Whether ``op`` is an attention core's scores matmul (``QK^T``), the row a measured fused
    attention kernel's time is put on."""
    return op.kind == OperatorKind.ATTENTION and op.name.startswith("attention scores QK^T")


__all__ = [
    "Execution",
    "OperatorTime",
    "attention_kernels",
    "bound_of",
    "fused_groups",
    "gemm_compute",
    "gemm_compute_by_shard",
    "memory_seconds",
    "operator_rows",
    "operator_time",
    "parameter_tensors",
    "recomputed_rows",
    "shard_shapes",
]
