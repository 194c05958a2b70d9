"""What every command prints: the console, JSON (quantities as ``{"value", "unit"}``, no NaN or
infinity), result tables, and figures written as new PNG files (the output rule of
:mod:`mlcost.io`)."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from mlcost.io import check_output, write_output
from mlcost.results import Result, json_value


def stdout_console() -> Console:
    """Standard output; a fixed width when not a terminal, so piped tables do not wrap. Text is
    printed as it is: never read as rich markup or emoji codes, so a spec's notes, a name or a
    formula with square brackets (``[k x n]``, ``[/fast]``) neither loses them nor fails to
    print; the commands style their own lines with :class:`rich.text.Text` (also the faster
    path: a table's cells skip the markup parser)."""
    return Console(
        soft_wrap=False, width=None if sys.stdout.isatty() else 140, markup=False, emoji=False
    )


def print_json(data: Any) -> None:
    """``data`` as indented, valid JSON in the one shape (:func:`mlcost.cli.app.envelope`:
    ``schema_version``, ``command``, then the fields): quantities as ``{"value", "unit"}``
    objects, NaN and infinities as ``null`` (JSON has no number for them)."""
    from mlcost.cli.app import envelope

    typer.echo(json.dumps(envelope(json_value(data)), indent=2, default=str, allow_nan=False))


def print_result(result: Result, *, title: str | None = None) -> None:
    """A result as a table: quantity, value, formula."""
    table = Table(title=title or result.title(), title_justify="left")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    table.add_column("formula", overflow="fold", max_width=70)
    for figure in result.figures():
        table.add_row(figure.name, figure.text(), figure.formula)
    stdout_console().print(table)


#: The last line of a short answer: where the rest is.
MORE = "--explain: formulas, numbers and sources; --all: every figure"


def print_answer(
    result: Result,
    *,
    explain: bool = False,
    every: bool = False,
    full: Callable[[], None] | None = None,
    rows: Sequence[tuple[str, str]] = (),
) -> None:
    """A result as a command prints it: the short answer (:meth:`Result.short`, ``rows`` after its
    figures; about ten lines of at most 80 columns) and where the rest is; with
    ``explain`` every figure with its formula, numbers and source; with ``every`` the command's
    ``full`` output (default: the table of every figure)."""
    if explain:
        print_explained(result)
    elif every:
        (full or (lambda: print_result(result)))()
    else:
        print_short([result.short(rows=rows)])


def print_short(lines: Sequence[str], more: str = MORE) -> None:
    """A short answer's ``lines`` (each may hold several), then ``more``: where the rest is."""
    for line in lines:
        typer.echo(line)
    typer.echo(more)


def print_explained(result: Result) -> None:
    """A result's :meth:`~mlcost.results.Result.explain` text, as it is."""
    stdout_console().print(result.explain(), highlight=False, markup=False)


def save_png(figure: Any, path: Path, *, force: bool = False, option: str = "--plot") -> None:
    """A matplotlib figure written as a new PNG file under the output rule
    (:func:`mlcost.io.write_output`: never over an existing file without ``--force``)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=120, bbox_inches="tight")
    write_output(path, buffer.getvalue(), option=option, suffixes=PNG, force=force)


#: The extension of a figure: what :func:`save_png` writes.
PNG = (".png",)


def check_destination(
    path: Path,
    option: str,
    *,
    folder: bool = False,
    suffixes: tuple[str, ...] = PNG,
    force: bool = False,
    inputs: tuple[str | Path, ...] = (),
) -> None:
    """Refuse, before any work, a ``path`` an ``option`` (``--plot``) cannot be written to under
    the output rule (:func:`mlcost.io.check_output`): a name too long, a missing folder, a
    folder path that is a file, an extension other than ``suffixes``, an existing file without
    ``force``, an input. One line naming the option and the path, so a long computation never
    ends in a write that was bound to fail."""
    check_output(
        path, option=option, folder=folder, suffixes=() if folder else suffixes, force=force,
        inputs=inputs,
    )  # fmt: skip
