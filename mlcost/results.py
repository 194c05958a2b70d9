"""The one result vocabulary: an explained number (:class:`Figure`) and the verbs every result
object offers (:class:`Result`).

A :class:`Figure` is a value (a pint quantity, possibly an array of them in a sweep) with the
formula that produced it, the numbers substituted into that formula and the source of the
formula or of its inputs. Every result of mlcost (a step time, a memory breakdown, a multi-GPU
step, a plan, a search) is a :class:`Result`: it lists its figures, and from them offers

* ``to_frame()``: a pandas DataFrame, one row per figure (results with a natural table, such as
  the operator times of a step, override it);
* ``explain()``: each figure with its formula, the numbers substituted and the source;
* ``to_json()``: a JSON-ready mapping, quantities as ``{"value", "unit"}``;
* ``verdict()`` / ``short()``: the short answer (about ten figures, what the CLI prints by
  default); ``summary()`` and ``_repr_html_()`` lead with the same figures in the same order;
* ``_repr_html_()``: the table in a notebook;
* ``plot()`` where the result has a picture (it delegates to :mod:`mlcost.plot`).
"""

from __future__ import annotations

import datetime
import math
import re
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pint
from pydantic import BaseModel

if TYPE_CHECKING:
    import pandas as pd

from mlcost.records import Record
from mlcost.units import quantity_to_json, unit_text

#: A NaN or infinity as Python formats it (``nan``, ``-inf``), standing alone in a text.
_NOT_A_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:nan|inf)(?!\w)", re.IGNORECASE)


class Figure(Record, frozen=True):
    """One number with its derivation: ``value`` (a quantity), ``formula``, the numbers
    ``substituted`` into it and its ``source``. ``key`` is a stable identifier for programs
    (an enum value such as a memory term), independent of the display ``name``."""

    name: str
    value: Any
    formula: str = ""
    substituted: str = ""
    source: str = ""
    key: str | None = None
    band: tuple[Any, Any] | None = None  # (low, high): the value's uncertainty band
    band_note: str = ""  # its level and how it was derived

    def text(self) -> str:
        """The value as a person reads it (``unknown`` for NaN, ``n/a`` for None), with its band."""
        if self.band is None:
            return value_text(self.value)
        low, high = (value_text(v) for v in self.band)
        return f"{value_text(self.value)} ({self.band_note.split(':')[0]} {low} to {high})"

    def numbers(self) -> str:
        """The numbers substituted into the formula as shown: a number that is not known (NaN,
        an infinity formatted into the text) reads ``unknown``, never ``nan`` (issue 65)."""
        return _NOT_A_NUMBER.sub("unknown", self.substituted)

    def to_json(self) -> dict[str, Any]:
        data = {
            "name": self.name,
            "key": self.key,
            "value": json_value(self.value),
            "formula": self.formula,
            "substituted": self.numbers(),
            "source": self.source,
        }
        if self.band is not None:
            data["band"] = {
                "low": json_value(self.band[0]),
                "high": json_value(self.band[1]),
                "derivation": self.band_note,
            }
        return data


def value_text(value: Any) -> str:
    """Short display text of a figure's value and its unit: 4 significant digits below 10,000
    (``5.39 ms``, ``1,050 W``), the whole number with thousands separators from 10,000 up to a
    million (``31,934 ms``, ``291,235 USD``: Python's ``g`` format would write ``3.193e+04``),
    4 significant digits in scientific notation above (``6.738e+09 param``)."""
    if value is None:
        return "n/a"
    if isinstance(value, pint.Quantity):
        magnitude = value.magnitude
        if np.ndim(magnitude):
            low, high = np.nanmin(magnitude), np.nanmax(magnitude)
            return f"{low:.4g}..{high:.4g} {unit_text(value, '~P')}"
        if isinstance(magnitude, float) and math.isnan(magnitude):
            return "unknown"
        if isinstance(magnitude, (int, np.integer)) or (
            isinstance(magnitude, float) and magnitude.is_integer() and abs(magnitude) < 1e6
        ):
            return f"{int(magnitude):,} {unit_text(value, '~P')}".strip()
        if abs(magnitude) < 9999.5:  # what rounds to 10,000 at 4 digits takes the next form
            return f"{magnitude:,.4g} {unit_text(value, '~P')}".strip()
        if abs(magnitude) < 1e6:
            return f"{magnitude:,.0f} {unit_text(value, '~P')}".strip()
        return f"{magnitude:.4g} {unit_text(value, '~P')}".strip()
    if isinstance(value, float):
        return "unknown" if math.isnan(value) else f"{value:.4g}"
    return str(value)


