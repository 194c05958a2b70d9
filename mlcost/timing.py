"""How long a training step takes, and why: every operator on the roofline, summed.

Per operator and step (``count`` executions), with ceilings from :class:`mlcost.roofline.Ceilings`:

* FLOPs ``F`` = forward + backward + recomputed forward; bytes ``B`` = forward reads and writes,
  backward traffic, and the recomputed forward's traffic;
* compute time ``F / (peak · eta_c · w)`` for GEMM-like operators on the tensor cores, with ``w``
  the wave-quantization efficiency of their output tiles; ``F / (vector peak · eta_v)`` for the
  rest; memory time ``B / (bandwidth · eta_m)``;
* ``roofline`` mode: ``max(compute, memory)`` per operator (perfect overlap inside a kernel,
  the lower bound); ``no-overlap`` mode: ``compute + memory`` (the upper bound); both plus one
  launch overhead per kernel (forward, backward, recomputation).

The step time is the sum over operators (one stream, no overlap between kernels). MFU is model
FLOPs per step over (step time x dense peak); HFU counts recomputation too (Chowdhery et al.
2022, appendix B). The Iron Law of training, ``T = O / (R_peak · eta)`` (the textbook chapter,
eq. iron-law), is :func:`iron_law`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import pint

from mlcost.errors import MlcostError
from mlcost.roofline import Ceilings
from mlcost.specs import Accelerator, Spec, TransformerSpec
from mlcost.units import Q_
from mlcost.workload import OperatorTable, TrainingConfig, operators, transformer_operators

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

    @property
    def bound(self) -> Any:
        """``"compute"`` or ``"memory"``, whichever time is larger."""
        return np.where(np.asarray(self.compute) >= np.asarray(self.memory), "compute", "memory")


@dataclass(frozen=True)
class StepTime:
    """The predicted step: per-operator times, totals, MFU and HFU."""

    table: OperatorTable
    ceilings: Ceilings
    mode: Mode
    rows: tuple[OperatorTime, ...]
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> pint.Quantity:
        total: Number = 0
        for row in self.rows:
            total = total + row.total
        return Q_(total, "s").to("ms")

    def mfu(self) -> Number:
        """Model FLOPs utilization of the predicted step."""
        flops = self.table.model_flops.to("flop").magnitude
        return flops / (self.total.to("s").magnitude * self.ceilings.peak.to("flop/s").magnitude)

    def hfu(self) -> Number:
        """Hardware FLOPs utilization (recomputation counted)."""
        flops = self.table.hardware_flops.to("flop").magnitude
        return flops / (self.total.to("s").magnitude * self.ceilings.peak.to("flop/s").magnitude)

    def by_kind(self) -> pd.DataFrame:
        """Seconds per step by operator kind, with the bottleneck of each kind."""
        records: dict[str, dict[str, float]] = {}
        for row in self.rows:
            entry = records.setdefault(
                row.kind, {"compute_s": 0.0, "memory_s": 0.0, "launch_s": 0.0, "time_s": 0.0}
            )
            entry["compute_s"] += float(np.sum(row.compute))
            entry["memory_s"] += float(np.sum(row.memory))
            entry["launch_s"] += float(np.sum(row.launch))
            entry["time_s"] += float(np.sum(row.total))
        frame = pd.DataFrame.from_dict(records, orient="index")
        frame["bound"] = np.where(frame["compute_s"] >= frame["memory_s"], "compute", "memory")
        frame["share"] = frame["time_s"] / frame["time_s"].sum()
        return frame.sort_values("time_s", ascending=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per operator: compute, memory, launch and total seconds per step, bound."""
        return pd.DataFrame(
            [
                {
                    "name": r.name,
                    "kind": r.kind,
                    "compute_s": r.compute,
                    "memory_s": r.memory,
                    "launch_s": r.launch,
                    "time_s": r.total,
                    "bound": str(r.bound),
                }
                for r in self.rows
            ]
        )

    def _repr_html_(self) -> str:
        return (
            f"<p>step {float(np.max(self.total.magnitude)):.2f} ms, MFU "
            f"{float(np.max(self.mfu())):.1%}</p>" + self.by_kind().to_html()
        )


