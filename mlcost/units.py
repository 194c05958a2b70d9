"""The one unit registry of mlcost.

Every quantity in mlcost is a :class:`pint.Quantity` from :data:`ureg`, pint's own registry used
through its public API. The definitions file ``units.txt`` beside this module adds the
dimensions pint does not know: ``flop`` (one floating-point multiply or add), ``param``,
``token``, ``USD`` (currency) and ``gCO2e`` (mass of CO2-equivalent). With them,
``Q_("1 flop") + Q_("1 USD")`` raises, and ``Q_("1e15 flop/s").to("TFLOP/s")`` converts.

``bit`` (and so ``byte``) is a dimension of its own, ``[information]``: pint's default makes it
dimensionless, which would let a bare number pass for bytes.

Byte prefixes: decimal prefixes are decimal (``GB`` = 1e9 byte, pint's SI prefixes) and binary
prefixes binary (``GiB`` = 2**30 byte, IEC 80000-13). pint keeps them apart exactly, so GB and GiB
are never mixed silently: converting between them is an explicit ``.to()``.

Quantities pickle onto this registry (:func:`_unpickle_quantity`), not onto pint's application
registry, which knows none of mlcost's units.

Examples::

    >>> from mlcost.units import Q_
    >>> Q_("80 GiB").to("byte").magnitude
    85899345920
    >>> round(Q_("989.4 TFLOP/s").to("flop/s").magnitude)
    989400000000000
    >>> Q_("400 Gbit/s").to("GB/s")
    <Quantity(50.0, 'gigabyte / second')>
"""

from __future__ import annotations

import copyreg
import functools
import math
import re
from importlib import resources
from typing import Any

import numpy as np
import pint

from mlcost.errors import MlcostError, UnitError

__all__ = [
    "Q_",
    "Quantity",
    "Unit",
    "check_dimension",
    "format_quantity",
    "in_unit",
    "magnitude_in",
    "parse_quantity",
    "positive_magnitude",
    "quantity_in",
    "quantity_to_json",
    "unit_text",
    "ureg",
]

#: The one change mlcost makes to pint's own definitions (see :func:`_build_registry`).
_BIT = "bit = [information]"


def _build_registry(cache_folder: str | None) -> pint.UnitRegistry:
    """pint's registry with pint's default definitions, ``bit`` redefined (:data:`_BIT`) and
    mlcost's ``units.txt``.

    pint's default ``bit = []`` is dimensionless, which would let a bare number pass for bytes
    and ``80 GiB + 3`` succeed. Information gets its own dimension; ``byte = 8 bit`` and every
    prefixed byte unit follow, so bytes only mix with bytes. The registry starts empty
    (``UnitRegistry(None)``, pint's documented way to load one's own definitions) and loads
    pint's ``default_en.txt`` itself, so the redefinition comes before pint derives any unit
    from ``bit``: pint derives each unit on its first use. Its table of units by dimension is
    therefore empty (``get_compatible_units`` answers nothing, as pint's own registry does
    once its cache folder holds its definitions). The default system, which pint sets only
    for definitions loaded at construction, is pint's default (``mks``).

    ``cache_folder`` is pint's option: ``":auto:"`` keeps the parsed definition files in the
    user's cache folder, so a process reads them instead of parsing them.
    """
    registry: pint.UnitRegistry = pint.UnitRegistry(
        None,
        cache_folder=cache_folder,
        autoconvert_offset_to_baseunit=True,
        non_int_type=float,
        on_redefinition="warn",
    )
    with resources.as_file(resources.files("pint").joinpath("default_en.txt")) as path:
        registry.load_definitions(path)
    registry.define(_BIT)
    with resources.as_file(resources.files("mlcost").joinpath("units.txt")) as path:
        registry.load_definitions(path)
    registry.default_system = "mks"
    registry.formatter.default_format = "~D"
    return registry


def _registry() -> pint.UnitRegistry:
    """:func:`_build_registry` with pint's cache folder; without one where it cannot be used
    (an unwritable or broken folder)."""
    try:
        return _build_registry(":auto:")
    except Exception:  # pint's cache folder cannot be made or read: parse the definitions
        return _build_registry(None)


#: The registry. Build quantities with :data:`Q_` or ``ureg("...")``; never create another one.
ureg: pint.UnitRegistry = _registry()
Q_ = ureg.Quantity
Quantity = pint.Quantity
Unit = pint.Unit


def _unpickle_quantity(magnitude: Any, units: str) -> pint.Quantity:
    """A quantity pickled by :func:`_reduce_quantity`, rebuilt on :data:`ureg`."""
    return Q_(magnitude, units)


