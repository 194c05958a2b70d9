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
* ``_repr_html_()``: the table in a notebook;
* ``plot()`` where the result has a picture (it delegates to :mod:`mlcost.plot`).

It also holds the number-aware helpers of the vectorized formulas (:func:`where`,
:func:`maximum`, :func:`minimum`, :func:`clip`, :func:`floats`, :func:`flags`, :func:`ceil`,
:func:`floor`, :func:`largest`, :func:`first_largest`, :func:`any_true`): a formula written
with them runs on numpy arrays for a sweep or a search and on Python numbers for one
configuration, the same IEEE operations either way. :func:`distinct` is ``np.unique`` without
its first call's import of ``numpy.ma``.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import pint
from pydantic import BaseModel

if TYPE_CHECKING:
    import pandas as pd

from mlcost.records import Record
from mlcost.units import quantity_to_json, unit_text


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

    def to_json(self) -> dict[str, Any]:
        data = {
            "name": self.name,
            "key": self.key,
            "value": json_value(self.value),
            "formula": self.formula,
            "substituted": self.substituted,
            "source": self.source,
        }
        if self.band is not None:
            data["band"] = {
                "low": json_value(self.band[0]),
                "high": json_value(self.band[1]),
                "derivation": self.band_note,
            }
        return data


class LazyFigures(Sequence[Figure]):
    """A result's figures built when first read, then kept: ``build()`` returns them. For a
    result whose figures cost more to write than the numbers behind them (a memory breakdown's
    terms, each with its quantity and formula text), so a question about one number never
    formats the rest. Reads as the tuple ``build()`` gives (equal to it, same ``repr``)."""

    __slots__ = ("_build", "_built")

    def __init__(self, build: Callable[[], Iterable[Figure]]) -> None:
        self._build = build
        self._built: tuple[Figure, ...] | None = None

    def _figures(self) -> tuple[Figure, ...]:
        if self._built is None:
            self._built = tuple(self._build())
        return self._built

    @overload
    def __getitem__(self, index: int) -> Figure: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Figure, ...]: ...

    def __getitem__(self, index: int | slice) -> Figure | tuple[Figure, ...]:
        return self._figures()[index]

    def __len__(self) -> int:
        return len(self._figures())

    def __iter__(self) -> Iterator[Figure]:
        return iter(self._figures())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyFigures):
            return self._figures() == other._figures()
        return self._figures() == other

    __hash__ = None  # type: ignore[assignment]  # as a list's: it is compared by its figures

    def __add__(self, other: tuple[Figure, ...]) -> tuple[Figure, ...]:
        return self._figures() + tuple(other)

    def __radd__(self, other: tuple[Figure, ...]) -> tuple[Figure, ...]:
        return tuple(other) + self._figures()

    def __repr__(self) -> str:
        return repr(self._figures())

    def __reduce__(self) -> tuple[type, tuple[tuple[Figure, ...]]]:
        """Pickled as the tuple of its figures (written first): a pickle never carries the
        function that writes them, nor what that function holds."""
        return tuple, (self._figures(),)


def any_true(value: Any) -> bool:
    """``np.any(value)`` for the checks of hot paths: a Python scalar answers directly (numpy's
    reduction costs ~10 us per call on one number), an array through ``np.count_nonzero``."""
    if type(value) in _NUMBERS or isinstance(value, (bool, int, float)):
        return bool(value)
    return bool(np.count_nonzero(value))


def broadcast_shape(*values: Any) -> tuple[int, ...]:
    """``np.broadcast_shapes`` of the values' shapes, numbers (Python or numpy scalars) taken as
    ``()`` without numpy converting each one (~1.5 us apiece on the scalar paths)."""
    shapes = [
        value.shape if isinstance(value, np.ndarray) else np.shape(value)
        for value in values
        if not isinstance(value, (int, float, np.generic))  # a tuple: a union is slower
    ]
    return np.broadcast_shapes(*shapes) if shapes else ()


