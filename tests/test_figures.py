"""Issue 64: every figure the package or a notebook draws serves a reader. Each is rendered and
its axes inspected: a title, axis labels with their units, a legend where there are several
series, and no text drawn over other text (matplotlib's rendered extents of tick labels,
annotations, titles and axis labels). The package's figures are built here, the trace
calibration's (measured against predicted, class by class) from a trace the project holds; the
notebooks' figures by running each notebook's code in this process and inspecting every figure
it draws (shown, saved or left open)."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
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
from mlcost.trace_fit import calibrate_from_trace, compare_trace
from mlcost.validate import bench_training, training_spec
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


#: The H200 traces the project holds (tests/test_trace_fit.py uses them too).
TRACES = Path(__file__).resolve().parents[1] / "benchmarks/data/h200-2026-11-27"


def _trace_comparison() -> Any:
    """The trace calibration's figure: a profile fitted from one GPT-3 350M trace, then the
    125M run's trace against its prediction, class by class (``mlcost calibrate --trace``)."""
    rows = json.loads((TRACES / "training.json").read_text())["rows"]
    by_key = {(r["name"], r["micro_batch_size"], r["recompute"]): r for r in rows}
    fitted_row, row = by_key[("gpt3-350m", 8, "none")], by_key[("gpt3-125m", 8, "none")]
    fitted = calibrate_from_trace(
        TRACES / "traces" / fitted_row["trace"], training_spec(fitted_row),
        bench_training(fitted_row["sequence_length"], "bf16-mixed"),
        Layout(micro_batch_size=8), base="h200-sxm-141gb", implementation="ddp-eager",
        step_seconds=fitted_row["step_median_s"],
    )  # fmt: skip
    comparison = compare_trace(
        TRACES / "traces" / row["trace"], training_spec(row),
        bench_training(row["sequence_length"], "bf16-mixed"), fitted.profile,
        Layout(micro_batch_size=8), implementation="ddp-eager",
        step_seconds=row["step_median_s"],
    )  # fmt: skip
    return comparison.plot().figure


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
    "trace calibration": _trace_comparison,
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
    problems = figure_problems(figure)
    matplotlib.pyplot.close(figure)
    assert not problems, f"{name}: " + "; ".join(problems[:8])


def figure_problems(figure: Any) -> list[str]:
    """What keeps a rendered figure from serving a reader: an untitled figure, a numeric axis
    without a label or a unit, several series without a legend, text drawn over text."""
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
    return problems


def _shared_legend(figure: Any, axes: list[Any]) -> bool:
    """A figure legend, or a twin axes' series listed in its partner's legend."""
    return bool(figure.legends) or any(ax.get_legend() is not None for ax in axes)


NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@contextlib.contextmanager
def _kept_figures() -> Iterator[list[Any]]:
    """Every figure closed while the block runs, kept open for inspection (a notebook shows a
    figure by saving it to PNG and closing it)."""
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    kept: list[Any] = []
    close = plt.close

    def keep(fig: Any = None) -> None:
        if isinstance(fig, Figure):
            kept.append(fig)
        else:
            close(fig)

    plt.close = keep  # type: ignore[assignment]
    try:
        yield kept
    finally:
        plt.close = close


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_a_notebook_figure_serves_a_reader(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each notebook's code cells run in order in one namespace (IPython magics left out: the
    backend is Agg here), and each figure a cell draws is checked as the package's are. At
    least as many are found as the notebook's saved outputs show."""
    import matplotlib.pyplot as plt

    notebook = json.loads(path.read_text())
    monkeypatch.chdir(path.parent)
    namespace: dict[str, Any] = {"__name__": "__notebook__"}
    problems, found = [], 0
    plt.close("all")
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        lines = "".join(cell["source"]).splitlines()
        code = "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))
        with _kept_figures() as kept, contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, f"{path.name}, cell {index}", "exec"), namespace)
        figures = kept + [plt.figure(number) for number in plt.get_fignums()]
        for figure in figures:
            found += 1
            problems += [f"cell {index}: {p}" for p in figure_problems(figure)]
        plt.close("all")
    shown = sum(
        "image/png" in output.get("data", {})
        for cell in notebook["cells"]
        for output in cell.get("outputs", [])
    )
    assert found >= shown, f"{path.name}: {found} figures drawn, {shown} shown"
    assert not problems, f"{path.name}: " + "; ".join(problems[:8])
