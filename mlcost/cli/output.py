"""What every command prints: the console, JSON (quantities as ``{"value", "unit"}``, no NaN or
infinity), result tables, and figures written as PNG atomically."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from mlcost.io import write_bytes_atomically
from mlcost.results import Result, json_value


def stdout_console() -> Console:
    """Standard output; a fixed width when not a terminal, so piped tables do not wrap."""
    return Console(soft_wrap=False, width=None if sys.stdout.isatty() else 140)


def print_json(data: Any) -> None:
    """``data`` as indented, valid JSON: quantities as ``{"value", "unit"}`` objects, NaN and
    infinities as ``null`` (JSON has no number for them)."""
    typer.echo(json.dumps(json_value(data), indent=2, default=str, allow_nan=False))


def print_result(result: Result, *, title: str | None = None) -> None:
    """A result as a table: quantity, value, formula."""
    table = Table(title=title or result.title(), title_justify="left")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    table.add_column("formula", overflow="fold", max_width=70)
    for figure in result.figures():
        table.add_row(figure.name, figure.text(), figure.formula)
    stdout_console().print(table)


def print_explained(result: Result) -> None:
    """A result's :meth:`~mlcost.results.Result.explain` text, as it is."""
    stdout_console().print(result.explain(), highlight=False, markup=False)


def save_png(figure: Any, path: Path) -> None:
    """A matplotlib figure written as PNG, atomically."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=120, bbox_inches="tight")
    write_bytes_atomically(path, buffer.getvalue())