def sweep_text(value: Any) -> str:
    """A description's text of a number or of a sweep's values: the number as it is, an array
    as ``low..high (n values)`` (one value: that value; none: ``[]``). numpy's own text of an
    array costs a fifth of a millisecond, more than the step it describes, and lists values a
    title cannot hold."""
    if isinstance(value, (int, float)) or not np.ndim(value):
        return str(value)
    values = np.asarray(value)
    if values.size == 0:
        return "[]"
    low, high = values.min(), values.max()
    return str(low) if values.size == 1 or low == high else f"{low}..{high} ({values.size} values)"


def json_value(value: Any) -> Any:
    """A JSON-ready form: quantities as ``{"value", "unit"}`` (:func:`mlcost.units.
    quantity_to_json`), NaN and infinities as ``None`` (JSON has no number for them), numpy
    scalars as Python numbers, arrays as lists, spec parts (pydantic models) as objects of their
    set fields, dates as ISO strings."""
    if isinstance(value, pint.Quantity):
        return quantity_to_json(value)
    if isinstance(value, np.ndarray):
        return [json_value(item) for item in value.tolist()]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return number if math.isfinite(number) else None
    if isinstance(value, BaseModel):
        return {
            key: json_value(getattr(value, key))
            for key in type(value).model_fields
            if getattr(value, key) is not None
        }
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    return value


#: Figures in the short answer of a result that names none (:attr:`Result.VERDICT`).
VERDICT_FIGURES = 8

#: The width of the short answer: an 80-column terminal.
SHORT_WIDTH = 80

#: The most lines of a short answer, its last (where the rest is) included (issue 64).
SHORT_LINES = 12


def _short_text(figure: Figure) -> str:
    """A figure's value for the short answer: :meth:`Figure.text` with the band's unit said
    once (``1,707 token/s (80% band 1,436 to 1,883)``), no band for an unknown value."""
    value = value_text(figure.value)
    if figure.band is None or value == "unknown":
        return value
    unit = value.partition(" ")[2]
    low, high = (value_text(v).removesuffix(f" {unit}" if unit else "") for v in figure.band)
    return f"{value} ({figure.band_note.split(':')[0]} {low} to {high})"


def short_rows(
    rows: Sequence[tuple[str, str]], width: int = SHORT_WIDTH, indent: str = ""
) -> list[str]:
    """``(label, text)`` rows of a short answer: the labels in one column after ``indent``,
    each row wrapped to ``width`` columns under its text."""
    column = len(indent) + max((len(label) for label, _ in rows), default=0) + 2
    lines: list[str] = []
    for label, text in rows:
        line = f"{indent}{label:<{column - len(indent)}}{text}"
        lines += textwrap.wrap(line, width, subsequent_indent=" " * column)
    return lines