def maximum(left: Any, right: Any) -> Any:
    """``np.maximum(left, right)`` for the hot paths: two Python numbers, neither NaN, answer
    directly with the larger (numpy's ufunc costs ~1 us per call on numbers); anything else
    (arrays, NaN, which numpy propagates) goes through numpy."""
    if type(left) is float and type(right) is float:  # the usual case, first
        if left >= right:  # false where either is NaN
            return left
        if right > left:
            return right
    elif (
        type(left) in (int, float)
        and type(right) in (int, float)
        and left == left  # false only for NaN
        and right == right
    ):
        return left if left >= right else right
    return np.maximum(left, right)


def minimum(left: Any, right: Any) -> Any:
    """``np.minimum(left, right)`` for the hot paths, as :func:`maximum`: two Python numbers,
    neither NaN, answer directly with the smaller; anything else goes through numpy."""
    if type(left) is float and type(right) is float:  # the usual case, first
        if left <= right:  # false where either is NaN
            return left
        if right < left:
            return right
    elif (
        type(left) in (int, float)
        and type(right) in (int, float)
        and left == left  # false only for NaN
        and right == right
    ):
        return left if left <= right else right
    return np.minimum(left, right)


#: The types the number-aware helpers answer without numpy (a configuration of Python numbers).
_NUMBERS = (int, float, bool)


def where(condition: Any, yes: Any, no: Any) -> Any:
    """``np.where(condition, yes, no)`` for the hot paths: a Python bool choosing between two
    Python numbers picks directly (numpy builds three arrays for it); anything else goes
    through numpy (so an array operand keeps numpy's broadcast shape)."""
    if type(condition) is bool and type(yes) in _NUMBERS and type(no) in _NUMBERS:
        return yes if condition else no
    return np.where(condition, yes, no)


def divide(numerator: Any, denominator: Any) -> Any:
    """``numerator / denominator`` for the hot paths, IEEE division as numpy's (under
    ``np.errstate(divide="ignore", invalid="ignore")``) for Python numbers too: a zero
    denominator gives an infinity of the quotient's sign, or NaN for 0 / 0, where Python would
    raise ``ZeroDivisionError``; anything else goes through numpy's ``/``."""
    if type(numerator) in _NUMBERS and type(denominator) in _NUMBERS:
        if denominator:
            return numerator / denominator
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.float64(numerator) / np.float64(denominator))
    with np.errstate(divide="ignore", invalid="ignore"):
        return numerator / denominator


def floats(value: Any) -> Any:
    """``np.asarray(value, dtype=np.float64)`` for the hot paths: a Python number becomes a
    Python float (the same IEEE double numpy would hold); anything else goes through numpy."""
    if type(value) in _NUMBERS:
        return float(value)
    return np.asarray(value, dtype=np.float64)


def flags(value: Any) -> Any:
    """``np.asarray(value, dtype=bool)`` for the hot paths: a Python number becomes a bool."""
    if type(value) in _NUMBERS:
        return bool(value)
    return np.asarray(value, dtype=bool)


def ceil(value: Any) -> Any:
    """``np.ceil(value)`` for the hot paths: a positive finite Python float answers as a float
    (elsewhere numpy keeps the sign of zero of ``ceil(-0.5) = -0.0``)."""
    if type(value) is float and 0.0 < value < math.inf:
        return float(math.ceil(value))
    return np.ceil(value)


def floor(value: Any) -> Any:
    """``np.floor(value)`` for the hot paths: a positive finite Python float answers as a float
    (elsewhere numpy keeps the sign of zero of ``floor(-0.0)``)."""
    if type(value) is float and 0.0 < value < math.inf:
        return float(math.floor(value))
    return np.floor(value)


def clip(value: Any, low: Any, high: Any) -> Any:
    """``np.clip(value, low, high)`` for the hot paths: three Python numbers answer as numpy's
    clip of one-element arrays does (NaN from any of them propagates; of a value equal to a
    bound, the bound: the sign of a zero is the bound's)."""
    if type(value) is float and type(low) in _NUMBERS and type(high) in _NUMBERS:
        if value != value or low != low or high != high:  # NaN propagates, from any of them
            return math.nan
        raised = value if value > low else low
        return raised if raised < high else high
    return np.clip(value, low, high)


def largest(value: Any) -> Any:
    """``np.max(value)`` for the hot paths: a Python number is its own largest (numpy's
    reduction costs ~2 us per call on one number); anything else goes through numpy."""
    if type(value) in _NUMBERS:
        return value
    return np.max(value)


