"""Figures (matplotlib; each function returns the Figure): rooflines with the workload's
operators on them, a step-time waterfall, MFU curves and the per-GPU memory breakdown."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mlcost.memory import MemoryBreakdown
from mlcost.specs import Accelerator
from mlcost.timing import StepTime


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
            flops = float(np.sum((op.forward_flops + op.backward_flops) * op.count))
            moved = float(np.sum((op.bytes_read + op.bytes_written + op.backward_bytes) * op.count))
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
    ax.set_ylabel("predicted MFU")
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
        value = float(np.max(term.bytes.to("GiB").magnitude))
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
    ax.set_xlabel("GiB")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    figure.tight_layout()
    return figure


__all__ = ["memory", "mfu_curve", "roofline", "waterfall"]
