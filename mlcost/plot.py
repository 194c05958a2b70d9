"""Figures (matplotlib; each function returns the Figure, titled, with units and a legend):
rooflines with the workload's operators on them, a step-time waterfall, MFU curves, the per-GPU
memory breakdown, scaling curves and the activation-checkpointing trade-off. Every result's
``plot()`` delegates here.

This module is a leaf of the package: it imports :mod:`mlcost.units` and nothing else of
mlcost. Each function's argument is typed by a small :class:`~typing.Protocol` below, naming
only what the function reads of it. The result classes (:class:`mlcost.timing.StepTime`,
:class:`mlcost.memory.MemoryBreakdown`, ...) satisfy them structurally, so mypy checks the
calls while the results import this module (inside their ``plot()``) without a cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from mlcost.units import in_unit

if TYPE_CHECKING:
    import pandas as pd
    import pint


@runtime_checkable
class AcceleratorLike(Protocol):
    """What :func:`roofline` reads of a GPU (:class:`mlcost.specs.Accelerator`)."""

    @property
    def name(self) -> str: ...

    @property
    def formats(self) -> tuple[str, ...]: ...

    @property
    def memory_bandwidth(self) -> pint.Quantity: ...

    def peak(self, format: str) -> pint.Quantity: ...


class CeilingsLike(Protocol):
    """What the figures read of a step's ceilings (:class:`mlcost.roofline.Ceilings`)."""

    @property
    def name(self) -> str: ...

    @property
    def format(self) -> str: ...

    @property
    def peak(self) -> pint.Quantity: ...

    @property
    def bandwidth(self) -> pint.Quantity: ...


class OperatorLike(Protocol):
    """What :func:`roofline` reads of an operator (:class:`mlcost.workload.Operator`)."""

    @property
    def name(self) -> str: ...

    @property
    def count(self) -> Any: ...

    @property
    def total_flops(self) -> Any: ...

    @property
    def bytes_moved(self) -> Any: ...


class OperatorTableLike(Protocol):
    """What the figures read of a step's table (:class:`mlcost.workload.OperatorTable`)."""

    @property
    def operators(self) -> Sequence[OperatorLike]: ...

    @property
    def description(self) -> str: ...


class OperatorTimeLike(Protocol):
    """What :func:`roofline` reads of an operator's time (seconds; :class:`OperatorTime`
    of :mod:`mlcost.operator_time`)."""

    @property
    def compute(self) -> Any: ...

    @property
    def memory(self) -> Any: ...

    @property
    def launch(self) -> Any: ...

    @property
    def total(self) -> Any: ...

    @property
    def bound(self) -> Any: ...


class StepTimeLike(Protocol):
    """What :func:`roofline` and :func:`waterfall` read of a step
    (:class:`mlcost.timing.StepTime`)."""

    @property
    def table(self) -> OperatorTableLike: ...

    @property
    def ceilings(self) -> CeilingsLike: ...

    @property
    def rows(self) -> Sequence[OperatorTimeLike]: ...

    @property
    def total(self) -> pint.Quantity: ...

    def by_kind(self) -> pd.DataFrame: ...


class TermLike(Protocol):
    """One term of a memory breakdown (a :class:`mlcost.results.Figure`)."""

    @property
    def name(self) -> str: ...

    @property
    def value(self) -> Any: ...


class MemoryBreakdownLike(Protocol):
    """What :func:`memory` reads of a breakdown (:class:`mlcost.memory.MemoryBreakdown`)."""

    @property
    def terms(self) -> Sequence[TermLike]: ...

    @property
    def capacity(self) -> pint.Quantity | None: ...

    @property
    def gpu(self) -> str | None: ...

    @property
    def description(self) -> str: ...

    def why_not(self) -> str: ...


class ScalingCurveLike(Protocol):
    """What :func:`scaling` reads of a curve (:class:`mlcost.parallel.ScalingCurve`)."""

    @property
    def frame(self) -> pd.DataFrame: ...

    def title(self) -> str: ...


class TradeoffCurveLike(Protocol):
    """What :func:`tradeoff` reads of a curve (:class:`mlcost.checkpointing.TradeoffCurve`)."""

    def to_frame(self) -> pd.DataFrame: ...


class ValidationLike(Protocol):
    """What :func:`validation` reads (:class:`mlcost.published.PublishedValidation`)."""

    @property
    def frame(self) -> pd.DataFrame: ...