class Result:
    """The verbs of every result object, derived from its :meth:`figures`.

    Subclasses implement :meth:`figures` (and :meth:`title`); they may override
    :meth:`to_frame` where a richer table exists, and name in :attr:`VERDICT` the figures of
    their short answer.
    """

    #: The names of the figures the short answer shows, in order; empty: the first
    #: :data:`VERDICT_FIGURES` figures.
    VERDICT: ClassVar[tuple[str, ...]] = ()

    def figures(self) -> list[Figure]:
        """Every figure of the result, in reading order."""
        raise NotImplementedError

    def title(self) -> str:
        """One line saying what the result is about."""
        return type(self).__name__

    def verdict(self) -> list[Figure]:
        """The figures of the short answer, in the order of :attr:`VERDICT` (those the result
        has: a run that does not fit has no time or cost)."""
        figures = self.figures()
        if not self.VERDICT:
            return figures[:VERDICT_FIGURES]
        by_name = {f.name: f for f in figures}
        return [by_name[name] for name in self.VERDICT if name in by_name]

    def short(self, width: int = SHORT_WIDTH, rows: Sequence[tuple[str, str]] = ()) -> str:
        """The short answer as text no wider than ``width``: the title, then one line per
        :meth:`verdict` figure (name, value; a band where the value is known) and per
        ``(label, text)`` of ``rows``, in one column (:func:`short_rows`)."""
        chosen = [(f.name, _short_text(f)) for f in self.verdict()]
        lines = textwrap.wrap(self.title(), width, subsequent_indent="  ")
        return "\n".join(lines + short_rows([*chosen, *rows], width))

    def summary(self) -> pd.DataFrame:
        """One table of every figure: quantity, value (with its band), formula; the
        :meth:`verdict` figures first, in its order, then the others in reading order."""
        import pandas as pd

        first = self.verdict()
        names = {f.name for f in first}
        rest = [f for f in self.figures() if f.name not in names]
        return pd.DataFrame(
            [{"quantity": f.name, "value": f.text(), "formula": f.formula} for f in first + rest]
        ).set_index("quantity")

    def to_frame(self) -> pd.DataFrame:
        """One row per figure: name, value, unit, formula, source."""
        import pandas as pd

        rows = []
        for figure in self.figures():
            value = figure.value
            magnitude = value.magnitude if isinstance(value, pint.Quantity) else value
            unit = unit_text(value, "~P") if isinstance(value, pint.Quantity) else ""
            rows.append(
                {
                    "quantity": figure.name,
                    "value": magnitude,
                    "unit": unit,
                    "text": figure.text(),
                    "formula": figure.formula,
                    "source": figure.source,
                }
            )
        return pd.DataFrame(rows)

    def explain(self) -> str:
        """Each figure with its formula, the numbers substituted and its source."""
        lines = [self.title()]
        for figure in self.figures():
            lines.append(f"{figure.name} = {figure.text()}")
            if figure.formula:
                lines.append(f"    formula: {figure.formula}")
            if figure.substituted:
                lines.append(f"    numbers: {figure.numbers()}")
            if figure.source:
                lines.append(f"    source:  {figure.source}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """``{"title", "figures": [...]}`` with quantities as ``{"value", "unit"}``."""
        return {"title": self.title(), "figures": [f.to_json() for f in self.figures()]}

    def _repr_html_(self) -> str:
        """The title, the short answer's table, then every figure under a fold (the
        :meth:`summary` order)."""
        import html  # on use: html.entities' table costs ~1.2 ms to import

        table = self.summary()
        short = len(self.verdict())
        return (
            f"<p>{html.escape(self.title())}</p>"
            + table.iloc[:short].to_html()
            + "<details><summary>every figure, with its formula</summary>"
            + table.to_html()
            + "</details>"
        )


class Figures(Record, Result, frozen=True):
    """A titled set of figures, readable by name: ``plan.train()["wall clock"]`` is the value
    of the figure called "wall clock" (a quantity)."""

    heading: str
    entries: tuple[Figure, ...]

    def title(self) -> str:
        return self.heading

    def figures(self) -> list[Figure]:
        return list(self.entries)

    def __getitem__(self, name: str) -> Any:
        for figure in self.entries:
            if name in (figure.name, figure.key):
                return figure.value
        raise KeyError(f"{name!r}: expected one of {', '.join(self.keys())}")

    def keys(self) -> list[str]:
        return [figure.name for figure in self.entries]

    def items(self) -> list[tuple[str, Any]]:
        """(name, value) of every figure, as a mapping's ``items()``."""
        return [(figure.name, figure.value) for figure in self.entries]


__all__ = ["Figure", "Figures", "Result", "json_value", "sweep_text", "value_text"]
