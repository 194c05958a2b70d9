"""A profiled training step against mlcost's prediction, and a profile fitted from it.

:func:`compare_trace` puts a trace's measured time per class (:mod:`mlcost.trace`) beside the
predicted step of the same run (:func:`mlcost.timing.step_time`): each operator row's body
(``max(compute, memory)``) goes to its kind, its launch and host gaps to ``idle``; and the peak
memory the trace's ``[memory]`` events (or ``torch.cuda.max_memory_*``) saw beside the predicted
breakdown (:func:`mlcost.memory.memory_breakdown`: allocated is the total less the CUDA context
and fragmentation, reserved the total less the context).

:func:`calibrate_from_trace` fits, from one run, a profile in the schema ``mlcost calibrate``
writes (:class:`mlcost.specs.Accelerator` with its ``measured`` block):

1. **GEMMs by shape.** Every ``aten::mm``/``addmm``/``bmm`` call of the trace (its kernels'
   time, its FLOPs ``2·m·n·k`` from the recorded input shapes) is one point of the achieved
   share of the datasheet peak, per operand layout (``addmm`` and a forward ``mm``: ``nn``; a
   backward ``mm`` contracting over the tokens: ``tn``, the weight gradient; other backward
   ``mm``: ``nt``, the input gradient); the points, averaged per size, are made non-decreasing
   in FLOPs (:func:`mlcost.calibrate.isotonic_increasing`), as ``mlcost calibrate`` fits its
   microbenchmarks.
2. **Attention and the memory-bound kinds.** With the GEMM curves in place and every other
   efficiency at 1 (the datasheet roofline), the step is predicted once; each class's
   efficiency is then ``predicted body / measured time`` (time is inversely proportional to
   it): attention as a share of the tensor peak (``attention_efficiency``), norms,
   activations, element-wise, embedding, loss, softmax and the optimizer as a share of the
   datasheet bandwidth (``kind_memory_efficiency``), refined where a class is partly
   compute-bound until its predicted time meets the measured one (:func:`_refined_shares`).
3. **Gaps.** The launch overhead that makes the predicted gaps equal the measured idle time.
4. **Memory.** The allocator fragmentation ``peak reserved / peak allocated - 1``.

Every fitted efficiency is bounded to :data:`EFFICIENCY_BOUNDS` (nothing above the datasheet
peak), the launch overhead to :data:`LAUNCH_BOUNDS`, the fragmentation to
:data:`FRAGMENTATION_BOUNDS`; a value outside is set to the bound and named in the warnings.
A trace that cannot support a fit (no GEMM, or GEMM FLOPs that do not match the described
model within :data:`MATCH_TOLERANCE`) is refused with a one-line :class:`MlcostError`.

Fitting on one run and predicting others is the leave-one-out use the validation shows
(``benchmarks/trace_calibration_gpu.py``, docs/validation.md); fitting on the rows one then
reports as predictions is not.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mlcost.calibrate import (
    EFFICIENCY_BOUNDS,
    LAUNCH_BOUNDS,
    host_profile_fields,
    isotonic_increasing,
)
from mlcost.errors import MlcostError
from mlcost.implementation import SoftwareLike
from mlcost.implementation import implementation as implementation_of
from mlcost.layout import Layout
from mlcost.memory import memory_breakdown
from mlcost.operator_time import recomputed_rows
from mlcost.results import Figure, Result
from mlcost.specs import (
    Accelerator,
    Implementation,
    ModelSpec,
    as_accelerator,
    as_model,
    spec_from_dict,
)
from mlcost.timing import StepTime, step_ceilings, step_time
from mlcost.trace import TRACE_CLASSES, Trace, Work, read_trace
from mlcost.units import Q_, format_quantity, in_unit
from mlcost.validate import UNALLOCATED_TERMS
from mlcost.workload import OperatorRole, TrainingConfig, operators

if TYPE_CHECKING:
    import pandas as pd

#: Bounds of the fitted allocator fragmentation (``Overheads.fragmentation``'s own range).
FRAGMENTATION_BOUNDS = (0.0, 0.99)
#: A trace whose GEMM FLOPs per step differ from the described model's by more than this
#: share is not a run of that model (a different size, batch or recomputation).
MATCH_TOLERANCE = 0.25
#: Operator kinds of the table that the trace's classes hold.
ROW_CLASS = {"conv": "matmul", "dropout": "elementwise", "pool": "elementwise"}
#: The memory-bound classes whose bandwidth share is fitted.
MEMORY_CLASSES = ("softmax", "norm", "activation", "elementwise", "embedding", "loss", "optimizer")


def predicted_class_seconds(step: StepTime) -> dict[str, float]:
    """Per class of :data:`mlcost.trace.TRACE_CLASSES`, the predicted seconds of a step: each
    row's body (its time less launch and host gaps) in its kind's class (the attention core's
    softmax in ``attention`` where a fused kernel runs it), the gaps in ``idle``."""
    classes = dict.fromkeys(TRACE_CLASSES, 0.0)
    core = {op.name for op in step.table.operators if op.role == OperatorRole.ATTENTION_CORE}
    fused = step.table.metadata.get("config") is not None and (
        step.table.metadata["config"].attention == "flash"
    )
    for row in step.rows:
        kind = ROW_CLASS.get(str(row.kind), str(row.kind))
        if fused and row.name in core:  # a fused attention kernel runs the whole core
            kind = "attention"
        if kind not in classes:  # checkpoint rows carry no time
            continue
        launch = float(np.asarray(row.launch))
        classes[kind] += float(np.asarray(row.total)) - launch
        classes["idle"] += launch
    return classes


@dataclass(frozen=True)
class TraceComparison(Result):
    """A measured step (a profiler trace) beside mlcost's prediction of it, per class and for
    the whole step, time and peak memory (module docstring). Seconds and bytes are plain
    numbers in the fields; :meth:`figures` gives them as quantities."""

    label: str
    gpu: str
    measured: dict[str, float]
    predicted: dict[str, float]
    measured_step: float
    predicted_step: float
    step_source: str
    measured_allocated: float | None = None
    predicted_allocated: float | None = None
    measured_reserved: float | None = None
    predicted_reserved: float | None = None
    source: str = ""

    def title(self) -> str:
        return f"{self.label} on {self.gpu}: measured (trace) against predicted"

    @property
    def step_error(self) -> float:
        """``predicted / measured - 1`` of the whole step."""
        return self.predicted_step / self.measured_step - 1

    @property
    def memory_error(self) -> float | None:
        """``predicted / measured - 1`` of the peak allocated memory (None unmeasured)."""
        if not self.measured_allocated or self.predicted_allocated is None:
            return None
        return self.predicted_allocated / self.measured_allocated - 1

    def shares(self) -> dict[str, tuple[float, float]]:
        """Per class, (measured, predicted) share of its step."""
        return {
            kind: (
                self.measured[kind] / self.measured_step,
                self.predicted[kind] / self.predicted_step,
            )
            for kind in TRACE_CLASSES
        }

    def figures(self) -> list[Figure]:
        out = [
            Figure(
                name="step time",
                value=Q_(self.predicted_step, "s").to("ms"),
                formula="sum over operator rows of max(compute, memory) + gaps",
                substituted=f"measured {self.measured_step * 1e3:.2f} ms ({self.step_source}); "
                f"error {self.step_error:+.1%}",
                source=self.source,
            )
        ]
        for kind in TRACE_CLASSES:
            measured, predicted = self.measured[kind], self.predicted[kind]
            if not (measured or predicted):
                continue
            out.append(
                Figure(
                    name=f"{kind} time",
                    value=Q_(predicted, "s").to("ms"),
                    formula=(
                        "launch and host gaps"
                        if kind == "idle"
                        else "rows of this kind: max(compute, memory)"
                    ),
                    substituted=f"measured {measured * 1e3:.2f} ms in the trace",
                    source=self.source,
                )
            )
        if self.predicted_allocated is not None and self.measured_allocated:
            out.append(
                Figure(
                    name="peak allocated memory",
                    value=Q_(self.predicted_allocated, "B").to("GiB"),
                    formula="memory breakdown total - CUDA context - fragmentation",
                    substituted=f"measured {self.measured_allocated / 2**30:.2f} GiB "
                    "(the trace's [memory] events)",
                    source=self.source,
                )
            )
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per class and one for the step: measured and predicted ms, the error and
        each one's share of its step."""
        import pandas as pd

        rows = []
        shares = self.shares()
        for kind in TRACE_CLASSES:
            measured, predicted = self.measured[kind], self.predicted[kind]
            if not (measured or predicted):
                continue
            rows.append(
                {
                    "class": kind,
                    "measured ms": measured * 1e3,
                    "predicted ms": predicted * 1e3,
                    "error": predicted / measured - 1 if measured else math.nan,
                    "measured share": shares[kind][0],
                    "predicted share": shares[kind][1],
                }
            )
        rows.append(
            {
                "class": "step",
                "measured ms": self.measured_step * 1e3,
                "predicted ms": self.predicted_step * 1e3,
                "error": self.step_error,
                "measured share": 1.0,
                "predicted share": 1.0,
            }
        )
        return pd.DataFrame(rows)

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title(),
            "gpu": self.gpu,
            "step": {
                "measured_s": self.measured_step,
                "predicted_s": self.predicted_step,
                "error": self.step_error,
                "measured_source": self.step_source,
            },
            "classes": {
                kind: {"measured_s": self.measured[kind], "predicted_s": self.predicted[kind]}
                for kind in TRACE_CLASSES
            },
            "memory": {
                "measured_allocated_bytes": self.measured_allocated,
                "predicted_allocated_bytes": self.predicted_allocated,
                "measured_reserved_bytes": self.measured_reserved,
                "predicted_reserved_bytes": self.predicted_reserved,
                "error": self.memory_error,
            },
            "source": self.source,
        }

    def plot(self, ax: Any = None) -> Any:
        """Measured and predicted step, stacked by class (ms), one bar each."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(7.5, 4.5))
        kinds = [k for k in TRACE_CLASSES if self.measured[k] or self.predicted[k]]
        colors = plt.get_cmap("tab10")
        bottoms = [0.0, 0.0]
        for index, kind in enumerate(kinds):
            heights = [self.measured[kind] * 1e3, self.predicted[kind] * 1e3]
            ax.bar([0, 1], heights, bottom=bottoms, width=0.55, label=kind, color=colors(index))
            bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
        ax.set_xticks([0, 1], ["measured (trace)", "predicted (mlcost)"])
        ax.set_ylabel("time per step (ms)")
        ax.set_title(f"{self.label}: step {self.step_error:+.1%} ({self.gpu})", fontsize=10)
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8, title="class")
        ax.figure.tight_layout()
        return ax

    def text(self) -> str:
        """The comparison as a plain table (what the CLI prints)."""
        frame = self.to_frame()
        lines = [
            self.title(),
            f"{'class':<13}{'measured ms':>13}{'predicted ms':>14}{'error':>9}"
            f"{'share meas.':>13}{'share pred.':>13}",
        ]
        for _, row in frame.iterrows():
            error = "" if math.isnan(row["error"]) else f"{row['error']:+.1%}"
            lines.append(
                f"{row['class']:<13}{row['measured ms']:>13.2f}{row['predicted ms']:>14.2f}"
                f"{error:>9}{row['measured share']:>13.1%}{row['predicted share']:>13.1%}"
            )
        if self.memory_error is not None and self.measured_allocated is not None:
            lines.append(
                f"peak allocated: measured {self.measured_allocated / 2**30:.2f} GiB, predicted "
                f"{(self.predicted_allocated or 0) / 2**30:.2f} GiB ({self.memory_error:+.1%})"
            )
        if self.measured_reserved and self.predicted_reserved:
            reserved_error = self.predicted_reserved / self.measured_reserved - 1
            lines.append(
                f"peak reserved: measured {self.measured_reserved / 2**30:.2f} GiB, predicted "
                f"{self.predicted_reserved / 2**30:.2f} GiB ({reserved_error:+.1%})"
            )
        return "\n".join(lines)


def _trace_of(trace: Trace | str | Path, model: ModelSpec) -> Trace:
    """The trace, read where given as a file, with the element-wise work on the logits (a
    tensor whose last dimension is the model's vocabulary: the FP32 cast before the loss and
    its gradient's cast back) in ``loss``, where the operator table counts it
    (``Implementation.cross_entropy``)."""
    found = trace if isinstance(trace, Trace) else read_trace(trace)
    vocabulary = getattr(model, "vocab_size", None)
    if not vocabulary:
        return found

    def on_logits(piece: Work) -> bool:
        return piece.kind == "elementwise" and any(
            isinstance(d, list) and d and d[-1] == vocabulary for d in piece.dims
        )

    work = tuple(
        dataclasses.replace(piece, kind="loss") if on_logits(piece) else piece
        for piece in found.work
    )
    return dataclasses.replace(found, work=work)


def compare_trace(
    trace: Trace | str | Path,
    model: ModelSpec | str,
    config: TrainingConfig,
    gpu: Accelerator | str,
    layout: Layout | None = None,
    *,
    implementation: SoftwareLike = None,
    step_seconds: float | None = None,
    label: str | None = None,
) -> TraceComparison:
    """The measured step of ``trace`` (a :class:`mlcost.trace.Trace` or its file) against the
    predicted step of ``model`` under ``config`` and ``layout`` on ``gpu`` (module docstring).
    ``step_seconds``: the step time measured without the profiler (the profiler slows the
    host, so the trace's own step is longer); the idle class is then what it leaves beyond
    the kernels."""
    spec, accelerator, layout = as_model(model), as_accelerator(gpu), layout or Layout()
    measured_trace = _trace_of(trace, spec)
    predicted = step_time(spec, config, accelerator, layout, implementation=implementation)
    classes = predicted_class_seconds(predicted)
    measured = measured_trace.class_seconds()
    measured_step = measured_trace.step_seconds if step_seconds is None else step_seconds
    measured["idle"] = max(measured_step - measured_trace.busy_seconds, 0.0)
    # the peaks torch.cuda.max_memory_allocated / max_memory_reserved count: the breakdown
    # less the CUDA context and fragmentation, and less the context
    breakdown = memory_breakdown(spec, config, accelerator, layout, implementation=implementation)
    context, fragmentation = (in_unit(breakdown.term(t), "B") for t in UNALLOCATED_TERMS)
    reserved = float(in_unit(breakdown.total, "B") - context)
    allocated = float(reserved - fragmentation)
    return TraceComparison(
        label=label or Path(measured_trace.path).name,
        gpu=accelerator.name,
        measured=measured,
        predicted=classes,
        measured_step=measured_step,
        predicted_step=float(np.asarray(predicted.seconds)),
        step_source=(
            f"median of {measured_trace.step_count} ProfilerStep(s)"
            if step_seconds is None
            else "given (measured without the profiler)"
        ),
        measured_allocated=measured_trace.peak_allocated,
        predicted_allocated=allocated,
        measured_reserved=measured_trace.peak_reserved,
        predicted_reserved=reserved,
        source=predicted.ceilings.source,
    )


def gemm_points(
    trace: Trace, tokens: int, peak_flops: float
) -> dict[str, list[tuple[float, float]]]:
    """Per operand layout (``nn``, ``nt``, ``tn``; module docstring), the (FLOPs, achieved
    share of ``peak_flops``) of every GEMM call of ``trace`` (all its kernels' time), sorted by
    FLOPs; ``tokens``: the micro-batch's tokens, the contraction of a weight gradient."""
    calls: dict[int, list[Any]] = {}
    for piece in trace.work:
        if piece.kind != "matmul" or piece.call < 0:
            continue
        entry = calls.setdefault(piece.call, [piece, 0.0])
        entry[1] += piece.seconds
    points: dict[str, list[tuple[float, float]]] = {"nn": [], "nt": [], "tn": []}
    for piece, seconds in calls.values():
        shapes = gemm_shape(piece.operator, piece.dims)
        if shapes is None or seconds <= 0:
            continue
        batch, m, k, n = shapes
        flops = 2.0 * batch * m * n * k
        if piece.operator == "aten::addmm" or not piece.backward:
            layout = "nn"
        elif k == tokens:
            layout = "tn"
        else:
            layout = "nt"
        points[layout].append((flops, flops / seconds / peak_flops))
    return {key: sorted(values) for key, values in points.items() if values}


def gemm_shape(operator: str, dims: tuple[Any, ...]) -> tuple[int, int, int, int] | None:
    """(batch, m, k, n) of a GEMM call from its recorded input shapes (``Input Dims``):
    ``mm(A[m,k], B[k,n])``, ``addmm(bias, A[m,k], B[k,n])``, ``bmm(A[b,m,k], B[b,k,n])``;
    None where the shapes are not recorded (``record_shapes=False``)."""
    try:
        if operator == "aten::addmm":
            (m, k), (_, n) = dims[1], dims[2]
            return 1, int(m), int(k), int(n)
        if operator == "aten::mm":
            (m, k), (_, n) = dims[0], dims[1]
            return 1, int(m), int(k), int(n)
        if operator in ("aten::bmm", "aten::baddbmm"):
            first, second = (dims[0], dims[1]) if operator == "aten::bmm" else (dims[1], dims[2])
            return int(first[0]), int(first[1]), int(first[2]), int(second[2])
    except (IndexError, TypeError, ValueError):
        return None
    return None


def _curve(points: list[tuple[float, float]]) -> list[dict[str, float]]:
    """Efficiency per size (total FLOPs over total time), made non-decreasing in FLOPs with
    the sizes weighted by their time, bounded to :data:`EFFICIENCY_BOUNDS`."""
    sizes = np.array([f for f, _ in points])
    seconds = np.array([f / e for f, e in points])
    unique, inverse = np.unique(sizes, return_inverse=True)
    totals = np.array([seconds[inverse == i].sum() for i in range(len(unique))])
    means = np.array([sizes[inverse == i].sum() for i in range(len(unique))]) / totals
    # weighted by time, a pooled block's efficiency keeps its GEMMs' total time
    fitted = np.clip(isotonic_increasing(means, totals), *EFFICIENCY_BOUNDS)
    return [
        {"flops": float(f), "efficiency": float(e)} for f, e in zip(unique, fitted, strict=True)
    ]


def _bounded(name: str, value: float, bounds: tuple[float, float], warnings: list[str]) -> float:
    low, high = bounds
    if low <= value <= high:
        return value
    kept = min(max(value, low), high)
    warnings.append(f"{name}: fitted {value:.4g}, outside [{low:g}, {high:g}]; kept {kept:.4g}")
    return kept


#: Rounds of :func:`_refined_shares` (each moves a class that is partly compute-bound closer to
#: its measured time; three bring the CPU traces' norm and GELU within 1%).
REFINE_ROUNDS = 4


def _refined_shares(
    shares: dict[str, float],
    measured: dict[str, float],
    profile_of: Callable[[dict[str, float]], Accelerator],
    classes_of: Callable[[Accelerator], dict[str, float]],
) -> dict[str, float]:
    """The memory-bound classes' efficiencies, refined so that each class's predicted time
    meets its measured time.

    The first estimate ``predicted / measured`` at efficiency 1 is exact for a row that is
    memory-bound. A row whose compute time (FLOPs at the vector peak) exceeds its memory time
    at the full bandwidth, as a CPU's tanh-GELU and LayerNorm are, keeps its compute time as
    the efficiency falls until the memory time passes it, so that estimate leaves the class
    too fast (issue 62: the calibration run's own GELU 71% and norm 63% fast). Each round
    predicts the step with the current efficiencies and scales each by ``predicted /
    measured`` of its class (a fixed point of ``max(compute, memory / efficiency) =
    measured``), within :data:`EFFICIENCY_BOUNDS`."""
    refined = dict(shares)
    for _ in range(REFINE_ROUNDS):
        predicted = classes_of(profile_of(refined))
        for kind, value in refined.items():
            if predicted.get(kind, 0.0) > 0 and measured.get(kind, 0.0) > 0:
                scaled = value * predicted[kind] / measured[kind]
                refined[kind] = float(np.clip(scaled, *EFFICIENCY_BOUNDS))
    return refined


@dataclass(frozen=True)
class TraceCalibration:
    """What :func:`calibrate_from_trace` gives: the ``profile`` (an accelerator spec with its
    ``measured`` block), the trace against the prediction ``before`` (the base GPU) and
    ``after`` (the profile), and the ``warnings`` of the fit (bounded values)."""

    profile: Accelerator
    before: TraceComparison
    after: TraceComparison
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile.name,
            "before": self.before.to_json(),
            "after": self.after.to_json(),
            "warnings": list(self.warnings),
        }


def _table_gemm_flops(
    model: ModelSpec, config: TrainingConfig, layout: Layout, software: Implementation | None
) -> float:
    """FLOPs per step of the table's weight GEMMs (forward, backward, and recomputed as
    ``software`` recomputes: :func:`mlcost.operator_time.recomputed_rows`)."""
    table = operators(model, config, layout)
    return float(
        sum(
            np.sum(np.asarray(op.total_flops) * np.asarray(op.count))
            for op in recomputed_rows(table.operators, software)
            if op.kind == "matmul"
        )
    )


def calibrate_from_trace(
    trace: Trace | str | Path,
    model: ModelSpec | str,
    config: TrainingConfig,
    layout: Layout | None = None,
    *,
    base: Accelerator | str | None = None,
    implementation: SoftwareLike = None,
    step_seconds: float | None = None,
    name: str | None = None,
) -> TraceCalibration:
    """Fit a profile of the machine and software that ran ``trace`` (module docstring): the
    run is ``model`` under ``config`` and ``layout`` on ``base`` (the catalog GPU it ran on:
    its datasheet peaks, node and links; None for a host with no datasheet, a CPU:
    :func:`host_base`), run by ``implementation``; ``step_seconds`` the step
    measured without the profiler where known (else the trace's). Raises
    :class:`mlcost.errors.MlcostError` when the trace cannot support a fit."""
    spec, layout = as_model(model), layout or Layout()
    measured_trace = _trace_of(trace, spec)
    tokens = int(layout.micro_batch_size) * int(config.sequence_length)
    gpu = as_accelerator(base) if base is not None else host_base(measured_trace, tokens, config)
    trace_name = Path(measured_trace.path).name
    ceilings = step_ceilings(gpu, config)[""]
    points = gemm_points(measured_trace, tokens, ceilings.peak_flops)
    if not points:
        raise MlcostError(
            f"trace: {trace_name} has no GEMM (aten::mm/addmm/bmm) with recorded shapes in its "
            "steps; expected torch.profiler.profile(record_shapes=True) around training steps"
        )
    measured_gemm = sum(f for values in points.values() for f, _ in values)
    measured_gemm /= measured_trace.step_count
    software = implementation_of(implementation)
    described = _table_gemm_flops(spec, config, layout, software.spec)
    if described <= 0 or abs(measured_gemm / described - 1) > MATCH_TOLERANCE:
        raise MlcostError(
            f"trace: {trace_name} runs {measured_gemm:.3g} GEMM FLOP per step, the described run "
            f"({spec.name}, micro-batch {layout.micro_batch_size}, sequence "
            f"{config.sequence_length}, recompute {layout.recompute}) {described:.3g}; expected "
            f"within {MATCH_TOLERANCE:.0%}: describe the run the trace recorded"
        )
    warnings: list[str] = []
    fmt = ceilings.format
    curves = {
        (fmt if key == "nn" else f"{fmt}/{key}"): _curve(values) for key, values in points.items()
    }
    curves.setdefault(fmt, next(iter(curves.values())))
    step_source = (
        "given: measured without the profiler"
        if step_seconds is not None
        else f"the median of the trace's {measured_trace.step_count} ProfilerStep(s)"
    )
    measured_step = measured_trace.step_seconds if step_seconds is None else step_seconds
    origin = {
        "file": trace_name,
        "sha256": _sha256(measured_trace.path),
        "device": measured_trace.device,
        "steps": measured_trace.step_count,
        "model": spec.name,
        "micro_batch_size": int(layout.micro_batch_size),
        "sequence_length": int(config.sequence_length),
        "recompute": str(layout.recompute),
        "implementation": software.spec.name if software.spec is not None else None,
        "step_time": format_quantity(Q_(measured_step, "s").to("ms")),
        "step_time_source": step_source,
    }
    table = operators(spec, config, layout)
    scores = [op for op in table.operators if op.kind == "attention"]
    attention_key = float(np.max(np.asarray(scores[0].forward_flops))) if scores else 1.0
    probe = _profile(
        gpu,
        name or f"{gpu.name}-trace",
        curves,
        attention=1.0,
        memory=dict.fromkeys(MEMORY_CLASSES, 1.0),
        launch=None,
        fragmentation=None,
        origin=origin,
        attention_key=attention_key,
    )
    probe_step = step_time(spec, config, probe, layout, implementation=software)
    predicted = predicted_class_seconds(probe_step)
    measured = measured_trace.class_seconds()
    measured["idle"] = max(measured_step - measured_trace.busy_seconds, 0.0)
    attention = None
    # the part of the predicted attention that the efficiency divides: its matmul rows
    matmuls = sum(
        float(np.asarray(row.total)) - float(np.asarray(row.launch))
        for row in probe_step.rows
        if row.kind == "attention"
    )
    others = predicted["attention"] - matmuls
    if matmuls > 0 and measured["attention"] > others:
        attention = _bounded(
            "attention efficiency",
            matmuls / (measured["attention"] - others),
            EFFICIENCY_BOUNDS,
            warnings,
        )
    shares = {
        kind: predicted[kind] / measured[kind]
        for kind in MEMORY_CLASSES
        if predicted[kind] > 0 and measured[kind] > 0
    }
    if base is None and shares:
        # no datasheet: the best kind's achieved bandwidth is the profile's bandwidth
        best = max(shares.values())
        gpu = gpu.model_copy(update={"memory_bandwidth": gpu.memory_bandwidth * best})
        shares = {kind: share / best for kind, share in shares.items()}
    bounded = {
        kind: _bounded(f"{kind} memory efficiency", share, EFFICIENCY_BOUNDS, warnings)
        for kind, share in shares.items()
    }
    shares = _refined_shares(
        bounded,
        measured,
        lambda memory: _profile(
            gpu,
            name or f"{gpu.name}-trace",
            curves,
            attention=attention,
            memory=memory,
            launch=None,
            fragmentation=None,
            origin=origin,
            attention_key=attention_key,
        ),
        lambda profile: predicted_class_seconds(
            step_time(spec, config, profile, layout, implementation=software)
        ),
    )
    memory = {}
    for kind in MEMORY_CLASSES:
        if kind in shares:
            memory[kind] = shares[kind]
            if shares[kind] in EFFICIENCY_BOUNDS and bounded[kind] not in EFFICIENCY_BOUNDS:
                warnings.append(
                    f"{kind} memory efficiency: refined to {shares[kind]:g}, the bound of "
                    f"[{EFFICIENCY_BOUNDS[0]:g}, {EFFICIENCY_BOUNDS[1]:g}]"
                )
        elif measured[kind] > 0:
            warnings.append(
                f"{kind}: {measured[kind] * 1e3:.3g} ms per step measured, none predicted; "
                "not fitted (work the operator table does not model)"
            )
    launch = None
    gaps = sum(float(np.asarray(row.gaps)) for row in probe_step.rows)
    if gaps > 0:
        launch = _bounded(
            "launch overhead (s)",
            probe_step.ceilings.launch_seconds * measured["idle"] / gaps,
            LAUNCH_BOUNDS,
            warnings,
        )
    fragmentation = None
    if measured_trace.peak_allocated and measured_trace.peak_reserved:
        fragmentation = _bounded(
            "allocator fragmentation",
            measured_trace.peak_reserved / measured_trace.peak_allocated - 1,
            FRAGMENTATION_BOUNDS,
            warnings,
        )
    profile = _profile(
        gpu,
        name or f"{gpu.name}-trace",
        curves,
        attention=attention,
        memory=memory,
        launch=launch,
        fragmentation=fragmentation,
        origin=origin,
        attention_key=attention_key,
        warnings=warnings,
    )
    arguments: dict[str, Any] = {
        "implementation": software,
        "step_seconds": step_seconds,
        "label": f"{spec.name} mb{layout.micro_batch_size} {layout.recompute}",
    }
    before = compare_trace(measured_trace, spec, config, gpu, layout, **arguments)
    after = compare_trace(measured_trace, spec, config, profile, layout, **arguments)
    return TraceCalibration(profile=profile, before=before, after=after, warnings=tuple(warnings))


#: The bandwidth a host profile is first probed at (byte/s), before the fit sets it to the
#: best achieved: any positive value gives the same profile (time is inversely proportional).
_PROBE_BANDWIDTH = 1e11


def host_base(trace: Trace, tokens: int, config: TrainingConfig) -> Accelerator:
    """The accelerator spec of a run with no datasheet (a CPU): the peak of its compute format
    is the best throughput one GEMM call of the trace reached (so no fitted GEMM is above it),
    its memory capacity the host's RAM; the bandwidth is set by the fit (the best achieved by
    a memory-bound kind)."""
    points = gemm_points(trace, tokens, 1.0)
    if not points:
        raise MlcostError(
            f"trace: {Path(trace.path).name} has no GEMM (aten::mm/addmm/bmm) with recorded "
            "shapes in its steps; expected torch.profiler.profile(record_shapes=True)"
        )
    best = max(e for values in points.values() for _, e in values)
    host = host_profile_fields()
    fmt = config.policy.compute_format
    formats = sorted({fmt, "fp32"})
    data = {
        "kind": "accelerator",
        "name": "measured-host",
        "vendor": "measured",
        "display_name": f"{trace.device} (measured from a trace)",
        "memory_capacity": host["memory_capacity"],
        "tdp": host["tdp"],
        "memory_bandwidth": format_quantity(Q_(_PROBE_BANDWIDTH, "B/s").to("GB/s")),
        "peak_compute": [
            {"format": f, "engine": "vector", "dense": format_quantity(Q_(best, "flop/s"))}
            for f in formats
        ],
        "notes": "Peaks are the best GEMM throughput of the trace, not a datasheet's; the "
        "bandwidth is the best a memory-bound kind of the trace reached.",
        "references": {
            "trace": f"mlcost calibrate --trace {Path(trace.path).name}",
            **host["references"],
        },
        "sources": {"*": "trace", **host["sources"]},
    }
    spec = spec_from_dict(json.loads(json.dumps(data, default=str)))
    if not isinstance(spec, Accelerator):  # spec_from_dict follows "kind"
        raise MlcostError("calibrate: the host profile is not an accelerator")
    return spec


def _sha256(path: str) -> str:
    file = Path(path)
    return hashlib.sha256(file.read_bytes()).hexdigest() if file.is_file() else "unknown"


def _profile(
    gpu: Accelerator,
    name: str,
    curves: dict[str, list[dict[str, float]]],
    *,
    attention: float | None,
    memory: dict[str, float],
    launch: float | None,
    fragmentation: float | None,
    origin: dict[str, Any],
    attention_key: float,
    warnings: list[str] | None = None,
) -> Accelerator:
    """``gpu`` with a ``measured`` block of the fits (module docstring)."""
    fmt = next(iter(curves)).split("/")[0]
    source = (
        f"mlcost calibrate --trace {origin['file']} (sha256 {origin['sha256'][:12]}): a profiled "
        f"run of {origin['model']}, micro-batch {origin['micro_batch_size']}, sequence "
        f"{origin['sequence_length']}, recompute {origin['recompute']}, {origin['steps']} "
        f"step(s) on {origin['device']}; the user's own run"
    )
    measured: dict[str, Any] = {
        "measured_on": origin["device"],
        "based_on": gpu.name,
        "date": datetime.date.today().isoformat(),
        "gemm_efficiency": curves,
        "attention_efficiency": {fmt: [{"flops": attention_key, "efficiency": attention}]}
        if attention is not None
        else {},
        "kind_memory_efficiency": memory,
        "launch_overhead": format_quantity(Q_(launch, "s").to("us")) if launch else None,
        "allocator_fragmentation": fragmentation,
        "trace": origin,
        "fit_quality": {f"gemm {key} points": float(len(v)) for key, v in curves.items()},
    }
    data = gpu.to_dict()
    data.update(
        name=name,
        aliases=[],
        default_for=[],  # a profile is never the default a short name means
        measured=measured,
        # the base's published measurements are replaced, so are their sources
        sources={
            **{k: v for k, v in data.get("sources", {}).items() if not k.startswith("measured")},
            "measured": source,
        },
        notes=(data.get("notes") or "")
        + (" Fit warnings: " + "; ".join(warnings) if warnings else ""),
    )
    spec = spec_from_dict(json.loads(json.dumps(data, default=str)))
    if not isinstance(spec, Accelerator):  # spec_from_dict follows "kind"
        raise MlcostError("calibrate: the profile is not an accelerator")
    return spec


__all__ = [
    "EFFICIENCY_BOUNDS",
    "FRAGMENTATION_BOUNDS",
    "LAUNCH_BOUNDS",
    "MATCH_TOLERANCE",
    "TraceCalibration",
    "TraceComparison",
    "calibrate_from_trace",
    "compare_trace",
    "gemm_points",
    "gemm_shape",
    "predicted_class_seconds",
]
