"""``mlcost step`` and ``mlcost roofline``: the predicted step on one GPU, and where its operators
sit on the roofline."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from mlcost.cli.options import (
    DEFAULT_GPU,
    STEP_LAYOUT,
    TRAINING,
    AllOption,
    ExplainOption,
    ForceOption,
    GpuOption,
    ImplementationOption,
    JsonOption,
    resolve_accelerator,
    resolve_model,
    with_options,
)
from mlcost.cli.output import (
    check_destination,
    print_answer,
    print_json,
    print_short,
    save_png,
    stdout_console,
)
from mlcost.errors import MlcostError
from mlcost.layout import Layout
from mlcost.results import SHORT_LINES, SHORT_WIDTH, short_rows
from mlcost.timing import MODES, StepTime, step_time
from mlcost.units import Q_
from mlcost.workload import TrainingConfig

if TYPE_CHECKING:
    import pandas as pd


@with_options(TRAINING, STEP_LAYOUT)
def step(
    model: Annotated[str, typer.Argument(help="Model name, alias, spec YAML or config.json.")],
    config: TrainingConfig,
    layout: Layout,
    gpu: GpuOption = DEFAULT_GPU,
    mode: Annotated[str, typer.Option(help="roofline (max) | no-overlap (sum)")] = "roofline",
    implementation: ImplementationOption = None,
    as_json: JsonOption = False,
    explain: ExplainOption = False,
    every: AllOption = False,
) -> None:
    """Predicted step time on one GPU, by operator kind, with MFU, HFU and the bottleneck."""
    if mode not in MODES:
        raise MlcostError(f"--mode: got {mode!r}, expected roofline or no-overlap")
    accelerator = resolve_accelerator(gpu)
    predicted = step_time(
        resolve_model(model), config, accelerator, layout, mode=mode,  # type: ignore[arg-type]
        implementation=implementation,
    )  # fmt: skip
    kinds = predicted.by_kind()
    if as_json:
        print_json(
            {
                "model": predicted.table.metadata.get("model"),
                "gpu": accelerator.name,
                "mode": mode,
                "step_time": predicted.total,
                "mfu": float(predicted.mfu()),
                "hfu": float(predicted.hfu()),
                "by_kind": [
                    {"kind": str(kind), "time": Q_(row["time_s"], "s").to("ms"),
                     "share": float(row["share"]), "bound": row["bound"]}
                    for kind, row in kinds.iterrows()
                ],
            }
        )  # fmt: skip
        return
    largest = [
        (str(kind), f"{row['time_s'] * 1e3:,.3f} ms, {row['share']:.1%} of the step, "
                    f"{row['bound']}-bound")
        for kind, row in kinds.head(STEP_KINDS).iterrows()
    ]  # fmt: skip
    print_answer(
        predicted, explain=explain, every=every,
        full=lambda: _print_step_table(predicted, kinds, mode), rows=largest,
    )  # fmt: skip


#: Operator kinds the short answer of ``mlcost step`` lists (the slowest).
STEP_KINDS = 3


def _print_step_table(predicted: StepTime, kinds: pd.DataFrame, mode: str) -> None:
    """``mlcost step --all``: the time of every operator kind, then the step, MFU and HFU."""
    table = Table(title=predicted.title(), title_justify="left")
    for column in ("kind", "ms", "share", "compute ms", "memory ms", "bound"):
        table.add_column(column, justify="left" if column in ("kind", "bound") else "right")
    for kind, row in kinds.iterrows():
        table.add_row(
            str(kind),
            f"{row['time_s'] * 1e3:,.3f}",
            f"{row['share']:.1%}",
            f"{row['compute_s'] * 1e3:,.3f}",
            f"{row['memory_s'] * 1e3:,.3f}",
            row["bound"],
        )
    console = stdout_console()
    console.print(table)
    console.print(
        f"step {predicted.total.magnitude:,.2f} ms ({mode}); MFU "
        f"{predicted.mfu():.1%}, HFU {predicted.hfu():.1%}"
    )


@with_options(TRAINING, STEP_LAYOUT)
def roofline(
    config: TrainingConfig,
    layout: Layout,
    model: Annotated[
        str | None, typer.Argument(help="Optional model to place on the roofline.")
    ] = None,
    gpu: Annotated[
        list[str] | None,
        typer.Option("--gpu", help="Accelerator(s): names, spec YAML or calibrated profiles."),
    ] = None,
    out: Annotated[Path | None, typer.Option("--plot", help="Write the figure (PNG) here.")] = None,
    force: ForceOption = False,
    as_json: JsonOption = False,
    every: Annotated[
        bool, typer.Option("--all", help="The table of GPUs and every operator placed.")
    ] = False,
) -> None:
    """Ridge points of GPUs, and where a model's operators sit on the roofline."""
    if out is not None:
        check_destination(out, "--plot", force=force)
    import matplotlib

    matplotlib.use("Agg")
    from mlcost import plot

    gpus = [resolve_accelerator(name) for name in (gpu or [DEFAULT_GPU])]
    fmt = config.policy.compute_format
    predicted = None
    if model is not None:
        predicted = step_time(resolve_model(model), config, gpus[0], layout)
    rows = []
    for accelerator in gpus:
        used = fmt if fmt in accelerator.formats else accelerator.formats[0]
        rows.append(
            {
                "gpu": accelerator.name, "format": used,
                "ridge_point": accelerator.ridge_point(used), "peak": accelerator.peak(used),
                "bandwidth": accelerator.memory_bandwidth,
            }
        )  # fmt: skip
    placed: list[dict[str, Any]] = []
    if predicted is not None:
        for op, timed in zip(predicted.table.operators, predicted.rows, strict=True):
            if op.bytes_moved <= 0 or op.total_flops <= 0:
                continue
            placed.append(
                {
                    "name": op.name,
                    "intensity": Q_(op.intensity, "flop/byte"),
                    "time": Q_(timed.total, "s").to("ms"),
                    "bound": str(timed.bound),
                }
            )
    if out is not None:
        save_png(plot.roofline(gpus, predicted, format=fmt), out, force=force)
    if as_json:
        print_json({"gpus": rows, "operators": placed, "figure": str(out) if out else None})
        return
    if not every:
        print_short(_roofline_short(rows, placed, predicted, out), ROOFLINE_MORE)
        return
    table = Table(title="roofline", title_justify="left")
    for column in ("gpu", "format", "peak TFLOP/s", "TB/s", "ridge FLOP/B"):
        table.add_column(column)
    for row in rows:
        table.add_row(
            row["gpu"],
            row["format"],
            f"{row['peak'].to('TFLOP/s').magnitude:,.1f}",
            f"{row['bandwidth'].to('TB/s').magnitude:g}",
            f"{row['ridge_point'].to('flop/byte').magnitude:.1f}",
        )
    console = stdout_console()
    console.print(table)
    for entry in placed:
        console.print(
            f"  {entry['name']}: {entry['intensity'].magnitude:,.1f} FLOP/B, "
            f"{_bound_text(entry['bound'])}, {entry['time'].magnitude:.3f} ms"
        )
    if out is not None:
        console.print(f"wrote {out}")


