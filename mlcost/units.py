"""The one unit registry of mlcost.

Every quantity in mlcost is a :class:`pint.Quantity` from :data:`ureg`. The definitions file
``units.txt`` beside this module adds the dimensions pint does not know: ``flop`` (one
floating-point multiply or add), ``param``, ``token``, ``USD`` (currency) and ``gCO2e`` (mass of
CO2-equivalent). With them, ``Q_("1 flop") + Q_("1 USD")`` raises, and
``Q_("1e15 flop/s").to("TFLOP/s")`` converts.

``bit`` (and so ``byte``) is a dimension of its own, ``[information]``: pint's default makes it
dimensionless, which would let a bare number pass for bytes.

The registry is pint's with its quantity class extended for speed (:class:`_Quantity`): a
conversion pint has done once reuses the factor pint computed, and unit texts are parsed once;
the tests hold every result to pint's own.

Byte prefixes: decimal prefixes are decimal (``GB`` = 1e9 byte, pint's SI prefixes) and binary
prefixes binary (``GiB`` = 2**30 byte, IEC 80000-13). pint keeps them apart exactly, so GB and GiB
are never mixed silently: converting between them is an explicit ``.to()``.

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

import contextlib
import hashlib
import math
import operator
import os
import pickle
import re
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any, cast

import numpy as np
import pint
from pint.util import UnitsContainer

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


def _known_factor(registry: pint.UnitRegistry, src: Any, dst: Any, magnitude: Any) -> float | None:
    """``registry``'s own factor from the units ``src`` to ``dst`` where pint has computed it
    before (its conversion-factor cache, which holds only multiplicative units of one
    dimension), no context is active and the magnitude is a plain number or array; else None,
    and the conversion goes through pint's full path (which fills the cache).
    ``magnitude * factor`` is then what pint's conversion returns, to the bit, at a twentieth
    of its cost."""
    # Tuples, not ``X | Y`` unions: isinstance of a union costs several times more on 3.11.
    if _context_active(registry) or not isinstance(magnitude, _FACTOR_MAGNITUDES):
        return None
    factor = registry._cache.conversion_factor.get((src, dst))
    return factor if isinstance(factor, (int, float)) else None


def _context_active(registry: pint.UnitRegistry) -> bool:
    """Whether a context may be active: the maps of pint's chain of active contexts (what its
    truth value, :class:`collections.ChainMap`'s ``any(maps)``, reads, without the call: a
    chain of empty maps counts as active here, which only sends a conversion through pint)."""
    return bool(registry._active_ctx.maps)


#: The magnitudes :func:`_known_factor` converts by pint's cached factor.
_FACTOR_MAGNITUDES = (int, float, np.number, np.ndarray)
#: Magnitudes pint stores as given (no conversion, no check that can fail).
_PLAIN_MAGNITUDES = frozenset({float, int, np.float64, np.int64, np.ndarray})


def _known_conversion(
    registry: pint.UnitRegistry, units: Any, unit: str, magnitude: Any
) -> tuple[Any, int | float | None] | None:
    """``(dst, factor)`` for converting ``magnitude`` in ``units`` to the unit text ``unit``:
    ``dst`` the text's container (the registry's memoized parse) and ``factor`` pint's cached
    factor (:func:`_known_factor`), or None where the units are the same (pint keeps the
    magnitude); None where pint's own path is needed (the factor not cached yet, a context
    active, a magnitude that is not a plain number or array). Remembered per ``(units, unit)``
    (the parse, the comparison of the units and the look-up of pint's factor once per pair,
    about a microsecond a conversion); the memo is emptied with the registry's definitions."""
    memo = registry.__dict__.get("_mlcost_conversions")
    if memo is None:  # a registry without mlcost's memos (_memoize_unit_parsing): none kept
        memo = {}
    key = (units, unit)
    found = memo.get(key)
    if found is None:
        dst = registry._parse_units_as_container(unit)
        if _same_units(units, dst):
            found = (dst, None)
        else:
            factor = _known_factor(registry, units, dst, magnitude)
            if factor is None:
                return None
            found = (dst, factor)
        memo[key] = found
        return found
    if found[1] is None or (
        not _context_active(registry)
        and (type(magnitude) in _PLAIN_MAGNITUDES or isinstance(magnitude, _FACTOR_MAGNITUDES))
    ):
        return found
    return None


