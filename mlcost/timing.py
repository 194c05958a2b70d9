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
FLOPs per step over (step time x GPUs x dense peak), :func:`model_flops_utilization`; HFU counts
recomputation too (Chowdhery et al. 2022, appendix B). Steps, wall clock and GPU-hours of a
token budget are :func:`training_time`. The Iron Law of training, ``T = O / (R_peak · eta)``
(the textbook chapter, eq. iron-law), is :func:`iron_law`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pint

from mlcost.arrays import Real
from mlcost.checks import argument
from mlcost.errors import MlcostError
from mlcost.implementation import Software, SoftwareLike
from mlcost.implementation import implementation as implementation_of
from mlcost.layout import Layout
from mlcost.operator_time import (
    Execution,
    OperatorTime,
    attention_kernels_by_degree,
    bound_of,
    fused_groups,
    operator_rows,
    parameter_tensors,
)
from mlcost.records import Record, field
from mlcost.results import Figure, Result
from mlcost.roofline import Ceilings
from mlcost.specs import Accelerator, ModelSpec
from mlcost.specs.catalog import as_accelerator, as_model
from mlcost.systems import System
from mlcost.uncertainty import with_band
from mlcost.units import Q_, format_quantity, in_unit, magnitude_in
from mlcost.workload import OperatorTable, TrainingConfig, operators

if TYPE_CHECKING:
    import pandas as pd

Mode = Literal["roofline", "no-overlap"]
MODES: tuple[str, ...] = ("roofline", "no-overlap")

#: Where the MFU and HFU definitions come from.
MFU_SOURCE = "Chowdhery et al. 2022 (PaLM), appendix B"


def model_flops_utilization(model_flops: Real, seconds: Real, gpus: Real, peak: Real) -> Real:
    """MFU ``= model FLOPs per step / (step seconds x GPUs x dense peak FLOP/s)``, plain numbers
    (arrays welcome); with hardware FLOPs (recomputation included) it is HFU. Chowdhery et al.
    2022 (PaLM), appendix B. The one definition every step model uses."""
    return model_flops / (seconds * gpus * peak)


class TrainingTime(Record, frozen=True):
    """Steps, wall clock and GPU-hours for a token budget (plain arrays: steps, seconds,
    hours)."""

    steps: Real
    wall_seconds: Real
    gpu_hours: Real


def training_time(
    tokens: Real,
    tokens_per_step: Real,
    step_seconds: Real,
    gpus: Real,
    goodput: Real = 1.0,
) -> TrainingTime:
    """``steps = ceil(D / tokens per step)``, ``wall = steps x step time / goodput``,
    ``GPU-hours = GPUs x wall`` (the Iron Law of training counted in whole steps; goodput from
    the failure model, :func:`mlcost.checkpointing.goodput_plan`), on numbers or arrays; the one
    place time to train is computed. Divided as IEEE does: a step of no tokens or a goodput of
    0 gives an infinite time, not an error."""
    with np.errstate(divide="ignore", invalid="ignore"):
        steps = np.ceil(np.asarray(tokens, dtype=np.float64) / tokens_per_step)
        wall = steps * np.asarray(step_seconds, dtype=np.float64) / goodput
    return TrainingTime(steps=steps, wall_seconds=wall, gpu_hours=wall * gpus / 3600.0)


