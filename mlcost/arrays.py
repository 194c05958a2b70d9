"""The types of mlcost's formulas and the few array helpers numpy does not have.

Every formula is written once, on numpy arrays: one configuration is arrays of length one (or
plain numbers, which numpy treats as 0-d arrays), and a sweep over 100,000 configurations is one
call. :data:`Real` is what a formula takes and returns.

* :func:`divide`: IEEE division, ``x / 0`` an infinity (or NaN for ``0 / 0``) without a warning.
* :func:`distinct`: the sorted distinct values of an array.
* :func:`stack_rows`: the values of several rows (numbers or arrays) as one array.
* :func:`plain`: a 0-d result as a Python number, an array as it is (the public edge).
* :func:`only`: the one value of one configuration's column, as a Python number.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

#: An array of float64 values (one per configuration of a sweep).
Array: TypeAlias = npt.NDArray[np.float64]
#: A formula's number: a Python float (or int), or an array of them.
Real: TypeAlias = float | npt.NDArray[Any]
#: A formula's truth value: a bool, or an array of them (one per configuration).
Flags: TypeAlias = bool | npt.NDArray[np.bool_]


def divide(numerator: Real, denominator: Real) -> Any:
    """``numerator / denominator`` as IEEE 754 divides: a zero denominator gives an infinity of
    the quotient's sign, or NaN for ``0 / 0``, where Python raises ``ZeroDivisionError`` and
    numpy warns. Numbers are divided as float64 (a 0-d result is a numpy float)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(numerator, denominator, dtype=np.float64)


def distinct(values: Real) -> Array:
    """The sorted distinct values of ``values`` (flattened; NaN-free input): ``np.unique``
    without its import of ``numpy.ma`` on first use (about 10 ms of a command's start-up)."""
    array = np.asarray(values).ravel()
    if array.size <= 1:
        return array.copy()
    ordered = np.sort(array)
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def stack_rows(values: Sequence[Real], shape: tuple[int, ...]) -> Array:
    """Values of several rows (numbers, or arrays broadcastable to ``shape``) as one float64
    array ``(rows, *shape)``, each row broadcast to ``shape``."""
    out = np.empty((len(values), *shape))
    for i, value in enumerate(values):
        out[i] = value
    return out


def plain(value: Any) -> Any:
    """A formula's result as a Python number when it is 0-dimensional, else the array: how a
    public function answers a number for numbers and an array for a sweep."""
    array = np.asarray(value)
    return array.item() if array.ndim == 0 else array


def only(value: Any) -> Any:
    """The one value of one configuration's column (an array of one, or a number) as a Python
    number: how an answer about one configuration reads the arrays the formulas give."""
    return np.asarray(value).item()


__all__ = ["Array", "Flags", "Real", "distinct", "divide", "only", "plain", "stack_rows"]