def quantity_in(magnitude: Any, unit: str, shown: str) -> pint.Quantity:
    """``Q_(magnitude, unit).to(shown)``, the same quantity to the bit: a number the chain keeps
    in ``unit`` (seconds, watts) as a figure shows it (``ms``, ``kW``). For a Python float or
    int whose conversion pint has made before (:func:`_known_conversion`), one multiplication
    and one quantity (a third of the time of building the quantity and converting it);
    otherwise, and while a pint context is active, through ``.to()``."""
    if type(magnitude) in (float, int):
        units = ureg._parse_units_as_container(unit)
        found = _known_conversion(ureg, units, shown, magnitude)
        if found is not None:
            dst, factor = found
            return _new_quantity(Q_, magnitude if factor is None else magnitude * factor, dst)
    return Q_(magnitude, unit).to(shown)


def _new_quantity(cls: Any, value: Any, units: Any) -> Any:
    """``cls(value, units)`` for a container ``units`` of ``cls``'s registry: what
    :meth:`_Quantity.__new__` builds, without the call through the class where ``value`` is a
    plain magnitude (the results of mlcost's own arithmetic and conversions)."""
    registry = cls._REGISTRY
    if type(value) in _PLAIN_MAGNITUDES and not (
        registry.force_ndarray or registry.force_ndarray_like
    ):
        quantity = object.__new__(cls)
        quantity._magnitude = value
        quantity._units = units
        return quantity
    return cls(value, units)