def distinct(values: Any) -> np.ndarray:
    """``np.unique(values)`` of numbers without NaN (the sorted distinct values, flattened):
    one value answers directly, more by a sort and a mask. numpy's ``unique`` imports
    ``numpy.ma`` on its first call, about 10 ms of a command line's start-up."""
    array = np.asarray(values).ravel()
    if array.size <= 1:
        return array.copy()
    ordered = np.sort(array)
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def first_largest(values: Sequence[float]) -> int:
    """``np.argmax`` of Python numbers: the index of the first largest, or of the first NaN
    (numpy takes NaN as the largest)."""
    best = 0
    for i, value in enumerate(values):
        if value != value:  # NaN
            return i
        if value > values[best]:
            best = i
    return best


def all_numbers(*values: Any) -> bool:
    """Whether every value is a Python number (the scalar path of a number-aware formula); a
    loop, not ``all()`` over a generator (half the cost, on every scalar formula)."""
    for value in values:  # noqa: SIM110 (the loop is the point: see the docstring)
        if type(value) not in _NUMBERS:
            return False
    return True


def first_value(value: Any) -> Any:
    """The single value of a one-configuration array (a plain Python value; a non-numpy value as
    it is): how the scalar answers read the vectorized evaluators' columns."""
    if type(value) in _NUMBERS:
        return value
    if type(value) is np.ndarray and value.size == 1:
        return value.item()  # the same value as below, without the reshape
    first = np.asarray(value).reshape(-1)[0]
    return first.item() if isinstance(first, np.generic) else first


def stack_rows(values: Sequence[Any], shape: tuple[int, ...]) -> np.ndarray:
    """Values of several rows (numbers, or arrays broadcastable to ``shape``) as one float64
    array ``(rows, *shape)``: each row broadcast and converted as ``np.asarray(value,
    np.float64)`` would be, so the same numbers."""
    if not shape:
        return np.array(values, dtype=np.float64)
    out = np.empty((len(values), *shape), dtype=np.float64)
    for i, value in enumerate(values):
        out[i] = value
    return out


def plain(value: Any) -> Any:
    """The result of a vectorized formula as a Python scalar when it is 0-dimensional, else the
    array (shapes of array inputs are kept): the one place arrays turn back into numbers."""
    array = np.asarray(value)
    return array.item() if array.ndim == 0 else array


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


class Result:
    """The verbs of every result object, derived from its :meth:`figures`.

    Subclasses implement :meth:`figures` (and :meth:`title`); they may override
    :meth:`to_frame` where a richer table exists.
    """

    def figures(self) -> list[Figure]:
        """Every figure of the result, in reading order."""
        raise NotImplementedError

    def title(self) -> str:
        """One line saying what the result is about."""
        return type(self).__name__

    def summary(self) -> pd.DataFrame:
        """One table of the figures in reading order: quantity, value (with its band), formula."""
        import pandas as pd

        return pd.DataFrame(
            [{"quantity": f.name, "value": f.text(), "formula": f.formula} for f in self.figures()]
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
                lines.append(f"    numbers: {figure.substituted}")
            if figure.source:
                lines.append(f"    source:  {figure.source}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """``{"title", "figures": [...]}`` with quantities as ``{"value", "unit"}``."""
        return {"title": self.title(), "figures": [f.to_json() for f in self.figures()]}

    def _repr_html_(self) -> str:
        import html  # on use: html.entities' table costs ~1.2 ms to import

        frame = self.to_frame()
        return f"<p>{html.escape(self.title())}</p>" + frame.to_html(index=False)


class Figures(Record, Result, frozen=True):
    """A titled set of figures, readable by name: ``plan.train()["wall clock"]`` is the value
    of the figure called "wall clock" (a quantity). ``entries`` is a tuple of figures, or a
    :class:`LazyFigures` that writes them when first read (a plan's answers)."""

    heading: str
    entries: Sequence[Figure]

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


__all__ = [
    "Figure",
    "Figures",
    "LazyFigures",
    "Result",
    "first_value",
    "json_value",
    "plain",
    "value_text",
]
