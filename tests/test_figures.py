"""Issue 64: every figure the package draws serves a reader. Each is rendered and its axes
inspected: a title, axis labels with their units, a legend where there are several series, and
no text drawn over other text (matplotlib's rendered extents of tick labels, annotations,
titles and axis labels)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

import matplotlib
import pandas as pd
import pytest
from matplotlib.text import Text

matplotlib.use("Agg")

import mlcost
from mlcost import Layout, TrainingConfig, plot
from mlcost.checkpointing import tradeoff_curve, transformer_layer_chain
from mlcost.memory import memory_breakdown
from mlcost.parallel import scaling_curve
from mlcost.published import validate_published
from mlcost.serving.slo import search_slo
from mlcost.timing import step_time
from mlcost.validate import plot as validation_plot

CONFIG = TrainingConfig(sequence_length=1024)
SMALL = Layout(micro_batch_size=2)


def _step() -> Any:
    return step_time("gpt2", CONFIG, "h100-sxm5-80gb", SMALL)


def _bench_report() -> pd.DataFrame:
    """A hand-made report of three benchmarks (what ``mlcost validate DIR`` plots)."""
    return pd.DataFrame(
        {"measured_s": [1e-3, 1e-2, 1e-1], "predicted_before_s": [1.2e-3, 0.9e-2, 1.3e-1],
         "predicted_after_s": [1.05e-3, 1.0e-2, 0.98e-1]}
    )  # fmt: skip


FIGURES: dict[str, Callable[[], Any]] = {
    "roofline": lambda: plot.roofline(mlcost.accelerator("h100-sxm5-80gb"), _step()),
    "roofline, two GPUs": lambda: plot.roofline(
        [mlcost.accelerator("a100-sxm4-80gb"), mlcost.accelerator("h100-sxm5-80gb")], _step()
    ),
    "waterfall": lambda: plot.waterfall(_step()),
    "mfu curve": lambda: plot.mfu_curve([1, 2, 4, 8], [0.3, 0.4, 0.45, 0.5]),
    "memory": lambda: plot.memory(memory_breakdown("gpt2", CONFIG, "h100-sxm5-80gb", SMALL)),
    "scaling": lambda: scaling_curve(
        "gpt2", CONFIG, "dgx-h100", [8, 16, 32], kind="weak", layout=SMALL
    ).plot(),
    "tradeoff": lambda: tradeoff_curve(
        transformer_layer_chain("gpt2", CONFIG, "h100-sxm5-80gb", SMALL)
    ).plot(),
    "slo front": lambda: search_slo(
        "gpt2", ttft="500 ms", tpot="50 ms", gpus=["h100-sxm5-80gb"], prompt=256, output=64
    ).plot(),
    "slo front, nothing meets the target": lambda: search_slo(
        "gpt2", ttft="500 ms", tpot="50 ms", gpus=["h100-sxm5-80gb"]
    ).plot(),
    "published validation": lambda: validate_published().plot(),
    "bench validation": lambda: validation_plot(_bench_report()),
}

#: An axis label states its unit in parentheses, or counts something (no unit).
UNIT = re.compile(r"\(.+\)|^GPUs$|^batch size$|^sequence length$")


def _texts(ax: Any) -> list[Any]:
    """The text an axes draws that must not collide: tick labels, annotations."""
    ticks = [t for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text().strip()]
    return ticks + [t for t in ax.texts if t.get_visible() and t.get_text().strip()]


def _numeric(labels: list[Any]) -> bool:
    """Whether an axis's tick labels are numbers (a categorical axis needs no unit)."""
    texts = [t.get_text().replace("\u2212", "-") for t in labels if t.get_text().strip()]
    return all(re.fullmatch(r"[-+0-9.,e$\\{}^mathrf ]+%?", text) for text in texts)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_a_figure_serves_a_reader(name: str) -> None:
    figure = FIGURES[name]()
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    problems = []
    main = [ax for ax in figure.axes if ax.get_visible()]
    titled = bool(figure.get_suptitle())
    for ax in main:
        titled = titled or bool(ax.get_title() or ax.get_title("left"))
        for axis, label, ticks in (
            ("x", ax.get_xlabel(), ax.get_xticklabels()),
            ("y", ax.get_ylabel(), ax.get_yticklabels()),
        ):
            if not [t for t in ticks if t.get_text().strip()] or not _numeric(ticks):
                continue  # no ticks (a twin's hidden axis) or a categorical axis
            if not label:
                problems.append(f"{axis} axis without a label")
            elif not UNIT.search(label):
                problems.append(f"{axis} label {label!r} states no unit")
        _, labels = ax.get_legend_handles_labels()
        series = len([label for label in labels if not label.startswith("_")])
        if series > 1 and ax.get_legend() is None and not _shared_legend(figure, main):
            problems.append("several series and no legend")
        # The text's own box (an annotation's extent would include its arrow); a rotated
        # text's box is axis-aligned, wider than its letters: compared upright ones only.
        boxes = [
            (t.get_text(), Text.get_window_extent(t, renderer))
            for t in _texts(ax)
            if t.get_rotation() % 90 == 0
        ]
        for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2):
            if box_a.overlaps(box_b) and box_a.width > 0 and box_b.width > 0:
                problems.append(f"{a!r} overlaps {b!r}")
    if not titled:
        problems.append("no title")
    matplotlib.pyplot.close(figure)
    assert not problems, f"{name}: " + "; ".join(problems[:8])


def _shared_legend(figure: Any, axes: list[Any]) -> bool:
    """A figure legend, or a twin axes' series listed in its partner's legend."""
    return bool(figure.legends) or any(ax.get_legend() is not None for ax in axes)