class _Quantity(pint.UnitRegistry.Quantity):
    """pint's quantity, whose ``to`` (and so ``m_as``) multiplies by the factor pint cached
    when it first converted the same pair of units (:func:`_known_factor`) instead of walking
    pint's conversion facets again (~20 us a call, the largest cost of a plan's figures), and
    whose constructor reads a unit text through the registry's memoized parse (the container
    pint's ``parse_units`` would build a :class:`pint.Unit` around, at a third of the cost), and
    whose ``*`` and ``/`` by a plain int or float (a figure's band, a share, a count) or by
    another quantity compute magnitudes and units as pint does without its general operand
    checks (:meth:`_plain_scale`, :meth:`_plain_pair`; offset units go through pint), and whose
    ``+`` and ``-`` of two quantities combine the magnitudes in the left one's units
    (:meth:`_added`)."""

    def __new__(cls, value: Any, units: Any = None) -> Any:
        if type(units) is str:
            units = cls._REGISTRY._parse_units_as_container(units)
        registry = cls._REGISTRY
        if (
            type(value) in _PLAIN_MAGNITUDES
            # (the exact type first: isinstance of an ABC costs a fifth of a microsecond)
            and (type(units) is UnitsContainer or isinstance(units, UnitsContainer))
            and not (registry.force_ndarray or registry.force_ndarray_like)
        ):
            # What pint's constructor does for these inputs, without its checks for types
            # that cannot occur here (upcast arrays, lists, measurements, strings).
            quantity = object.__new__(cls)
            quantity._magnitude = value
            quantity._units = units
            return quantity
        return super().__new__(cls, value, units)

    def _multiplicative(self) -> bool:
        """Whether pint multiplies and divides this quantity as plain numbers: a plain magnitude,
        units with no offset (degC), and no automatic reduction of dimensions."""
        registry = self._REGISTRY
        if type(self._magnitude) not in _PLAIN_MAGNITUDES or registry.auto_reduce_dimensions:
            return False
        memo: dict[Any, bool] = registry._mlcost_multiplicative  # type: ignore[assignment]
        known = memo.get(self._units)
        if known is None:
            known = memo[self._units] = not self._get_non_multiplicative_units()
        return known

    def _plain_scale(self, other: Any) -> bool:
        """Whether ``self * other`` or ``self / other`` is pint's plain-number case: ``other``
        an int or a float, which pint answers with the magnitudes multiplied (or divided) and
        the units kept."""
        return type(other) in (int, float) and self._multiplicative()

    def _plain_pair(self, other: Any) -> bool:
        """Whether ``self * other`` or ``self / other`` is pint's case of two quantities of this
        registry without offset units: magnitudes and units multiplied (or divided)."""
        return type(other) is type(self) and self._multiplicative() and other._multiplicative()

    def _added(self, other: Any, op: Any) -> Any:
        """``op(self, other)`` for ``+`` and ``-`` as pint computes it where both are quantities
        of this registry without offset units: the magnitudes combined in ``self``'s units,
        ``other`` converted first when its units differ; None where pint's own path is needed
        (offset or delta units, other dimensions, which pint refuses)."""
        if type(other) is not type(self) or not (
            self._multiplicative() and other._multiplicative()
        ):
            return None
        if _same_units(self._units, other._units):
            return _new_quantity(self.__class__, op(self._magnitude, other._magnitude), self._units)
        if self._get_delta_units() or self.dimensionality != other.dimensionality:
            return None
        converted = other.to(self._units)._magnitude
        return _new_quantity(self.__class__, op(self._magnitude, converted), self._units)

    def __add__(self, other: Any) -> Any:
        added = self._added(other, operator.add)
        return added if added is not None else super().__add__(other)  # type: ignore[no-untyped-call]

    def __sub__(self, other: Any) -> Any:
        added = self._added(other, operator.sub)
        return added if added is not None else super().__sub__(other)  # type: ignore[no-untyped-call]

    def __mul__(self, other: Any) -> Any:
        if type(other) in (int, float) and self._multiplicative():  # _plain_scale, inline
            return _new_quantity(self.__class__, self._magnitude * other, self._units)
        if self._plain_pair(other):
            units = self._units * other._units
            return _new_quantity(self.__class__, self._magnitude * other._magnitude, units)
        return super().__mul__(other)  # type: ignore[no-untyped-call]

    def __rmul__(self, other: Any) -> Any:
        if self._plain_scale(other):
            return _new_quantity(self.__class__, self._magnitude * other, self._units)
        return super().__rmul__(other)  # type: ignore[no-untyped-call]

    def __truediv__(self, other: Any) -> Any:
        if self._plain_scale(other):
            magnitude = self._magnitude
            if isinstance(magnitude, int):  # pint divides ints as its non_int_type (float)
                magnitude, other = float(magnitude), float(other)
            return _new_quantity(self.__class__, magnitude / other, self._units)
        if self._plain_pair(other):
            top, bottom = self._magnitude, other._magnitude
            if isinstance(top, int) or isinstance(bottom, int):  # as pint: ints as floats
                top = float(top) if isinstance(top, int) else top
                bottom = float(bottom) if isinstance(bottom, int) else bottom
            return _new_quantity(self.__class__, top / bottom, self._units / other._units)
        return super().__truediv__(other)  # type: ignore[no-untyped-call]

    def __reduce__(self) -> Any:  # pint: (cls, magnitude, units) for its own reader
        """Pickled to be rebuilt on mlcost's registry (:func:`_unpickle_quantity`): pint's own
        pickle rebuilds a quantity on its application registry, which does not know mlcost's
        units (``token``, ``flop``, ``USD``, ``gCO2e``) nor its ``bit``."""
        return _unpickle_quantity, (self._magnitude, self._units)

    def to(self, other: Any = None, *contexts: Any, **ctx_kwargs: Any) -> Any:
        # A unit text, or pint's own container (what pint passes converting an operand); the
        # exact types first: isinstance of the container's ABC costs a microsecond or more
        # when its cache is cold (a plan's figures convert a handful of values).
        if not contexts and not ctx_kwargs:
            magnitude = self._magnitude
            if type(other) is str or (
                type(other) is not UnitsContainer and isinstance(other, str)
            ):  # a unit text: its conversion from these units remembered (_known_conversion)
                found = _known_conversion(self._REGISTRY, self._units, other, magnitude)
                if found is not None:
                    dst, factor = found  # factor None: the same units, pint keeps the magnitude
                    value = magnitude if factor is None else magnitude * factor
                    return _new_quantity(self.__class__, value, dst)
            elif type(other) is UnitsContainer or isinstance(other, UnitsContainer):
                if _same_units(self._units, other):  # pint returns the magnitude itself
                    return _new_quantity(self.__class__, magnitude, other)
                factor = _known_factor(self._REGISTRY, self._units, other, magnitude)
                if factor is not None:
                    return _new_quantity(self.__class__, magnitude * factor, other)
        return super().to(other, *contexts, **ctx_kwargs)


