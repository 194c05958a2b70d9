"""``mlcost flops`` and ``mlcost ops``: the FLOPs and the operator table of one training step."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from mlcost.cli.options import (
    STEP_LAYOUT,
    TRAINING,
    AllOption,
    ExplainOption,
    ForceOption,
    JsonOption,
    ModelArgument,
    resolve_model,
    with_options,
)
from mlcost.cli.output import print_answer, print_json, print_short, stdout_console
from mlcost.flops import FlopsSummary, training_flops
from mlcost.io import check_output, write_output
from mlcost.layout import Layout
from mlcost.results import SHORT_WIDTH, short_rows
from mlcost.units import quantity_to_json
from mlcost.workload import TrainingConfig, operators
from mlcost.workload.table import OperatorTable


@with_options(TRAINING, STEP_LAYOUT)
def flops(
    model: ModelArgument,
    config: TrainingConfig,
    layout: Layout,
    as_json: JsonOption = False,
    explain: ExplainOption = False,
    every: AllOption = False,
) -> None:
    """FLOPs of one training step: exact count, model vs hardware FLOPs, closed forms."""
    spec = resolve_model(model)
    result = training_flops(spec, config, layout)
    rows = result.rows()
    if as_json:
        print_json(
            {
                "model": spec.name,
                "config": config.model_dump(mode="json"),
                "layout": layout.model_dump(mode="json"),
                "tokens_per_step": quantity_to_json(result.tokens),
                "model_flops_per_token": quantity_to_json(result.model_flops_per_token),
                "rows": [
                    {"quantity": name, "flops": quantity_to_json(value), "vs_exact": diff}
                    for name, value, diff in rows
                ],
            }
        )
        return
    closed = [
        (name, f"{value.to('flop').magnitude:.3e} FLOP, {diff:+.2%} vs exact")
        for name, value, diff in rows
        if name in SHORT_CLOSED_FORMS and diff is not None
    ]
    print_answer(
        result, explain=explain, every=every, full=lambda: _print_flops_table(result),
        rows=[("tokens per step", f"{result.tokens.magnitude:,}"),
              ("model FLOPs per token", f"{result.model_flops_per_token.magnitude:,.4g}"),
              *closed],
    )  # fmt: skip


#: The closed forms the short answer of ``mlcost flops`` sets against the exact count.
SHORT_CLOSED_FORMS = ("6ND",)


def _print_flops_table(result: FlopsSummary) -> None:
    """``mlcost flops --all``: every exact figure and closed form, then tokens and per token."""
    table = Table(title=result.title(), title_justify="left")
    table.add_column("quantity")
    table.add_column("FLOPs", justify="right")
    table.add_column("vs exact model FLOPs", justify="right")
    for name, value, diff in result.rows():
        table.add_row(name, f"{value.to('flop').magnitude:.4e}", f"{diff:+.2%}" if diff else "")
    console = stdout_console()
    console.print(table)
    console.print(
        f"tokens per step: {result.tokens.magnitude:,}; model FLOPs per token: "
        f"{result.model_flops_per_token.magnitude:,.4g}"
    )


@with_options(TRAINING, STEP_LAYOUT)
def ops(
    model: ModelArgument,
    config: TrainingConfig,
    layout: Layout,
    csv: Annotated[Path | None, typer.Option("--csv", help="Write the table as CSV here.")] = None,
    force: ForceOption = False,
    as_json: JsonOption = False,
    every: Annotated[
        bool, typer.Option("--all", help="Every operator (default: the largest).")
    ] = False,
) -> None:
    """The operator table of one training step (per-execution figures; see 'count')."""
    if csv is not None:
        check_output(csv, option="--csv", suffixes=(".csv",), force=force, inputs=(model,))
    table_of_ops = operators(resolve_model(model), config, layout)
    if csv is not None:
        write_output(
            csv, table_of_ops.to_frame().to_csv(index=False), option="--csv", suffixes=(".csv",),
            force=force, inputs=(model,),
        )  # fmt: skip
        typer.echo(f"wrote {csv} ({len(table_of_ops)} operators)")
        return
    if as_json:
        print_json(table_of_ops.to_frame().to_dict(orient="records"))
        return
    if not every:
        print_short(_ops_short(table_of_ops), "--all: every operator, forward and backward")
        return
    table = Table(title=f"operators: {table_of_ops.description}", title_justify="left")
    for column in ("name", "kind", "count", "forward GFLOP", "backward GFLOP", "saved MB"):
        table.add_column(column, justify="left" if column in ("name", "kind") else "right")
    for op in table_of_ops.operators:
        table.add_row(
            op.name,
            str(op.kind),
            f"{op.count:g}",
            f"{op.forward_flops / 1e9:,.3f}",
            f"{op.backward_flops / 1e9:,.3f}",
            f"{op.saved_bytes / 1e6:,.2f}",
        )
    stdout_console().print(table)


#: Operators the short answer of ``mlcost ops`` lists (the most FLOPs per step).
SHORT_OPERATORS = 4


def _ops_short(table: OperatorTable) -> list[str]:
    """``mlcost ops``'s short answer: how many operators, the step's model FLOPs and saved
    bytes, and the operators with the most FLOPs per step (count x per execution)."""
    lines = textwrap.wrap(
        f"{len(table)} operators: {table.description}", SHORT_WIDTH, subsequent_indent="  "
    )
    lines += short_rows(
        [("model FLOPs", f"{table.model_flops.to('flop').magnitude:.4e} (forward + backward)"),
         ("saved for backward", f"{table.saved_bytes.to('MB').magnitude:,.2f} MB per micro-batch")]
    )  # fmt: skip
    largest = sorted(
        table.operators, key=lambda op: -op.count * (op.forward_flops + op.backward_flops)
    )[:SHORT_OPERATORS]
    lines.append("most FLOPs per step (count x forward + backward GFLOP per execution)")
    width = max(len(op.name) for op in largest)
    lines += short_rows(
        [(op.name.ljust(width),
          f"{op.count:g} x {(op.forward_flops + op.backward_flops) / 1e9:,.3f}")
         for op in largest],
        indent="  ",
    )  # fmt: skip
    return lines