class TimeToTrain(Record, Result, frozen=True):
    """Time to train a token budget: steps, step time, wall clock, GPU-hours (and MFU)."""

    tokens: pint.Quantity
    tokens_per_step: int
    step_time: pint.Quantity
    steps: int
    wall_clock: pint.Quantity
    gpu_hours: pint.Quantity
    gpus: int
    goodput: float = 1.0
    mfu: float | None = None

    def title(self) -> str:
        return f"time to train {self.tokens.to('token').magnitude:.4g} tokens on {self.gpus} GPUs"

    def figures(self) -> list[Figure]:
        figures = [
            Figure(
                "steps",
                Q_(self.steps, "dimensionless"),
                "ceil(D / tokens per step)",
                f"ceil({self.tokens.to('token').magnitude:.6g} / {self.tokens_per_step:,})",
                "definition",
            ),
            Figure(
                "wall clock",
                self.wall_clock.to("day"),
                "steps x step time / goodput",
                f"{self.steps:,} x {self.step_time.to('s').magnitude:.4g} s / {self.goodput:.4g}",
                "the Iron Law of training, textbook chapter",
            ),
            Figure(
                "GPU-hours",
                self.gpu_hours,
                "GPUs x wall clock",
                f"{self.gpus} x {self.wall_clock.to('hour').magnitude:.6g} h",
                "definition",
            ),
        ]
        if self.mfu is not None:
            figures.append(
                Figure("MFU", Q_(self.mfu, "dimensionless").to("percent"), "", "", MFU_SOURCE)
            )
        return figures


def time_to_train(
    tokens: Any,
    tokens_per_step: int,
    step_time: Any,
    gpus: int,
    *,
    goodput: float = 1.0,
    mfu: float | None = None,
) -> TimeToTrain:
    """Time to train ``tokens`` (a count or a quantity in ``token``) at ``tokens_per_step`` per
    optimizer step of ``step_time`` (a quantity in seconds) on ``gpus`` GPUs, with the failure
    model's ``goodput`` (:func:`training_time`)."""
    count = magnitude_in(tokens, "token", "tokens", bare=True)
    seconds = magnitude_in(step_time, "s", "step_time")
    if not np.all(np.asarray(count) > 0) or not np.all(np.isfinite(count)):
        raise MlcostError(f"tokens: got {tokens!r}, expected a finite count > 0")
    result = training_time(count, tokens_per_step, seconds, gpus, goodput)
    return TimeToTrain(
        tokens=Q_(count, "token"),
        tokens_per_step=int(tokens_per_step),
        step_time=Q_(seconds, "s"),
        steps=int(np.max(result.steps)),
        wall_clock=Q_(result.wall_seconds, "s").to("day"),
        gpu_hours=Q_(result.gpu_hours, "hour"),
        gpus=int(gpus),
        goodput=float(goodput),
        mfu=mfu,
    )