def _same_units(left: Any, right: Any) -> bool:
    """``left == right`` for two of pint's unit containers: the same object (the registry's
    memoized parse gives one per unit text), or, both exactly :class:`UnitsContainer`, the
    same units and exponents (the dictionaries pint's ``__eq__`` compares in the end, without
    its ``isinstance`` of the container's ABC: a microsecond or more when that check's cache
    is cold, on every conversion)."""
    if left is right:
        return True
    if type(left) is UnitsContainer and type(right) is UnitsContainer:
        return bool(left._d == right._d)
    return bool(left == right)


def _unpickle_quantity(magnitude: Any, units: UnitsContainer) -> pint.Quantity:
    """A quantity pickled by mlcost (:meth:`_Quantity.__reduce__`), rebuilt on its registry; a
    prefixed unit is defined on its first parse, as pint does, so each is parsed first (the
    registry's memoized parse: once per process)."""
    parse = ureg._parse_units_as_container
    for name in units:
        parse(name)
    return ureg.Quantity(magnitude, units)


class _Registry(pint.UnitRegistry):
    """pint's registry with :class:`_Quantity` as its quantity class (pint's documented way
    to extend its classes: a registry subclass naming them), whose construction leaves the
    derived units to :func:`_build_registry`."""

    Quantity = _Quantity

    def _build_cache(self, loaded_files: Any = None) -> None:
        """pint builds its derived units at the end of construction (``loaded_files``: the
        definition files it just read), from its disk cache where it has one: pint 0.25 reads
        that file and keeps none of it, 2.5 ms per process. :func:`_build_registry` redefines
        ``bit`` and then restores or builds them itself (``_build_cache()`` without files), so
        the construction's build is skipped."""
        if loaded_files:
            return
        super()._build_cache(loaded_files)


def _new_registry() -> pint.UnitRegistry:
    """pint's registry with its parsed definitions cached on disk (pint's ``cache_folder=
    ":auto:"``, the user cache folder: 0.04 s instead of 0.6 s to build after the first run);
    without a cache where that folder cannot be written."""
    options: dict[str, Any] = {
        "autoconvert_offset_to_baseunit": True,
        "non_int_type": float,
        "on_redefinition": "warn",
    }
    try:
        return _Registry(cache_folder=":auto:", **options)
    except Exception:  # an unwritable or broken cache folder: parse the definitions instead
        return _Registry(cache_folder=None, **options)


#: The one change mlcost makes to pint's own definitions (see :func:`_build_registry`).
_BIT = "bit = [information]"


def _derived_units_file(registry: pint.UnitRegistry) -> Path | None:
    """Where the derived units after :data:`_BIT` are kept between processes: beside pint's
    own cache, named by what they depend on (pint's version and this module's redefinition),
    so a pint upgrade or another redefinition never reads a stale file."""
    folder = registry.cache_folder
    if folder is None:
        return None
    key = hashlib.sha256(f"{pint.__version__}\n{_BIT}".encode()).hexdigest()[:20]
    return Path(folder) / f"mlcost-derived-units-{key}.pickle"


def _restore_derived_units(registry: pint.UnitRegistry, path: Path | None) -> bool:
    """Put back the derived units :func:`_save_derived_units` kept (pint's ``_build_cache``
    result: 0.002 s instead of 0.05 s to rebuild); ``False`` when there is none to read."""
    if path is None:
        return False
    try:
        with path.open("rb") as file:
            cache = pickle.load(file)  # the user's own cache folder, as pint's own pickles are
    except Exception:  # missing, unreadable or from another pint: rebuild instead
        return False
    if type(cache) is not type(registry._cache):
        return False
    registry._cache = cache
    registry._caches[()] = cache  # the context facet's copy (pint's ``_build_cache`` sets both)
    return True


def _save_derived_units(registry: pint.UnitRegistry, path: Path | None) -> None:
    """Keep the derived units for the next process, written atomically; best effort."""
    if path is None:
        return
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".tmp") as file:
            pickle.dump(registry._cache, file, protocol=pickle.HIGHEST_PROTOCOL)
        os.chmod(file.name, 0o644)
        os.replace(file.name, path)
    except OSError:
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(file.name)