def _reduce_quantity(quantity: pint.Quantity) -> tuple[Any, tuple[Any, str]]:
    """Pickle a quantity of :data:`ureg` as its magnitude and its units' full names (pint's
    ``D`` format, read back to the same units). pint's own pickle rebuilds on pint's
    application registry, which does not know ``token``, ``flop``, ``USD`` or mlcost's
    ``bit``."""
    return _unpickle_quantity, (quantity.magnitude, format(quantity.units, "D"))


def _unpickle_unit(units: str) -> pint.Unit:
    """A unit pickled by :func:`_reduce_unit`, rebuilt on :data:`ureg`."""
    return ureg.Unit(units)


def _reduce_unit(unit: pint.Unit) -> tuple[Any, tuple[str]]:
    """Pickle a unit of :data:`ureg` by its full names, as :func:`_reduce_quantity`."""
    return _unpickle_unit, (format(unit, "D"),)


# ``ureg.Quantity`` and ``ureg.Unit`` are classes pint builds for this registry alone: the
# reducers apply to mlcost's quantities only, never to another registry's.
copyreg.pickle(ureg.Quantity, _reduce_quantity)
copyreg.pickle(ureg.Unit, _reduce_unit)


@functools.lru_cache(maxsize=1024)
def _unit(text: str) -> pint.Unit:
    """The unit ``text`` names on :data:`ureg` (``ureg.Unit(text)``), parsed once per text."""
    return ureg.Unit(text)


def in_unit(quantity: pint.Quantity, unit: str) -> Any:
    """The magnitude of ``quantity`` in ``unit``: ``quantity.m_as(unit)``, an array copied where
    pint returns the quantity's own (already in ``unit``), so the caller never aliases it."""
    value = quantity.m_as(_unit(unit))
    if isinstance(value, np.ndarray) and value is quantity.magnitude:
        return value.copy()
    return value


def quantity_in(magnitude: Any, unit: str, shown: str) -> pint.Quantity:
    """``Q_(magnitude, unit).to(shown)``: a number the chain keeps in ``unit`` (seconds, watts)
    as a figure shows it (``ms``, ``kW``)."""
    return Q_(magnitude, _unit(unit)).to(_unit(shown))


def parse_quantity(value: Any, *, field: str = "value") -> pint.Quantity:
    """Turn a string (``"80 GiB"``), a ``{"value": .., "unit": ..}`` mapping or a quantity into
    a quantity of :data:`ureg`.

    A bare number is returned as a dimensionless quantity. Raises :class:`mlcost.errors.UnitError`
    naming ``field`` when the text is not a quantity pint can read.
    """
    if isinstance(value, ureg.Quantity):
        return value
    if isinstance(value, pint.Quantity):
        return Q_(value.magnitude, str(value.units))
    if isinstance(value, dict) and set(value) == {"value", "unit"}:
        return Q_(value["value"], value["unit"])
    if isinstance(value, bool):
        raise UnitError(field, value, "a quantity with a unit, e.g. '80 GiB'")
    if isinstance(value, (int, float, np.integer, np.floating)):
        return Q_(value, "dimensionless")
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise UnitError(field, value, "a quantity such as '80 GiB', not an empty string")
        try:
            parsed = ureg.parse_expression(text)
        except (pint.errors.UndefinedUnitError, pint.errors.DefinitionSyntaxError) as error:
            raise UnitError(field, value, f"a quantity with a known unit ({error})") from None
        except Exception:  # the tokenizer raises assorted errors on free text
            raise UnitError(field, value, "a quantity such as '80 GiB' or '3.35 TB/s'") from None
        if not isinstance(parsed, pint.Quantity):
            return Q_(float(parsed), "dimensionless")
        return parsed
    raise UnitError(field, value, "a quantity such as '80 GiB' or '3.35 TB/s'")


def check_dimension(quantity: pint.Quantity, unit: str, *, field: str = "value") -> pint.Quantity:
    """Return ``quantity`` unchanged if it has the dimension of ``unit``; else raise UnitError."""
    expected = _unit(unit) if unit else ureg.dimensionless
    if quantity.dimensionality != expected.dimensionality:
        raise UnitError(
            field,
            format_quantity(quantity),
            f"a quantity in {unit} (dimension {expected.dimensionality}), "
            f"got dimension {quantity.dimensionality}",
        )
    return quantity


#: Suffixes a count accepts: ``70B`` parameters, ``2T`` tokens (decimal, as papers write them).
COUNT_SUFFIXES = {"K": 1e3, "M": 1e6, "B": 1e9, "G": 1e9, "T": 1e12, "P": 1e15}
_COUNT = re.compile(
    r"^\s*([-+]?[0-9][0-9_,]*\.?[0-9]*(?:[eE][-+]?[0-9]+)?)\s*([KMBGTP]?)\s*$", re.I
)


