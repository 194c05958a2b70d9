"""What every command prints: the console, JSON (quantities as ``{"value", "unit"}``, no NaN or
infinity), result tables, and figures written as PNG atomically."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from mlcost.errors import MlcostError
from mlcost.io import TEMPORARY_NAME_EXTRA_BYTES, write_bytes_atomically
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


def print_answer(result: Result, *, explain: bool = False, every: bool = False) -> None:
    """A result as a command prints it: the short answer (:meth:`Result.short`, about ten lines
    of at most 80 columns) and where the rest is; with ``explain`` every figure with its
    formula, numbers and source; with ``every`` the table of every figure."""
    if explain:
        print_explained(result)
    elif every:
        print_result(result)
    else:
        typer.echo(result.short())
        typer.echo(MORE)


def print_explained(result: Result) -> None:
    """A result's :meth:`~mlcost.results.Result.explain` text, as it is."""
    stdout_console().print(result.explain(), highlight=False, markup=False)


def save_png(figure: Any, path: Path) -> None:
    """A matplotlib figure written as PNG, atomically."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=120, bbox_inches="tight")
    write_bytes_atomically(path, buffer.getvalue())


def check_destination(path: Path, option: str, *, folder: bool = False) -> None:
    """Refuse, before any work, a ``path`` an ``option`` (``--plot``) cannot be written to: a
    name longer than the file system allows (for a file, with the temporary name of its atomic
    write), a file whose folder does not exist or is a file, a file path that is a folder, or,
    with ``folder``, a folder path that is a file or lies under one. One line naming the option
    and the path, so a long computation never ends in a write that was bound to fail."""
    expected = "a folder (created if missing)" if folder else "a file path in an existing folder"
    target = path.expanduser()
    chain = (target, *target.parents)
    existing = next((p for p in chain if _exists(p)), Path("."))
    limit = _name_limit(existing if existing.is_dir() else existing.parent)
    shown = str(path) if len(str(path)) <= 60 else f"{str(path)[:57]}..."
    longest = max(len(os.fsencode(p.name)) for p in chain)
    if longest > limit:
        raise MlcostError(
            f"{option}: {shown}: a name of {longest} bytes; expected at most {limit} bytes per "
            "name on this file system; choose a shorter name"
        )
    name = len(os.fsencode(target.name))
    if not folder and name > limit - TEMPORARY_NAME_EXTRA_BYTES:
        raise MlcostError(
            f"{option}: {shown}: a file name of {name} bytes; expected at most "
            f"{limit - TEMPORARY_NAME_EXTRA_BYTES} (this file system's {limit}, less the temporary "
            "name of the atomic write); choose a shorter name"
        )
    if folder:
        if not existing.is_dir():
            raise MlcostError(f"{option}: {existing} is a file; expected {expected}")
        return
    if target.is_dir():
        raise MlcostError(f"{option}: {path} is a folder; expected {expected}")
    parent = target.parent
    if not parent.is_dir():
        what = "is a file" if parent.exists() else "does not exist"
        raise MlcostError(f"{option}: {parent} {what}; expected {expected}")


def _exists(path: Path) -> bool:
    """Whether ``path`` exists (False where it cannot even be looked up: a name too long)."""
    try:
        return path.exists()
    except OSError:
        return False


def _name_limit(folder: Path) -> int:
    """The longest file name ``folder``'s file system allows, in bytes (255 where it does not
    say)."""
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError):
        return 255
