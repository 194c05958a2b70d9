"""The checks at mlcost's public boundary, in one place (issue 65).

Every public function and command checks what it is given once, where it enters, and raises
:class:`mlcost.errors.MlcostError` (one line naming the field, the value, what was expected and
what to do) instead of letting a wrong type or a value outside physics reach a formula:

* :func:`argument`: an argument that is one of mlcost's records (a :class:`TrainingConfig`, a
  :class:`Layout`, a :class:`FineTuning`...): the record itself, or a mapping of its fields
  (validated by the record's own pydantic validators); anything else is refused;
* :func:`finite`: numbers (scalars or numpy arrays, every element) that must be finite and
  above (or at least) a bound;
* :func:`counts`: whole numbers >= a bound (degrees, ranks, batch sizes), scalars or arrays;
* :func:`quantity`: a quantity of the right dimension (:func:`mlcost.units.magnitude_in`)
  whose magnitude passes :func:`finite`.

Checks of a spec's own fields live on the spec (pydantic validators in :mod:`mlcost.specs`);
checks of a value against a model's structure (heads, layers, experts, hidden size, context) on
:class:`mlcost.layout.Layout` (:meth:`~mlcost.layout.Layout.check_model`) and
:class:`mlcost.finetune.FineTuning`. ``docs/validation-table.md`` lists what each public
function validates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import numpy as np

from mlcost.errors import MlcostError
from mlcost.units import magnitude_in

T = TypeVar("T")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def argument(value: Any, kind: type[T], field: str) -> T:
    """``value`` as a ``kind`` record: the record itself, or a mapping of its fields (built and
    checked by ``kind``); anything else is refused with one line naming ``field``."""
    if isinstance(value, kind):
        return value
    if isinstance(value, Mapping):
        return kind(**value)
    name = kind.__name__
    raise MlcostError(
        f"{field}: got {type(value).__name__} {_shown(value)}, expected a {name} (or a dict of "
        f"its fields); e.g. mlcost.{name}(...)"
    )


def finite(
    value: Any, field: str, *, minimum: float = 0.0, strict: bool = False, unit: str = ""
) -> Any:
    """``value`` unchanged when every element is a finite number ``>= minimum`` (``> minimum``
    with ``strict``); else one line naming ``field`` (and the ``unit`` ``value`` is in)."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        array = np.asarray([np.nan])
    bound = f"> {minimum:g}" if strict else f">= {minimum:g}"
    below = array <= minimum if strict else array < minimum
    # the arrays' own reductions (one path for a number and an array, without numpy's
    # module-level wrappers: a search checks thousands of numbers)
    if array.size == 0 or not np.isfinite(array).all() or below.any():
        given = f"{_shown(value)} {unit}".rstrip()
        raise MlcostError(f"{field}: got {given}, expected a finite number {bound}")
    return value


def quantity(
    value: Any, unit: str, field: str, *, minimum: float = 0.0, strict: bool = False
) -> Any:
    """The magnitude of ``value`` in ``unit`` (the unit guard,
    :func:`mlcost.units.magnitude_in`: a quantity of that dimension), every element finite and
    ``>= minimum`` (``> minimum`` with ``strict``)."""
    return finite(
        magnitude_in(value, unit, field), field, minimum=minimum, strict=strict, unit=unit
    )


def counts(value: Any, field: str, *, minimum: int = 1) -> Any:
    """``value`` unchanged when every element is a whole number ``>= minimum``; else one line
    naming ``field``."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        array = np.asarray([np.nan])
    if (
        isinstance(value, bool)
        or array.size == 0
        or not np.isfinite(array).all()
        or (array != np.rint(array)).any()
        or (array < minimum).any()
    ):
        raise MlcostError(f"{field}: got {_shown(value)}, expected whole numbers >= {minimum}")
    return value


__all__ = ["argument", "counts", "finite", "quantity"]