def parse_count(text: str, field: str) -> float:
    """``70B``, ``2T``, ``2e12``, ``1,500,000`` as a positive, finite number (the same reading in
    the CLI and in Python). Raises :class:`mlcost.errors.UnitError` naming ``field``."""
    match = _COUNT.match(text)
    if not match:
        raise UnitError(field, text, "a count such as 70B, 2T or 7e10")
    value = float(match.group(1).replace(",", "").replace("_", ""))
    value *= COUNT_SUFFIXES.get(match.group(2).upper(), 1.0)
    if not (value > 0 and math.isfinite(value)):
        raise UnitError(field, text, "a finite count > 0")
    return value


def magnitude_in(value: Any, unit: str, field: str, *, bare: bool = False) -> Any:
    """The magnitude of ``value`` in ``unit`` (numpy arrays kept as they are): the one unit guard
    at mlcost's public boundary, so formulas convert once and compute on plain numbers.

    ``value`` is a pint quantity (or text such as ``"2 TB/s"``) with the dimension of ``unit``;
    a bare number is accepted, taken in ``unit``, only with ``bare=True`` (pure counts such as
    tokens or a batch size), and then so is count text such as ``"2T"`` (:func:`parse_count`).
    Anything else raises :class:`mlcost.errors.UnitError` naming
    ``field``, the value and the unit expected.
    """
    if isinstance(value, (int, float, np.integer, np.floating, np.ndarray)) and not isinstance(
        value, bool
    ):
        if bare:
            return value
        raise UnitError(field, value, f"a quantity in {unit}, e.g. Q_({value!r}, {unit!r})")
    if bare and isinstance(value, str) and _COUNT.match(value):
        return parse_count(value, field)
    quantity = parse_quantity(value, field=field)
    check_dimension(quantity, unit, field=field)
    return quantity.m_as(_unit(unit))


def positive_magnitude(
    value: Any, unit: str, field: str, *, allow_zero: bool = False, bare: bool = False
) -> float:
    """:func:`magnitude_in` of one value that must be finite and > 0 (>= 0 with
    ``allow_zero``), else a one-line :class:`mlcost.errors.MlcostError` naming ``field`` (an
    array of values too: one is expected)."""
    found = magnitude_in(value, unit, field, bare=bare)
    magnitude = float(found) if np.ndim(found) == 0 else math.nan
    in_range = magnitude >= 0 if allow_zero else magnitude > 0
    if not (in_range and math.isfinite(magnitude)):
        bound = ">= 0" if allow_zero else "> 0"
        raise MlcostError(f"{field}: got {value!r}, expected one finite value {bound} {unit}")
    return magnitude


def _magnitude_text(magnitude: float | int) -> str:
    if isinstance(magnitude, (int, np.integer)):
        return str(int(magnitude))
    number = float(magnitude)
    if number.is_integer() and abs(number) < 1e16:
        return str(int(number))
    return repr(number)


def unit_text(quantity: pint.Quantity, spec: str = "~D") -> str:
    """``f"{quantity.units:{spec}}"``: pint's own text for the quantity's unit in format
    ``spec`` (``~D`` parseable, ``~P`` pretty), written once per unit, format and registry
    default format (:func:`_unit_text`)."""
    if not isinstance(quantity, ureg.Quantity):  # another registry's: pint writes it
        return format(quantity.units, spec)
    return _unit_text(quantity.units, spec, ureg.formatter.default_format)


@functools.lru_cache(maxsize=1024)
def _unit_text(unit: pint.Unit, spec: str, default_format: str) -> str:
    """``format(unit, spec)``; ``default_format`` (the registry's, which fills in what ``spec``
    leaves out) is part of the key only."""
    return format(unit, spec)


def format_quantity(quantity: pint.Quantity) -> str:
    """Exact, parseable text for a scalar quantity: ``'80 GiB'``, ``'3.35 TB / s'``.

    The magnitude is written with ``repr`` so that ``parse_quantity(format_quantity(q)) == q``
    holds bit for bit.
    """
    magnitude = quantity.magnitude
    if isinstance(magnitude, np.ndarray):
        return f"{magnitude!r} {unit_text(quantity)}"
    unit = unit_text(quantity)
    text = _magnitude_text(magnitude)
    return f"{text} {unit}".strip() if unit else text


def quantity_to_json(quantity: pint.Quantity) -> dict[str, Any]:
    """The documented JSON form of a quantity: ``{"value": <number>, "unit": "<pint unit>"}``;
    whole floats as integers, NaN and infinities as ``None`` (JSON has no number for them),
    arrays as lists."""
    return {"value": _json_number(quantity.magnitude), "unit": unit_text(quantity)}


def _json_number(magnitude: Any) -> Any:
    if isinstance(magnitude, np.ndarray):
        return [_json_number(item) for item in magnitude.tolist()]
    if isinstance(magnitude, (bool, np.bool_)):
        return bool(magnitude)
    if isinstance(magnitude, (int, np.integer)):
        return int(magnitude)
    value = float(magnitude)
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() and abs(value) < 2**53 else value