def operator_times(table: OperatorTable, ceilings: Ceilings, mode: Mode = "roofline") -> StepTime:
    """Place every operator of ``table`` on the roofline of ``ceilings`` (module docstring)."""
    if mode not in ("roofline", "no-overlap"):
        raise MlcostError(f"mode: got {mode!r}, expected 'roofline' or 'no-overlap'")
    peak = ceilings.peak.to("flop/s").magnitude
    vector = ceilings.vector_peak.to("flop/s").magnitude
    bandwidth = ceilings.bandwidth.to("byte/s").magnitude * ceilings.memory_efficiency
    launch = ceilings.launch_overhead.to("s").magnitude
    rows = []
    for op in table.operators:
        flops = op.forward_flops + op.backward_flops + op.recompute_flops
        moved = op.bytes_read + op.bytes_written + op.backward_bytes
        moved = moved + (op.bytes_read + op.bytes_written) * op.recompute_fraction
        if op.is_matmul:
            batch = op.gemm_batch if np.any(np.asarray(op.gemm_batch)) else 1
            waves = ceilings.gemm_wave_efficiency(op.m, op.n, batch)
            attention = op.kind == "attention"

            compute = 0.0
            for part, layout in (
                (op.forward_flops + op.recompute_flops, "nn"),
                (op.backward_input_flops, "nt"),
                (op.backward_weight_flops, "tn"),
            ):
                efficiency = ceilings.gemm_efficiency(
                    op.forward_flops, attention=attention, layout=layout
                )
                compute = compute + part / (peak * efficiency * waves)
        else:
            compute = flops / (vector * ceilings.vector_efficiency_of(op.kind, op.forward_flops))
        memory = moved / bandwidth
        has_backward = bool(np.any(op.backward_flops) or np.any(op.backward_bytes))
        kernels = 1 + has_backward + op.recompute_fraction
        launch_time = kernels * launch
        body = np.maximum(compute, memory) if mode == "roofline" else compute + memory
        rows.append(
            OperatorTime(
                name=op.name,
                kind=op.kind,
                compute=compute * op.count,
                memory=memory * op.count,
                launch=launch_time * op.count,
                total=(body + launch_time) * op.count,
            )
        )
    return StepTime(table=table, ceilings=ceilings, mode=mode, rows=tuple(rows))


def step_time(
    model: Spec,
    config: TrainingConfig,
    gpu: Accelerator | Ceilings,
    *,
    mode: Mode = "roofline",
    micro_batch_size: Number | None = None,
    sequence_length: Number | None = None,
) -> StepTime:
    """Predicted time of one training step of ``model`` on one ``gpu`` (or given ceilings).

    ``micro_batch_size`` / ``sequence_length`` may be numpy arrays (a sweep in one call).
    """
    ceilings = (
        gpu
        if isinstance(gpu, Ceilings)
        else Ceilings.from_accelerator(gpu, config.policy.compute_format)
    )
    if isinstance(model, TransformerSpec):
        table = transformer_operators(
            model, config, micro_batch_size=micro_batch_size, sequence_length=sequence_length
        )
    else:
        table = operators(model, config)
    return operator_times(table, ceilings, mode)


@dataclass(frozen=True)
class IronLaw:
    """``T = O / (R_peak · eta)``: operations, peak rate, efficiency, and the time."""

    operations: pint.Quantity
    peak: pint.Quantity
    efficiency: Number

    @property
    def effective_rate(self) -> pint.Quantity:
        return (self.peak * self.efficiency).to("TFLOP/s")

    @property
    def time(self) -> pint.Quantity:
        return (self.operations / (self.peak * self.efficiency)).to("s")

    def explain(self) -> str:
        return (
            f"T = O / (R_peak x eta) = {self.operations.to('flop').magnitude:.4g} FLOP / "
            f"({self.peak.to('TFLOP/s').magnitude:g} TFLOP/s x {self.efficiency}) = "
            f"{self.time.to('s').magnitude:.6g} s  [Iron Law of training, textbook chapter]"
        )


def iron_law(operations: pint.Quantity, peak: pint.Quantity, efficiency: Number = 1.0) -> IronLaw:
    """The Iron Law of training with its three terms inspectable."""
    return IronLaw(operations=operations.to("flop"), peak=peak.to("TFLOP/s"), efficiency=efficiency)


def time_to_train(
    model: Spec,
    config: TrainingConfig,
    gpu: Accelerator | Ceilings,
    *,
    tokens: Number | None = None,
    steps: Number | None = None,
    gpus: int = 1,
) -> dict[str, pint.Quantity]:
    """Time to train for a token or step budget on ``gpus`` GPUs (single node, data parallel,
    no communication cost yet: the communication issue adds it). Returns the step time, the
    number of steps, the wall-clock time and the GPU-hours."""
    if (tokens is None) == (steps is None):
        raise MlcostError("time_to_train: give exactly one of tokens or steps")
    step = step_time(model, config, gpu)
    tokens_per_step = config.tokens_per_step * gpus
    n_steps = steps if steps is not None else np.ceil(_magnitude(tokens, "token") / tokens_per_step)
    wall = (step.total * n_steps).to("day")
    return {
        "step time": step.total,
        "steps": Q_(n_steps, "dimensionless"),
        "wall clock": wall,
        "GPU-hours": (wall * gpus).to("hour"),
        "MFU": Q_(step.mfu(), "dimensionless"),
    }


def _magnitude(value: Number, unit: str) -> Number:
    return value.to(unit).magnitude if isinstance(value, pint.Quantity) else value