def _bound_text(bound: str) -> str:
    """What bounds an operator, in words: ``compute-bound``, ``memory-bound``, or, for a row
    :func:`mlcost.operator_time.bound_of` calls ``fused``, that it runs inside another kernel."""
    return "fused (no kernel of its own)" if bound == "fused" else f"{bound}-bound"


#: GPUs and operators the short answer of ``mlcost roofline`` lists (the slowest operators).
ROOFLINE_GPUS = 4
ROOFLINE_OPERATORS = 3
ROOFLINE_MORE = "--all: the table of GPUs and every operator placed"


def _roofline_short(
    rows: list[dict[str, Any]],
    placed: list[dict[str, Any]],
    predicted: StepTime | None,
    out: Path | None,
) -> list[str]:
    """``mlcost roofline``'s short answer: the verdict (how much of the step is compute-bound
    on the first GPU), each GPU's ridge point, the slowest operators, the figure written."""
    first = rows[0]
    if predicted is None:
        verdict = f"roofline of {len(rows)} GPU(s); operators above the ridge are compute-bound"
    else:
        bound = [entry for entry in placed if entry["bound"] == "compute"]
        share = sum(float(e["time"].magnitude) for e in bound) / max(
            sum(float(e["time"].magnitude) for e in placed), 1e-300
        )
        verdict = (
            f"{predicted.table.description} on {first['gpu']}: {len(bound)} of {len(placed)} "
            f"operators compute-bound ({share:.1%} of the operators' time)"
        )
    lines = textwrap.wrap(verdict, SHORT_WIDTH, subsequent_indent="  ")
    lines += short_rows(
        [(row["gpu"], f"ridge {row['ridge_point'].to('flop/byte').magnitude:.1f} FLOP/B = "
                      f"{row['peak'].to('TFLOP/s').magnitude:,.1f} TFLOP/s {row['format']} / "
                      f"{row['bandwidth'].to('TB/s').magnitude:g} TB/s")
         for row in rows[:ROOFLINE_GPUS]]
    )  # fmt: skip
    if len(rows) > ROOFLINE_GPUS:
        lines.append(f"and {len(rows) - ROOFLINE_GPUS} more GPU(s)")
    tail = [] if out is None else [f"wrote {out}"]
    slowest = sorted(placed, key=lambda e: -float(e["time"].magnitude))[:ROOFLINE_OPERATORS]
    if slowest:
        lines.append(f"slowest operators on {first['gpu']}")
    width = max((len(entry["name"]) for entry in slowest), default=0)  # one column
    for entry in slowest:
        row = short_rows(
            [(entry["name"].ljust(width),
              f"{entry['intensity'].magnitude:,.1f} FLOP/B, {_bound_text(entry['bound'])}, "
              f"{entry['time'].magnitude:.3f} ms")],
            indent="  ",
        )  # fmt: skip
        if len(lines) + len(row) + len(tail) >= SHORT_LINES:
            break
        lines += row
    return lines + tail
