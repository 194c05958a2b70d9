"""Figures (matplotlib; each function returns the Figure, titled, with units and a legend):
rooflines with the workload's operators on them, a step-time waterfall, MFU curves, the per-GPU
memory breakdown, scaling curves and the activation-checkpointing trade-off. Every result's
``plot()`` delegates here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from mlcost.memory import MemoryBreakdown
from mlcost.specs import Accelerator
from mlcost.timing import StepTime

if TYPE_CHECKING:
    from mlcost.checkpointing import TradeoffCurve
    from mlcost.parallel import ScalingCurve
    from mlcost.published import PublishedValidation


def _figure(ax: Any = None, size: tuple[float, float] = (7, 5)) -> tuple[Any, Any]:
    import matplotlib.pyplot as plt

    if ax is not None:
        return ax.figure, ax
    figure, ax = plt.subplots(figsize=size)
    return figure, ax


def roofline(
    gpus: Accelerator | Sequence[Accelerator],
    step: StepTime | None = None,
    *,
    format: str = "bf16",
    measured: Sequence[tuple[float, float, str]] = (),
    ax: Any = None,
) -> Any:
    """Log-log roofline of one or several GPUs, ridge points annotated; the operators of ``step``
    as bubbles (size = share of step time); ``measured`` points as (FLOP/byte, TFLOP/s, label)."""
    figure, ax = _figure(ax)
    gpus = [gpus] if isinstance(gpus, Accelerator) else list(gpus)
    intensity = np.logspace(-2, 4, 200)
    if not gpus and step is not None:
        peak = step.ceilings.peak.to("TFLOP/s").magnitude
        bandwidth = step.ceilings.bandwidth.to("TB/s").magnitude
        ax.loglog(
            intensity,
            np.minimum(peak, intensity * bandwidth),
            label=f"{step.ceilings.name} ({step.ceilings.format})",
        )
    for gpu in gpus:
        fmt = format if format in gpu.formats else gpu.formats[0]
        peak = gpu.peak(fmt).to("TFLOP/s").magnitude
        bandwidth = gpu.memory_bandwidth.to("TB/s").magnitude
        ax.loglog(intensity, np.minimum(peak, intensity * bandwidth), label=f"{gpu.name} ({fmt})")
        ridge = peak / bandwidth
        ax.annotate(
            f"ridge {ridge:.0f}",
            (ridge, peak),
            textcoords="offset points",
            xytext=(5, -12),
            fontsize=8,
        )
    if step is not None:
        total = float(np.sum(step.total.to("s").magnitude))
        points = []
        for op, row in zip(step.table.operators, step.rows, strict=True):
            flops = float(np.sum(op.total_flops * op.count))
            moved = float(np.sum(op.bytes_moved * op.count))
            time = float(np.sum(row.total))
            if flops > 0 and moved > 0 and time > 0:
                points.append((time, flops / moved, flops / time / 1e12, op.name))
        for time, x, y, _ in points:
            ax.scatter([x], [y], s=2000 * time / total, alpha=0.5)
        for rank, (_, x, y, name) in enumerate(sorted(points, reverse=True)[:5]):
            ax.annotate(
                name,
                (x, y),
                textcoords="offset points",
                xytext=(-60, -14 * (rank + 1)),
                fontsize=7,
                arrowprops={"arrowstyle": "-", "lw": 0.5},
            )
    for x, y, label in measured:
        ax.scatter([x], [y], marker="x", color="black")
        ax.annotate(label, (x, y), fontsize=7)
    ax.set_xlabel("arithmetic intensity (FLOP/byte)")
    ax.set_ylabel("attainable throughput (TFLOP/s)")
    title = "Roofline"
    if step is not None:
        title += f": {step.table.description.split(':')[0]} operators (bubble area = share of step)"
    ax.set_title(title, fontsize=10)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    return figure


def waterfall(step: StepTime, ax: Any = None) -> Any:
    """Step time by operator kind as a waterfall (cumulative bars), bottleneck in the label."""
    figure, ax = _figure(ax)
    kinds = step.by_kind()
    start = 0.0
    for kind, row in kinds.iterrows():
        value = row["time_s"] * 1e3
        ax.bar([str(kind)], [value], bottom=[start])
        ax.annotate(f"{row['bound']}", (str(kind), start + value), fontsize=7, ha="center")
        start += value
    ax.set_ylabel("cumulative step time (ms)")
    ax.set_title(f"Step time by operator kind on {step.ceilings.name}", fontsize=10)
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


def memory(breakdown: MemoryBreakdown, ax: Any = None) -> Any:
    """Per-GPU memory as one stacked bar per term (GiB) against the GPU's capacity."""
    figure, ax = _figure(ax, size=(7, 4))
    import matplotlib

    colormap = matplotlib.colormaps["tab20"]
    colors = [colormap(i) for i in range(20)]
    left = 0.0
    for index, term in enumerate(breakdown.terms):
        value = float(np.max(term.value.to("GiB").magnitude))
        if value <= 0:
            continue
        ax.barh(
            ["per GPU"],
            [value],
            left=[left],
            color=colors[index % len(colors)],
            label=f"{term.name} ({value:.1f} GiB)",
        )
        left += value
    if breakdown.capacity is not None:
        capacity = float(breakdown.capacity.to("GiB").magnitude)
        ax.axvline(capacity, color="black", linestyle="--")
        ax.text(
            capacity,
            1.02,
            f"{breakdown.gpu or 'GPU'}: {capacity:g} GiB",
            transform=ax.get_xaxis_transform(),
            fontsize=8,
            ha="center",
        )
    ax.set_xlabel("GiB per GPU")
    ax.set_title(f"Memory per GPU: {breakdown.why_not()}", fontsize=9)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    figure.tight_layout()
    return figure


def scaling(curve: ScalingCurve, ax: Any = None) -> Any:
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


def tradeoff(curve: TradeoffCurve, ax: Any = None) -> Any:
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


def validation(result: PublishedValidation, ax: Any = None) -> Any:
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
