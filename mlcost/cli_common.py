"""What every mlcost command shares: the console, JSON output, and parsing of quantity, count
and figure options (so each subcommand module uses one implementation)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pint
import typer
from rich.console import Console

from mlcost.errors import MlcostError, UnitError
from mlcost.io import write_bytes_atomically
from mlcost.units import Q_, check_dimension, parse_quantity, quantity_to_json

#: Suffixes a count option accepts: ``70B`` parameters, ``2T`` tokens.
COUNT_SUFFIXES = {"K": 1e3, "M": 1e6, "B": 1e9, "G": 1e9, "T": 1e12, "P": 1e15}


def stdout_console() -> Console:
    """Standard output; a fixed width when not a terminal, so piped tables do not wrap."""
    return Console(soft_wrap=False, width=None if sys.stdout.isatty() else 140)


def print_json(data: Any) -> None:
    """``data`` as indented JSON; quantities as ``{"value", "unit"}`` objects."""

    def convert(value: Any) -> Any:
        if isinstance(value, pint.Quantity):
            return quantity_to_json(value)
        if isinstance(value, dict):
            return {k: convert(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [convert(v) for v in value]
        return value

    typer.echo(json.dumps(convert(data), indent=2, default=str))


def quantity_option(text: str, unit: str, option: str) -> pint.Quantity:
    """``'70GiB'``, ``'2.5 USD/hour'`` or a bare number taken in ``unit``; must be > 0."""
    try:
        quantity = Q_(float(text), unit)
    except ValueError:
        try:
            quantity = check_dimension(parse_quantity(text, field=option), unit, field=option)
        except UnitError:
            raise MlcostError(f"{option}: got {text!r}, expected a quantity in {unit}") from None
    if not quantity.magnitude > 0:
        raise MlcostError(f"{option}: got {text!r}, expected a quantity in {unit} that is > 0")
    return quantity


def count_option(text: str, option: str) -> float:
    """``70B``, ``2T``, ``2e12``, ``1.5M`` as a positive number."""
    cleaned = text.strip().replace(",", "").replace("_", "")
    scale = 1.0
    if cleaned and cleaned[-1].upper() in COUNT_SUFFIXES:
        scale, cleaned = COUNT_SUFFIXES[cleaned[-1].upper()], cleaned[:-1]
    try:
        value = float(cleaned) * scale
    except ValueError:
        raise MlcostError(
            f"{option}: got {text!r}, expected a count such as 70B, 2T or 7e10"
        ) from None
    if not value > 0:
        raise MlcostError(f"{option}: got {text!r}, expected a count > 0")
    return value


def save_png(figure: Any, path: Path) -> None:
    """A matplotlib figure written as PNG, atomically."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=120)
    write_bytes_atomically(path, buffer.getvalue())