class StepTime(Record, Result, frozen=True):
    """The predicted step on one GPU: per-operator times, totals, MFU and HFU."""

    table: OperatorTable
    ceilings: Ceilings
    mode: Mode
    rows: tuple[OperatorTime, ...]
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def seconds(self) -> Real:
        """The step in seconds, a plain number (array in sweeps)."""
        total: Real = 0
        for row in self.rows:
            total = total + row.total
        return total

    @property
    def total(self) -> pint.Quantity:
        return Q_(self.seconds, "s").to("ms")

    def mfu(self) -> Real:
        """Model FLOPs utilization of the predicted step (:func:`model_flops_utilization`)."""
        flops = in_unit(self.table.model_flops, "flop")
        return model_flops_utilization(flops, self.seconds, 1, self._peak())

    def hfu(self) -> Real:
        """Hardware FLOPs utilization (recomputation counted)."""
        flops = in_unit(self.table.hardware_flops, "flop")
        return model_flops_utilization(flops, self.seconds, 1, self._peak())

    def _peak(self) -> float:
        return float(in_unit(self.ceilings.peak, "flop/s"))

    def title(self) -> str:
        return f"step time on {self.ceilings.name} ({self.mode}): {self.table.description}"

    def figures(self) -> list[Figure]:
        """The step, its parts by bottleneck, MFU and HFU, each with the numbers put in."""
        c = self.ceilings
        compute = sum(float(np.sum(r.compute)) for r in self.rows)
        memory = sum(float(np.sum(r.memory)) for r in self.rows)
        launch = sum(float(np.sum(r.launch)) for r in self.rows)
        combine = "max(compute, memory)" if self.mode == "roofline" else "compute + memory"
        peaks = (
            f"{len(self.rows)} operators; peak {format_quantity(c.peak.to('TFLOP/s'))} "
            f"{c.format}, {format_quantity(c.bandwidth)}, launch "
            f"{format_quantity(c.launch_overhead)} per kernel"
        )
        roofline = "Williams et al. 2009 (roofline); ceilings: " + c.source
        flops = in_unit(self.table.model_flops, "flop")
        touch = sum(float(np.sum(r.first_touch)) for r in self.rows)
        host = []
        if touch:  # a host-executed device's page faults (mlcost.operator_time)
            host.append(
                Figure(
                    "first touch",
                    Q_(touch, "s").to("ms"),
                    "fresh buffers at or above the mmap threshold x bytes / first-touch rate",
                    f"{touch * 1e3:.4g} ms of the step at "
                    f"{c.first_touch_bandwidth / 1e9:.3g} GB/s, buffers of "
                    f"{c.mmap_threshold / 2**20:.4g} MiB or more",
                    "first-touch rate measured on this machine by mlcost bench; threshold: "
                    "glibc mallopt(3), M_MMAP_THRESHOLD (DEFAULT_MMAP_THRESHOLD_MAX); " + c.source,
                )
            )
        return [
            with_band(
                Figure(
                    "step time",
                    self.total,
                    f"sum over operators of {combine} + launches",
                    f"{peaks}; compute {compute * 1e3:.4g} ms, memory {memory * 1e3:.4g} ms, "
                    f"launch {launch * 1e3:.4g} ms (each summed alone)",
                    roofline,
                )
            ),
            Figure(
                "MFU",
                Q_(self.mfu(), "dimensionless").to("percent"),
                "model FLOPs / (step time x peak)",
                f"{np.max(flops):.4g} FLOP / ({np.max(self.seconds):.4g} s x "
                f"{self._peak():.4g} FLOP/s)",
                MFU_SOURCE,
            ),
            Figure(
                "HFU",
                Q_(self.hfu(), "dimensionless").to("percent"),
                "hardware FLOPs (recomputation counted) / (step time x peak)",
                "",
                MFU_SOURCE,
            ),
            *host,
        ]

    def by_kind(self) -> pd.DataFrame:
        """Seconds per step by operator kind, with the bottleneck of each kind."""
        import pandas as pd

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
        frame["bound"] = bound_of(frame["compute_s"], frame["memory_s"])
        frame["share"] = frame["time_s"] / frame["time_s"].sum()
        return frame.sort_values("time_s", ascending=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per operator: compute, memory, launch and total seconds per step, bound."""
        import pandas as pd

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

    def plot(self, ax: Any = None, *, gpus: Any = None) -> Any:
        """The operators of this step on the roofline (:func:`mlcost.plot.roofline`)."""
        from mlcost import plot

        return plot.roofline(gpus or [], self, format=self.ceilings.format, ax=ax)


def operator_times(
    table: OperatorTable,
    ceilings: Ceilings | dict[str, Ceilings],
    mode: Mode = "roofline",
    *,
    software: Software | None = None,
    accelerators: tuple[str, ...] = (),
    shard: tuple[int, int] = (1, 1),
) -> StepTime:
    """Place every operator of ``table`` on the roofline of ``ceilings`` (one, or one per format
    with ``""`` the table's own), under ``software`` (:mod:`mlcost.operator_time`), the GEMMs
    at the shapes one of ``shard = (t, c)`` tensor- and context-parallel ranks runs."""
    return operator_times_by_shard(
        table, ceilings, (shard,), mode, software=software, accelerators=accelerators
    )[0]


def operator_times_by_shard(
    table: OperatorTable,
    ceilings: Ceilings | dict[str, Ceilings],
    shards: Sequence[tuple[int, int]],
    mode: Mode = "roofline",
    *,
    software: Software | None = None,
    accelerators: tuple[str, ...] = (),
) -> list[StepTime]:
    """:func:`operator_times` at each of ``shards`` (``(t, c)`` pairs), in one evaluation: the
    GEMMs of every shard in one array call, the rows no shard changes timed once
    (:func:`mlcost.operator_time.operator_rows`), the measured attention kernel looked up once
    per tensor-parallel degree (its launch size is ``1/t`` of the heads)."""
    if mode not in MODES:
        raise MlcostError(f"mode: got {mode!r}, expected 'roofline' or 'no-overlap'")
    if not shards:
        return []
    by_format = ceilings if isinstance(ceilings, dict) else {"": ceilings}
    fused = fused_groups(
        table.operators,
        software,
        bool(table.metadata.get("fused_qkv")),
        bool(table.metadata.get("fused_projections")),
    )
    names = accelerators or (by_format[""].name,)
    grouped = bool(table.metadata.get("grouped_experts"))
    executions = [
        Execution(
            by_format, software, names, mode, shard=shard, fused=fused, grouped_experts=grouped
        )
        for shard in shards
    ]
    # The kernels depend on t only: each degree's, all looked up together.
    degrees = list(dict.fromkeys(ex.shard[0] for ex in executions))
    by_degree = attention_kernels_by_degree(table, executions[0], degrees)
    kernels = [by_degree[ex.shard[0]] for ex in executions]
    # Only a for-loop optimizer dispatches per parameter tensor (0 operations per tensor
    # otherwise, so the count is not needed).
    per_tensor = software is not None and software.spec.optimizer_ops_per_tensor
    tensors = parameter_tensors(table, fused) if per_tensor else 0.0
    details: dict[str, Any] = {}
    if software is not None:
        details["implementation"] = software.describe()
    out = []
    for rows, found in zip(
        operator_rows(table.operators, executions, kernels, tensors), kernels, strict=True
    ):
        shown = dict(details)
        if found:
            shown["attention_kernel"] = next(iter(found.values()))[1].name
        out.append(
            StepTime(table=table, ceilings=by_format[""], mode=mode, rows=rows, details=shown)
        )
    return out


def step_ceilings(gpu: Accelerator | System, config: TrainingConfig) -> dict[str, Ceilings]:
    """The ceilings of each format a step computes in: the policy's, and the high-precision
    format of its heads and attention under an FP8 recipe (a system's, built once per format;
    an accelerator's, built here)."""

    def of(format: str) -> Ceilings:
        if isinstance(gpu, System):
            return gpu.ceilings(format)
        return Ceilings.from_accelerator(gpu, format)

    policy = config.policy
    ceilings = {"": of(policy.compute_format)}
    if policy.layer_gemms_only:
        ceilings[policy.high_precision_format] = of(policy.high_precision_format)
    return ceilings


def accelerator_names(gpu: Accelerator) -> tuple[str, ...]:
    """The names measurements of ``gpu`` may be filed under: its own, and the catalog GPU a
    calibrated profile was measured on (not for a profile fitted from a profiled run, whose
    own fits replace them)."""
    based_on = gpu.measured.based_on if gpu.measured is not None else None
    if gpu.measured is not None and gpu.measured.trace is not None:
        # fitted from the user's own run: its attention and kernels are this software's, not
        # the ones measured on the base GPU under another software
        return (gpu.name,)
    return (gpu.name, based_on) if based_on else (gpu.name,)


def step_time(
    model: ModelSpec | str,
    config: TrainingConfig,
    gpu: Accelerator | Ceilings | System | str,
    layout: Layout | None = None,
    *,
    mode: Mode = "roofline",
    micro_batch_size: Real | None = None,
    sequence_length: Real | None = None,
    implementation: SoftwareLike = None,
    shard: tuple[int, int] = (1, 1),
) -> StepTime:
    """Predicted time of one training step of ``model`` on one ``gpu`` (specs, catalog names or
    a calibrated profile; or given ceilings): the ``layout``'s micro-batches and recomputation, the
    whole model on one GPU (the multi-GPU step is :func:`mlcost.parallel.multi_gpu_step_time`),
    run by ``implementation`` (default :data:`mlcost.implementation.DEFAULT_IMPLEMENTATION`).

    ``micro_batch_size`` / ``sequence_length`` may be numpy arrays (a sweep in one call).
    ``shard = (t, c)`` times each GEMM at the efficiency of the shape one of ``t`` tensor- and
    ``c`` context-parallel ranks runs (:func:`mlcost.operator_time.shard_shapes`), its FLOPs
    still the whole model's: what :func:`mlcost.parallel.compute.compute_parts` divides.
    """
    return step_times(
        model,
        config,
        gpu,
        layout,
        (shard,),
        mode=mode,
        micro_batch_size=micro_batch_size,
        sequence_length=sequence_length,
        implementation=implementation,
    )[0]


def step_times(
    model: ModelSpec | str,
    config: TrainingConfig,
    gpu: Accelerator | Ceilings | System | str,
    layout: Layout | None,
    shards: Sequence[tuple[int, int]],
    *,
    mode: Mode = "roofline",
    micro_batch_size: Real | None = None,
    sequence_length: Real | None = None,
    implementation: SoftwareLike = None,
) -> list[StepTime]:
    """:func:`step_time` at each of ``shards`` (``(t, c)`` pairs), the operator table built
    once: it does not depend on how the ranks split the GEMMs, only their times do."""
    config = argument(config, TrainingConfig, "config")
    table = operators(
        as_model(model),
        config,
        layout,
        micro_batch_size=micro_batch_size,
        sequence_length=sequence_length,
        implementation=implementation_of(implementation).spec,
    )
    return table_step_times(table, config, gpu, shards, mode=mode, implementation=implementation)


def table_step_times(
    table: OperatorTable,
    config: TrainingConfig,
    gpu: Accelerator | Ceilings | System | str,
    shards: Sequence[tuple[int, int]],
    *,
    mode: Mode = "roofline",
    implementation: SoftwareLike = None,
) -> list[StepTime]:
    """:func:`step_times` of an operator table already built (:func:`mlcost.workload.operators`
    under ``config``): the step of ``table`` on ``gpu`` (an accelerator, the one of a resolved
    system, or given ceilings) at each of ``shards``."""
    software = implementation_of(implementation)
    if isinstance(gpu, Ceilings):
        return operator_times_by_shard(table, gpu, shards, mode, software=software)
    target = gpu if isinstance(gpu, System) else as_accelerator(gpu)
    accelerator = target.accelerator if isinstance(target, System) else target
    ceilings, names = step_ceilings(target, config), accelerator_names(accelerator)
    return operator_times_by_shard(
        table, ceilings, shards, mode, software=software, accelerators=names
    )


class IronLaw(Record, Result, frozen=True):
    """``T = O / (R_peak · eta)``: operations, peak rate, efficiency, and the time."""

    operations: pint.Quantity
    peak: pint.Quantity
    efficiency: Real

    @property
    def effective_rate(self) -> pint.Quantity:
        return (self.peak * self.efficiency).to("TFLOP/s")

    @property
    def time(self) -> pint.Quantity:
        return (self.operations / (self.peak * self.efficiency)).to("s")

    def title(self) -> str:
        return "Iron Law of training"

    def figures(self) -> list[Figure]:
        return [
            Figure(
                "time",
                self.time,
                "T = O / (R_peak x eta)",
                f"{self.operations.to('flop').magnitude:.4g} FLOP / "
                f"({self.peak.to('TFLOP/s').magnitude:g} TFLOP/s x {self.efficiency})",
                "Iron Law of training, textbook chapter",
            )
        ]


def iron_law(operations: Any, peak: Any, efficiency: Real = 1.0) -> IronLaw:
    """The Iron Law of training with its three terms inspectable: ``operations`` in FLOP,
    ``peak`` in FLOP/s, ``efficiency`` a fraction in (0, 1]."""
    flops = magnitude_in(operations, "flop", "operations")
    rate = magnitude_in(peak, "flop/s", "peak")
    eta = np.asarray(efficiency, dtype=np.float64)
    if np.any(~np.isfinite(eta)) or np.any(eta <= 0) or np.any(eta > 1):
        raise MlcostError(f"efficiency: got {efficiency!r}, expected a fraction in (0, 1]")
    return IronLaw(
        operations=Q_(flops, "flop"), peak=Q_(rate, "flop/s").to("TFLOP/s"), efficiency=efficiency
    )