def _figure(ax: Any = None, size: tuple[float, float] = (7, 5)) -> tuple[Any, Any]:
    import matplotlib.pyplot as plt

    if ax is not None:
        return ax.figure, ax
    figure, ax = plt.subplots(figsize=size)
    return figure, ax


#: Colours of what bounds an operator (the same in every figure).
BOUND_COLORS = {"compute": "tab:blue", "memory": "tab:orange", "latency": "tab:gray"}
_LINE_STYLES = ("-", "--", ":", "-.")


def _spread_labels(ys: list[float], low: float, high: float, gap: float) -> list[float]:
    """Label heights (axes fraction) near ``ys`` but at least ``gap`` apart and inside
    ``[low, high]``: sorted, pushed up where they collide, then shifted back down if needed."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    placed = [0.0] * len(ys)
    previous = low - gap
    for i in order:
        placed[i] = max(ys[i], previous + gap)
        previous = placed[i]
    overflow = previous - high
    if overflow > 0:
        for i in order:
            placed[i] -= overflow
    return placed


def _rate_text(value: float) -> str:
    """A rate for a legend: whole units from 10 up, else three significant digits (a CPU's
    0.0512 TFLOP/s is not "0")."""
    return f"{value:,.0f}" if value >= 10 else f"{value:.3g}"


def roofline(
    gpus: AcceleratorLike | Sequence[AcceleratorLike],
    step: StepTimeLike | None = None,
    *,
    format: str = "bf16",
    measured: Sequence[tuple[float, float, str]] = (),
    labelled: int = 6,
    ax: Any = None,
) -> Any:
    """Log-log roofline of one or several GPUs (one line style each): the peak, the memory
    slope and the ridge point labelled with their units; the operators of ``step`` as bubbles
    (area = share of the step time) coloured by what bounds them (compute, memory, launch
    latency), the ``labelled`` slowest labelled without overlap (memory-bound ones included);
    ``measured`` points as (FLOP/byte, TFLOP/s, label), labelled with them at the right margin.
    The title names the model, GPU, batch, sequence and precision."""
    from matplotlib.lines import Line2D

    figure, ax = _figure(ax, size=(9, 5.5))
    gpus = [gpus] if isinstance(gpus, AcceleratorLike) else list(gpus)
    intensity = np.logspace(-2, 4, 200)
    lines: list[tuple[str, float, float]] = []
    if not gpus and step is not None:
        lines.append(
            (
                f"{step.ceilings.name} ({step.ceilings.format})",
                in_unit(step.ceilings.peak, "TFLOP/s"),
                in_unit(step.ceilings.bandwidth, "TB/s"),
            )
        )
    for gpu in gpus:
        fmt = format if format in gpu.formats else gpu.formats[0]
        lines.append(
            (
                f"{gpu.name} ({fmt})",
                gpu.peak(fmt).to("TFLOP/s").magnitude,
                in_unit(gpu.memory_bandwidth, "TB/s"),
            )
        )
    for index, (name, peak, bandwidth) in enumerate(lines):
        style = _LINE_STYLES[index % len(_LINE_STYLES)]
        ax.loglog(
            intensity, np.minimum(peak, intensity * bandwidth), style, color="black", lw=1.2,
            label=f"{name}: {_rate_text(peak)} TFLOP/s, {bandwidth:.3g} TB/s",
        )  # fmt: skip
        ridge = peak / bandwidth
        ax.plot([ridge], [peak], "o", color="black", ms=4)
        ax.annotate(
            f"ridge {ridge:,.0f} FLOP/byte", (ridge, peak), textcoords="offset points",
            xytext=(6, 4 + 10 * index), fontsize=7,
        )  # fmt: skip
        slope_x = ridge / 30
        ax.annotate(
            f"{bandwidth:.2f} TB/s x intensity", (slope_x, slope_x * bandwidth),
            textcoords="offset points", xytext=(-30, 14 + 24 * index), fontsize=7,
            rotation=35, color="dimgray",
        )  # fmt: skip
    tagged: list[tuple[str, float, float]] = []  # (label, x, y): labelled at the right margin
    if step is not None:
        total = float(np.sum(in_unit(step.total, "s")))
        points = []
        for op, row in zip(step.table.operators, step.rows, strict=True):
            flops = float(np.sum(op.total_flops * op.count))
            moved = float(np.sum(op.bytes_moved * op.count))
            time = float(np.sum(row.total))
            if flops > 0 and moved > 0 and time > 0:
                bound = str(np.ravel(row.bound)[0])
                launch = float(np.sum(row.launch))
                if launch > float(np.sum(row.compute)) and launch > float(np.sum(row.memory)):
                    bound = "latency"
                points.append((time, flops / moved, flops / time / 1e12, op.name, bound))
        for time, x, y, _, bound in points:
            ax.scatter(
                [x], [y], s=max(4.0, 2500 * time / total), alpha=0.55,
                color=BOUND_COLORS.get(bound, "tab:red"), edgecolors="black", linewidths=0.3,
            )  # fmt: skip
        slowest = sorted(points, reverse=True)[:labelled]
        memory_bound = [p for p in sorted(points, reverse=True) if p[4] == "memory"][:2]
        chosen = slowest + [p for p in memory_bound if p not in slowest]
        tagged += [(f"{name} ({time / total:.0%})", x, y) for time, x, y, name, _ in chosen]
        handles, _ = ax.get_legend_handles_labels()
        for bound, color in BOUND_COLORS.items():
            handles.append(
                Line2D([], [], marker="o", ls="", color=color, alpha=0.6, label=f"{bound}-bound")
            )
        ax.legend(handles=handles, fontsize=7, loc="lower right")
    elif ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="lower right")
    for x, y, label in measured:
        ax.scatter([x], [y], marker="x", color="black")
        tagged.append((label, x, y))
    ax.set_xlabel("arithmetic intensity (FLOP/byte)")
    ax.set_ylabel("attainable throughput (TFLOP/s)")
    if lines:  # headroom above the highest peak for its ridge label (a decade on a log axis)
        low, high = ax.get_ylim()
        ax.set_ylim(low, max(high, 10 * max(peak for _, peak, _ in lines)))
    if tagged:  # the slowest operators and the measured points, joined to their labels
        heights = _spread_labels([_axes_fraction(ax, y) for _, _, y in tagged], 0.04, 0.92, 0.07)
        for (text, x, y), height in zip(tagged, heights, strict=True):
            ax.annotate(
                text, (x, y), xycoords="data", xytext=(1.02, height), textcoords="axes fraction",
                fontsize=7, va="center", arrowprops={"arrowstyle": "-", "lw": 0.4, "color": "gray"},
            )  # fmt: skip
    title = "Roofline"
    if step is not None:
        title = (
            f"Roofline: {step.table.description} on {step.ceilings.name}\n"
            "operators: bubble area = share of the step time, colour = what bounds them"
        )
    ax.set_title(title, fontsize=9, pad=12)
    figure.tight_layout()
    return figure


def _axes_fraction(ax: Any, y: float) -> float:
    """Where ``y`` (data units, log axis) sits on the axis as a fraction of its height."""
    low, high = ax.get_ylim()
    if y <= 0 or low <= 0:
        return 0.5
    return float((np.log10(y) - np.log10(low)) / (np.log10(high) - np.log10(low)))


def waterfall(step: StepTimeLike, ax: Any = None) -> Any:
    """Step time by operator kind as a waterfall (cumulative bars coloured by what bounds each
    kind), closed by a total bar; the title names the model, the GPU and the total."""
    from matplotlib.patches import Patch

    figure, ax = _figure(ax, size=(8, 5))
    kinds = step.by_kind()
    start = 0.0
    for kind, row in kinds.iterrows():
        value = row["time_s"] * 1e3
        color = BOUND_COLORS.get(str(row["bound"]), "tab:red")
        ax.bar([str(kind)], [value], bottom=[start], color=color, edgecolor="black", lw=0.4)
        ax.annotate(f"{value:.3g}", (str(kind), start + value), fontsize=7, ha="center",
                    va="bottom")  # fmt: skip
        start += value
    ax.bar(["total"], [start], color="black", alpha=0.8)
    ax.annotate(f"{start:.4g} ms", ("total", start), fontsize=8, ha="center", va="bottom")
    ax.set_ylabel("cumulative step time (ms)")
    ax.set_ylim(0, start * 1.15)  # headroom for the labels on the tallest bars
    ax.set_title(
        f"Step time by operator kind: {step.table.description.split(':')[0]} on "
        f"{step.ceilings.name}, total {start:.4g} ms",
        fontsize=9,
        pad=10,
    )
    ax.legend(
        handles=[Patch(color=c, label=f"{b}-bound") for b, c in BOUND_COLORS.items()],
        fontsize=7, loc="upper left",
    )  # fmt: skip
    ax.tick_params(axis="x", labelrotation=45)
    figure.tight_layout()
    return figure


def mfu_curve(
    x: Sequence[float], mfu: Sequence[float], *, label: str = "batch size", ax: Any = None
) -> Any:
    """MFU against batch size or sequence length (from a vectorized ``step_time`` sweep)."""
    figure, ax = _figure(ax)
    ax.plot(list(x), list(mfu), marker="o")
    ax.set_xscale("log", base=2)
    ax.set_xlabel(label)
    ax.set_ylabel("predicted MFU (fraction of dense peak)")
    ax.set_title(f"Predicted MFU against {label}", fontsize=10)
    ax.set_ylim(0, 1)
    return figure


def memory(breakdown: MemoryBreakdownLike, ax: Any = None) -> Any:
    """Per-GPU memory as one stacked bar of the non-zero terms (GiB) against the GPU's usable
    capacity, with the headroom (or the shortfall) marked; the title names the model, the
    layout and the verdict; the legend sits beside the bar (kept by ``savefig``)."""
    figure, ax = _figure(ax, size=(9, 3.6))
    import matplotlib

    colors = [matplotlib.colormaps["tab10"](i) for i in range(10)]
    colors += [matplotlib.colormaps["Dark2"](i) for i in range(8)]
    left = 0.0
    shown = 0
    for term in breakdown.terms:
        value = float(np.max(in_unit(term.value, "GiB")))
        if value <= 0.005:  # nothing to see, and an empty legend entry
            continue
        ax.barh(
            ["per GPU"], [value], left=[left], color=colors[shown % len(colors)],
            edgecolor="white", lw=0.5, label=f"{term.name}: {value:.2f} GiB",
        )  # fmt: skip
        left += value
        shown += 1
    total = left
    if breakdown.capacity is not None:
        capacity = float(in_unit(breakdown.capacity, "GiB"))
        ax.axvline(capacity, color="black", linestyle="--", lw=1)
        ax.text(
            capacity, 0.95, f"usable on {breakdown.gpu or 'GPU'}: {capacity:.1f} GiB ",
            transform=ax.get_xaxis_transform(), fontsize=8, ha="right", va="top",
        )  # fmt: skip
        gap = capacity - total
        word = "headroom" if gap >= 0 else "short by"
        ax.annotate(
            "", xy=(capacity, -0.45), xytext=(total, -0.45),
            arrowprops={"arrowstyle": "<->", "color": "green" if gap >= 0 else "red"},
        )  # fmt: skip
        ax.text(
            (capacity + total) / 2, -0.55, f"{word} {abs(gap):.2f} GiB", ha="center", va="top",
            fontsize=8, color="green" if gap >= 0 else "red",
        )  # fmt: skip
        ax.set_xlim(0, max(capacity, total) * 1.05)
        ax.set_ylim(-0.8, 0.6)
    ax.set_xlabel("memory per GPU (GiB)")
    ax.set_title(f"Memory per GPU: {breakdown.description}\n{breakdown.why_not()}", fontsize=8)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    figure.tight_layout()
    return figure


def scaling(curve: ScalingCurveLike, ax: Any = None) -> Any:
    """Speedup against GPUs beside linear scaling, efficiency on the right axis."""
    figure, ax = _figure(ax)
    frame = curve.frame
    gpus = frame["gpus"].to_numpy()
    ax.plot(gpus, frame["speedup"], marker="o", label="speedup (model)")
    ax.plot(gpus, gpus / gpus[0] * frame["speedup"].iloc[0], linestyle="--", label="linear")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("speedup over one replica")
    right = ax.twinx()
    right.plot(gpus, frame["efficiency"], color="grey", marker=".", label="efficiency")
    right.set_ylabel("scaling efficiency (speedup / GPUs)")
    right.set_ylim(0, 1.05)
    ax.set_title(curve.title(), fontsize=9)
    lines = ax.get_legend_handles_labels()
    extra = right.get_legend_handles_labels()
    ax.legend(lines[0] + extra[0], lines[1] + extra[1], fontsize=8, loc="upper left")
    return figure


def tradeoff(curve: TradeoffCurveLike, ax: Any = None) -> Any:
    """The Pareto curve of activation checkpointing: recomputation against peak memory."""
    figure, ax = _figure(ax)
    frame = curve.to_frame()
    recompute = frame["recompute_ms"] if frame["recompute_ms"].notna().all() else None
    y = recompute if recompute is not None else frame["recompute_flops"] / 1e12
    ax.step(frame["memory_GiB"], y, where="post", marker="o", label="Pareto-optimal placements")
    ax.set_xlabel("peak activation memory per GPU (GiB)")
    ax.set_ylabel(
        "recompute per micro-batch (" + ("ms" if recompute is not None else "TFLOP") + ")"
    )
    ax.set_title("Activation checkpointing: memory against recomputation", fontsize=10)
    ax.legend(fontsize=8)
    return figure


class SloSearchLike(Protocol):
    """What :func:`slo_front` reads (:class:`mlcost.serving.slo.SloSearch`)."""

    @property
    def rate(self) -> float | None: ...
    @property
    def tpot_s(self) -> float: ...
    def title(self) -> str: ...
    @property
    def feasible(self) -> list[Any]: ...
    @property
    def chosen(self) -> Any: ...
    @property
    def runner_up(self) -> Any: ...
    def pareto(self) -> list[Any]: ...


def slo_front(search: SloSearchLike, ax: Any = None) -> Any:
    """Cost against time per output token of every configuration that meets a serving target,
    its Pareto front, the choice and the runner-up (:func:`mlcost.serving.slo.search_slo`)."""
    figure, ax = _figure(ax)
    hourly = search.rate is not None

    def cost(c: Any) -> float:
        return float(c.usd_per_hour if hourly else c.usd_per_m_output)

    feasible = search.feasible
    ax.scatter([c.tpot_ms for c in feasible], [cost(c) for c in feasible], s=12, alpha=0.4,
               color="0.5", label="meets the target")  # fmt: skip
    front = search.pareto()
    ax.step([c.tpot_ms for c in front], [cost(c) for c in front], where="post", marker="o",
            label="Pareto front")  # fmt: skip
    for c, name, color in ((search.chosen, "chosen", "C3"), (search.runner_up, "runner-up", "C2")):
        if c is not None:
            ax.scatter([c.tpot_ms], [cost(c)], s=80, color=color, zorder=3,
                       label=f"{name}: {c.label}")  # fmt: skip
    ax.axvline(search.tpot_s * 1e3, color="0.3", linestyle=":", label="TPOT target")
    if any(cost(c) > 0 for c in feasible):  # a log axis needs a positive cost to show
        ax.set_yscale("log")
    else:
        ax.text(0.5, 0.5, "no configuration meets the target", transform=ax.transAxes,
                ha="center", va="center")  # fmt: skip
        ax.set_xticks([])  # an empty plot's ticks say nothing
        ax.set_yticks([])
    ax.set_xlabel("time per output token (ms)")
    ax.set_ylabel("cost (USD per hour)" if hourly else "cost (USD per million output tokens)")
    ax.set_title(search.title(), fontsize=8)
    ax.legend(fontsize=7)
    return figure


def validation(result: ValidationLike, ax: Any = None) -> Any:
    """The error of every predicted row of the published validation set, by family, with the
    10% and 25% bands; rows the catalog is anchored on are drawn hollow."""
    frame = result.frame
    frame = frame[frame["error"].notna()].reset_index(drop=True)
    figure, ax = _figure(ax, (9.5, max(4.0, 0.22 * len(frame) + 1.5)))
    y = np.arange(len(frame))
    for index, family in enumerate(sorted(frame["family"].unique())):
        rows = frame[frame["family"] == family]
        color = f"C{index}"
        solid = rows[~rows["anchor"]]
        hollow = rows[rows["anchor"]]
        ax.scatter(100 * solid["error"], y[solid.index], color=color, label=family, zorder=3)
        if len(hollow):
            ax.scatter(
                100 * hollow["error"], y[hollow.index], facecolors="none", edgecolors=color,
                label=f"{family} (anchor: a catalog input)", zorder=3,
            )  # fmt: skip
    for band, alpha in ((25, 0.08), (10, 0.15)):
        ax.axvspan(-band, band, color="green", alpha=alpha, lw=0)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels(frame["id"], fontsize=6)
    ax.invert_yaxis()
    ax.set_xlabel("error of the prediction, predicted / measured - 1 (%)")
    ax.set_title("mlcost against published measurements (shaded: within 10% and 25%)", fontsize=10)
    ax.legend(fontsize=7, loc="lower right")
    figure.tight_layout()
    return figure


__all__ = ["memory", "mfu_curve", "roofline", "scaling", "tradeoff", "validation", "waterfall"]