def _build_registry(*, reuse_derived_units: bool = True) -> pint.UnitRegistry:
    registry = _new_registry()
    # pint defines ``bit = []`` (dimensionless), which would let a bare number pass for bytes
    # and "80 GiB + 3" succeed. Information gets its own dimension; byte = 8 bit and every
    # prefixed byte unit follow, so bytes only mix with bytes.
    registry.define(_BIT)
    # Re-derive the units already built on the old ``bit``, or read them back from an earlier
    # process: the same derivation from the same definitions (pint's version is in the name).
    path = _derived_units_file(registry) if reuse_derived_units else None
    if not _restore_derived_units(registry, path):
        registry._build_cache()
        _save_derived_units(registry, path)
    definitions = resources.files("mlcost").joinpath("units.txt")
    with resources.as_file(definitions) as path:
        registry.load_definitions(str(path))
    registry.formatter.default_format = "~D"
    _memoize_unit_parsing(registry)
    return registry


def _memoize_unit_parsing(registry: pint.UnitRegistry) -> None:
    """Remember parsed unit expressions: pint caches a parse only when the string is itself a
    unit name, so every ``.to("byte/s")`` re-parses ``"byte/s"`` (about a quarter of a plan's
    time); which unit containers have no offset unit (the quantity's fast ``*`` and ``/``); and
    how a unit is written (:func:`unit_text`). All depend only on the definitions (and the text
    on the format asked for), so the memos are emptied by ``define`` and ``load_definitions``."""
    parse = registry._parse_units_as_container
    memo: dict[tuple[str, bool, bool], Any] = {}
    # Whether a unit container has no offset unit (:meth:`_Quantity._plain_scale`), by container.
    multiplicative: dict[Any, bool] = {}
    registry._mlcost_multiplicative = multiplicative  # type: ignore[attr-defined]
    # How pint writes a unit in a format (:func:`unit_text`), by container and format.
    texts: dict[tuple[Any, str, str], str] = {}
    registry._mlcost_unit_texts = texts  # type: ignore[attr-defined]
    # A conversion's target container and pint's factor, by units and unit text
    # (:func:`_known_conversion`).
    conversions: dict[tuple[Any, str], tuple[Any, int | float | None]] = {}
    registry._mlcost_conversions = conversions  # type: ignore[attr-defined]

    def parse_memoized(
        input_string: str, as_delta: bool = True, case_sensitive: bool = True
    ) -> Any:
        key = (input_string, as_delta, case_sensitive)
        found = memo.get(key)
        if found is None:
            found = memo[key] = parse(input_string, as_delta, case_sensitive)
        return found

    def forgetting(method: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            memo.clear()
            multiplicative.clear()
            texts.clear()
            conversions.clear()
            return method(*args, **kwargs)

        return wrapper

    registry._parse_units_as_container = parse_memoized  # type: ignore[method-assign]
    registry.define = forgetting(registry.define)  # type: ignore[method-assign]
    registry.load_definitions = forgetting(registry.load_definitions)  # type: ignore[method-assign]


#: The registry. Build quantities with :data:`Q_` or ``ureg("...")``; never create another one.
ureg: pint.UnitRegistry = _build_registry()
Q_ = ureg.Quantity
Quantity = pint.Quantity
Unit = pint.Unit


def in_unit(quantity: pint.Quantity, unit: str) -> Any:
    """The magnitude of ``quantity`` in ``unit`` — ``quantity.to(unit).magnitude`` for the hot
    paths: no conversion and no new quantity when it is already in ``unit`` (the usual case of
    values converted once at the boundary; about 25 us saved per call), an array copied so the
    caller never aliases the quantity's data; pint's cached factor where it has one
    (:func:`_known_factor`). A number's magnitude in ``unit`` is kept on the quantity (a spec's
    or an assumption's value, read on every call of a hot path, is converted once); a quantity
    whose magnitude or units were replaced since (``ito``) is converted anew."""
    magnitude = quantity._magnitude
    units = quantity._units
    if type(magnitude) in _KEPT:
        kept = quantity.__dict__.get(_KEPT_ATTRIBUTE)
        if kept is not None:
            found = kept.get(unit)
            # Still the same magnitude and units (a quantity changed in place is converted anew).
            if found is not None and found[0] is magnitude and found[1] is units:
                return found[2]
        value = _converted(quantity, magnitude, units, unit)
        if kept is None:
            kept = quantity.__dict__[_KEPT_ATTRIBUTE] = {}
        kept[unit] = (magnitude, units, value)
        return value
    return _converted(quantity, magnitude, units, unit)


#: The magnitudes :func:`in_unit` keeps per unit on their quantity (numbers, which pint never
#: changes in place), and the attribute it keeps them in.
_KEPT = frozenset({float, int})
_KEPT_ATTRIBUTE = "_mlcost_in_unit"


def _converted(quantity: pint.Quantity, magnitude: Any, units: Any, unit: str) -> Any:
    """:func:`in_unit`'s conversion: ``magnitude`` in ``unit`` (``units`` the quantity's)."""
    found = _known_conversion(ureg, units, unit, magnitude)
    if found is None:
        return quantity.m_as(unit)
    if found[1] is None:  # the same units
        return magnitude.copy() if isinstance(magnitude, np.ndarray) else magnitude
    return magnitude * found[1]


#: A number and a unit made of names joined by "/" ("3.35 TB/s", "80 GiB", "350 gCO2e/kWh"): the
#: form of every quantity in the catalog, read without pint's expression evaluator (a third of
#: the catalog's load time); anything else goes to ``ureg.parse_expression``.
_NUMBER_AND_UNIT = re.compile(
    r"(?P<number>[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*"
    r"(?P<unit>[A-Za-z_][A-Za-z0-9_]*(?:/[A-Za-z_][A-Za-z0-9_]*)*)"
)


def _pint_number(text: str, *, divided: bool) -> int | float:
    """The magnitude ``ureg.parse_expression`` gives ``text`` followed by a unit: an integer
    literal stays an ``int`` (pint's tokenizer reads it with ``int``), unless a division by a
    unit follows, which makes it a ``float`` (``80 GB / s`` is ``80 / 1``)."""
    try:
        number: int | float = int(text)
    except ValueError:
        return float(text)
    return number / 1 if divided else number


def _known_unit(text: str) -> bool:
    """Whether ``text`` is a unit of :data:`ureg` (parsed once, memoized)."""
    try:
        ureg._parse_units_as_container(text)
    except pint.errors.PintError:
        return False
    return True


def parse_quantity(value: Any, *, field: str = "value") -> pint.Quantity:
    """Turn a string (``"80 GiB"``), a ``{"value": .., "unit": ..}`` mapping or a quantity into
    a quantity of :data:`ureg`.

    A bare number is returned as a dimensionless quantity. Raises :class:`mlcost.errors.UnitError`
    naming ``field`` when the text is not a quantity pint can read.
    """
    if isinstance(value, pint.Quantity):
        if value._REGISTRY is ureg:
            return value
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
        simple = _NUMBER_AND_UNIT.fullmatch(text)
        if simple is not None and _known_unit(simple["unit"]):
            return Q_(_pint_number(simple["number"], divided="/" in simple["unit"]), simple["unit"])
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
    expected = ureg.parse_units(unit) if unit else ureg.dimensionless
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
    at mlcost's public boundary, so hot paths convert once and compute on plain numbers.

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
    if isinstance(value, pint.Quantity) and value._REGISTRY is ureg:
        # Already in ``unit``, or in units pint has converted to it before: the same
        # dimension, so no check is needed.
        found = _known_conversion(ureg, value._units, unit, value._magnitude)
        if found is not None:
            return value._magnitude if found[1] is None else value._magnitude * found[1]
    quantity = parse_quantity(value, field=field)
    check_dimension(quantity, unit, field=field)
    return quantity.to(unit).magnitude


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
    ``spec`` (``~D`` parseable, ``~P`` pretty), remembered per unit and format (pint takes about
    9 us to write a unit; a plan's figures and every JSON value write dozens)."""
    registry = quantity._REGISTRY
    texts = cast(
        "dict[tuple[Any, str, str], str] | None", getattr(registry, "_mlcost_unit_texts", None)
    )
    if texts is None:  # a quantity of another registry: pint writes it
        return format(quantity.units, spec)
    key = (quantity._units, spec, registry.formatter.default_format)
    text = texts.get(key)
    if text is None:
        text = texts[key] = format(quantity.units, spec)
    return text


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
