"""The time of one operator row of a step on one GPU, under the software that runs it.

Per execution of an operator, with ceilings from :class:`mlcost.roofline.Ceilings` (the ceilings
of the format the operator runs in: BF16 for the heads and attention under an FP8 recipe):

* GEMMs: ``F / (peak · eta · w)`` per pass (forward ``nn``, input gradient ``nt``, weight
  gradient ``tn``), ``eta`` the GEMM efficiency, ``w`` the wave quantization of its output tiles;
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

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

import numpy as np

from mlcost.implementation import Software, attention_kernel_seconds
from mlcost.results import any_true
from mlcost.roofline import Ceilings
from mlcost.specs import Kernel
from mlcost.units import in_unit
from mlcost.workload import OperatorKind, OperatorRole, OperatorTable
from mlcost.workload.table import ELEMENTWISE_FLOPS, Operator

Number = Any
Mode = Literal["roofline", "no-overlap"]


@dataclass(frozen=True)
class OperatorTime:
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


@dataclass(frozen=True)
class Execution:
    """What an operator's time depends on besides the operator: the ceilings of each format the
    step computes in (key ``""``: the table's own), the software, the accelerator's names (for
    the measured kernels) and the combination mode."""

    ceilings: dict[str, Ceilings]
    software: Software | None = None
    accelerators: tuple[str, ...] = ()
    mode: Mode = "roofline"

    @property
    def main(self) -> Ceilings:
        return self.ceilings[""]

    def of(self, op: Operator) -> Ceilings:
        return self.ceilings.get(op.format, self.main)

    @cached_property
    def dispatch(self) -> float:
        """The software's per-op dispatch overhead in seconds (converted once)."""
        if self.software is None:
            return 0.0
        return float(in_unit(self.software.spec.dispatch_overhead, "s"))


def _gemm_compute(op: Operator, ceilings: Ceilings, grouped: bool = False) -> Number:
    """Each pass on its own output tiles and depth: forward ``[m x k]·[k x n]``, input gradient
    ``[m x n]·[n x k]``, weight gradient ``[k x m]·[m x n]``. A grouped GEMM (``grouped``, the
    ``gemm_group`` local experts of an MoE layer in one launch) fills the GPU's waves with the
    tiles of all its GEMMs together."""
    peak = ceilings.peak_flops
    batch = op.gemm_batch if any_true(np.asarray(op.gemm_batch)) else 1
    if grouped:
        batch = op.gemm_group
    attention = op.kind == OperatorKind.ATTENTION
    compute: Number = 0.0
    for part, layout, (rows, cols, depth) in (
        (op.forward_flops + op.recompute_flops, "nn", (op.m, op.n, op.k)),
        (op.backward_input_flops, "nt", (op.m, op.k, op.n)),
        (op.backward_weight_flops, "tn", (op.k, op.n, op.m)),
    ):
        if not any_true(part):
            continue
        shape = ceilings.gemm_wave_efficiency(rows, cols, batch) * ceilings.gemm_depth_efficiency(
            depth
        )
        efficiency = ceilings.gemm_efficiency(op.forward_flops, attention=attention, layout=layout)
        compute = compute + part / (peak * efficiency * shape)
    return compute


def attention_kernels(table: OperatorTable, ex: Execution) -> dict[str, tuple[Number, Kernel]]:
    """Per attention pattern, the seconds per execution of the measured fused kernel that
    replaces the attention core (empty when the table's attention is eager or no kernel of the
    implementation was measured on this GPU)."""
    config = table.metadata.get("config")
    if ex.software is None or config is None or config.attention != "flash":
        return {}
    kernel = ex.software.attention_kernel(ex.accelerators)
    if kernel is None:
        return {}
    accelerator = next(a for a in ex.accelerators if a in kernel.measured_on())
    causal = bool(table.metadata.get("causal", True))
    out: dict[str, tuple[Number, Kernel]] = {}
    for op in table.operators:
        if op.kind == OperatorKind.ATTENTION and op.name.startswith("attention scores QK^T"):
            seconds = attention_kernel_seconds(
                kernel, accelerator, 2 * op.forward_flops, head_dim=int(np.max(op.k)),
                causal=causal, sequence=op.m, recompute=op.recompute_fraction,
            )  # fmt: skip
            if seconds is not None:
                out[op.pattern] = (seconds, kernel)
    return out


def parameter_tensors(table: OperatorTable) -> float:
    """Parameter tensors of the model (one per operator row with parameters, per layer): what a
    for-loop optimizer dispatches its operations over (biases counted with their weights)."""
    micro = float(table.metadata.get("micro_batches", 1))
    return float(
        sum(
            np.max(op.count) / micro
            for op in table.operators
            if op.kind != OperatorKind.OPTIMIZER and any_true(np.asarray(op.parameters) > 0)
        )
    )


def operator_time(
    op: Operator, ex: Execution, kernels: dict[str, tuple[Number, Kernel]], tensors: float
) -> OperatorTime:
    """The time of one operator row per step (module docstring)."""
    ceilings = ex.of(op)
    software = ex.software
    bandwidth = ceilings.bandwidth_bytes * ceilings.memory_efficiency
    moved = op.bytes_moved
    kernel = kernels.get(op.pattern) if op.role == OperatorRole.ATTENTION_CORE else None
    host_ops: float = 1 + (any_true(op.backward_flops) or any_true(op.backward_bytes))
    host_ops = host_ops + op.recompute_fraction
    if kernel is not None:
        first = op.kind == OperatorKind.ATTENTION and op.name.startswith("attention scores QK^T")
        compute, memory = (kernel[0] if first else 0.0), 0.0
        host_ops = host_ops if first else 0
    elif software is not None and software.spec.fused_elementwise and _folded(op):
        compute, memory, host_ops = 0.0, 0.0, 0
    elif op.is_matmul:
        grouped = bool(
            any_true(np.asarray(op.gemm_group))
            and software is not None
            and software.spec.grouped_expert_gemm
        )
        compute, memory = _gemm_compute(op, ceilings, grouped), moved / bandwidth
        if grouped:  # one launch (and one dispatch) for the group's GEMMs
            host_ops = host_ops / op.gemm_group
    else:
        vector = ceilings.vector_flops
        efficiency = ceilings.vector_efficiency_of(op.kind, op.forward_flops)
        compute = op.total_flops / (vector * efficiency)
        memory = moved / bandwidth
        if op.kind == OperatorKind.OPTIMIZER and software is not None:
            memory = memory * software.spec.optimizer_passes
            host_ops = host_ops + software.spec.optimizer_ops_per_tensor * tensors
        loss = software.spec.cross_entropy if software is not None else None
        if op.kind == OperatorKind.LOSS and loss is not None:
            logits = op.forward_flops / ELEMENTWISE_FLOPS["cross-entropy"]
            forward = loss.forward_bytes * (1 + op.recompute_fraction)
            memory = logits * (forward + loss.backward_bytes) / bandwidth
            host_ops = float(loss.kernels)
    body = np.maximum(compute, memory) if ex.mode == "roofline" else compute + memory
    gaps = host_ops * ceilings.launch_seconds
    gpu = body + gaps
    total = np.maximum(gpu, host_ops * ex.dispatch)
    return OperatorTime(
        name=op.name, kind=op.kind, compute=compute * op.count, memory=memory * op.count,
        launch=(total - body) * op.count, total=total * op.count, gaps=gaps * op.count,
        host=host_ops * ex.dispatch * op.count,
    )  # fmt: skip


def _folded(op: Operator) -> bool:
    """Residual adds, folded into the bias-dropout-add (or GEMM epilogue) kernel before them."""
    return op.kind == OperatorKind.ELEMENTWISE and op.name.endswith("residual add")


__all__ = [
    "Execution",
    "OperatorTime",
    "attention_kernels",
    "operator_time",
    "parameter_tensors",
]
