"""Unit safety: the registry's own dimensions, byte prefixes, parsing and exact round trips."""

from __future__ import annotations

import math
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pint
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mlcost.errors import UnitError
from mlcost.units import Q_, format_quantity, parse_quantity, quantity_to_json, ureg


@pytest.mark.parametrize(
    ("text", "unit", "expected"),
    [
        # Decimal and binary prefixes by definition (SI brochure 9th ed.; IEC 80000-13).
        ("80 GiB", "byte", 80 * 2**30),
        ("80 GB", "byte", 80e9),
        ("3.35 TB/s", "byte/s", 3.35e12),
        ("989.4 TFLOP/s", "flop/s", 989.4e12),
        ("400 Gbit/s", "byte/s", 400e9 / 8),
        ("1 PiB", "byte", 2**50),
        ("1 kB", "byte", 1000),
        ("1 KiB", "byte", 1024),
        ("2 PFLOP/s", "TFLOP/s", 2000),
        ("1 kWh", "joule", 3.6e6),
        ("2.5 USD/hour", "USD/s", 2.5 / 3600),
        ("1 tCO2e", "kgCO2e", 1000),
        ("1979 TOPS", "flop/s", 1979e12),
        ("7e9 param", "param", 7e9),
        ("1 Gbps", "bit/s", 1e9),
    ],
)
def test_strings_parse_to_the_defined_values(text: str, unit: str, expected: float) -> None:
    assert math.isclose(Q_(text).to(unit).magnitude, expected, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("1 flop", "1 USD"),
        ("1 param", "1 token"),
        ("1 kgCO2e", "1 kg"),
        ("1 byte", "1 flop"),
        ("1 USD", "1 gCO2e"),
        ("1 token", "1 byte"),
        ("1 GiB", "3"),  # bytes are not dimensionless counts
        ("1 byte", "1 param"),
    ],
)
def test_distinct_dimensions_do_not_mix(left: str, right: str) -> None:
    with pytest.raises(pint.DimensionalityError):
        Q_(left) + Q_(right)
    with pytest.raises(pint.DimensionalityError):
        Q_(left).to(Q_(right).units)


def test_flop_rate_converts_to_tflops() -> None:
    rate = Q_(3.0e14, "flop") / Q_(1, "s")
    assert rate.to("TFLOP/s").magnitude == pytest.approx(300.0, rel=1e-15)


def test_gb_and_gib_are_exact_and_distinct() -> None:
    one_gib = Q_(1, "GiB")
    assert one_gib.to("byte").magnitude == 1073741824
    assert one_gib.to("GB").magnitude == pytest.approx(1.073741824, rel=1e-15)
    # Round trip GiB -> byte -> GiB is exact for whole bytes (integers below 2**53).
    assert Q_(80, "GiB").to("byte").to("GiB").magnitude == 80
    assert Q_(80, "GB") != Q_(80, "GiB")


def test_numpy_arrays_carry_units() -> None:
    sizes = Q_(np.array([1.0, 2.0, 4.0]), "GiB")
    assert np.array_equal(sizes.to("MiB").magnitude, [1024.0, 2048.0, 4096.0])


@pytest.mark.parametrize("bad", ["eighty gigabytes", "80 GiBs", "", "1 +* 2", None, True])
def test_bad_text_raises_unit_error_naming_the_field(bad: object) -> None:
    with pytest.raises(UnitError, match="memory_capacity"):
        parse_quantity(bad, field="memory_capacity")


units_pool = st.sampled_from(
    ["GiB", "GB", "TB/s", "TFLOP/s", "W", "MHz", "USD/hour", "gCO2e/kWh", "us", "Gbit/s", "param"]
)


@given(
    magnitude=st.floats(min_value=1e-12, max_value=1e18, allow_nan=False, allow_infinity=False),
    unit=units_pool,
)
def test_format_and_parse_round_trip_exactly(magnitude: float, unit: str) -> None:
    quantity = Q_(magnitude, unit)
    back = parse_quantity(format_quantity(quantity))
    assert back.units == quantity.units
    assert back.magnitude == magnitude


def test_json_form_is_value_and_unit() -> None:
    assert quantity_to_json(Q_("3.35 TB/s")) == {"value": 3.35, "unit": "TB / s"}
    assert quantity_to_json(Q_(80, "GiB")) == {"value": 80, "unit": "GiB"}
    assert ureg.parse_units("TB / s") == ureg.parse_units("TB/s")


def test_the_unit_parse_memo_is_emptied_by_new_definitions() -> None:
    """The memo of parsed unit expressions (a speed-up) never hides a later definition."""
    import pint

    from mlcost.units import _memoize_unit_parsing

    registry = pint.UnitRegistry(cache_folder=None)
    _memoize_unit_parsing(registry)
    assert registry.Quantity(3, "kWh").to("MJ").magnitude == pytest.approx(10.8)
    with pytest.raises(pint.UndefinedUnitError):
        registry.Quantity(1, "widget/s")
    registry.define("widget = 2 * meter")
    assert registry.Quantity(1, "widget/s").to("m/s").magnitude == pytest.approx(2.0)


def test_in_unit_equals_pints_conversion_and_never_aliases() -> None:
    """``in_unit`` is ``quantity.to(unit).magnitude`` (pint's own conversion is the oracle),
    with the array of a quantity already in ``unit`` copied, not shared."""
    import numpy as np

    from mlcost.units import in_unit

    for quantity, unit in [
        (Q_(3, "GiB"), "byte"),
        (Q_(2.5, "byte"), "byte"),
        (Q_(90, "minute"), "s"),
        (Q_(1.5, "TFLOP/s"), "flop/s"),
        (Q_(20, "degC"), "kelvin"),
    ]:
        assert in_unit(quantity, unit) == quantity.to(unit).magnitude
    array = Q_(np.array([1.0, 2.0]), "s")
    out = in_unit(array, "s")
    out[0] = 99.0
    assert array.magnitude[0] == 1.0
    np.testing.assert_array_equal(in_unit(Q_(np.array([1.0, 2.0]), "hour"), "s"), [3600, 7200])


def test_in_unit_converts_a_number_once_until_the_quantity_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A number's conversion is kept on its quantity: read again, it is not converted again; a
    quantity whose magnitude or units were replaced (pint's ``ito``, or its magnitude set) is
    converted anew, never answered from the kept value; arrays are never kept (each call
    returns a copy of its own). 3 GB = 3e9 bytes, 4 GB = 4e9, 3e9 bytes = 2.794 GiB."""
    import mlcost.units as units

    conversions: list[str] = []
    convert = units._converted

    def counted(*args: Any) -> Any:
        conversions.append(args[-1])
        return convert(*args)

    monkeypatch.setattr(units, "_converted", counted)
    quantity = Q_(3.0, "GB")
    assert units.in_unit(quantity, "byte") == 3e9
    assert units.in_unit(quantity, "byte") == 3e9
    assert units.in_unit(quantity, "GiB") == pytest.approx(3e9 / 2**30, rel=1e-15)
    assert conversions == ["byte", "GiB"]
    quantity.ito("MB")
    assert units.in_unit(quantity, "byte") == 3e9 and conversions[-1] == "byte"
    quantity._magnitude = 4000.0  # a magnitude replaced: 4000 MB
    assert units.in_unit(quantity, "byte") == 4e9
    assert units.in_unit(Q_(2, "GiB"), "byte") == 2 * 2**30  # an int stays exact
    array = Q_(np.array([1.0, 2.0]), "GB")
    first = units.in_unit(array, "byte")
    first[0] = 0.0
    np.testing.assert_array_equal(units.in_unit(array, "byte"), [1e9, 2e9])


def test_units_equal_to_the_target_convert_as_pint_does() -> None:
    """A quantity whose units equal the target's without being the parsed container itself (a
    container built anew, as pint builds one for a product) converts as pint's own ``to`` does:
    the magnitude as it is, an int staying an int; a sum in such units adds the magnitudes as
    they are; different units still convert (pint the oracle, to the bit and in type)."""
    from pint.util import UnitsContainer

    from mlcost.units import in_unit, magnitude_in

    pints_to = pint.UnitRegistry.Quantity.to  # pint's own method, past mlcost's override
    fresh = UnitsContainer({"byte": 1})
    assert fresh is not ureg._parse_units_as_container("byte")
    quantity = Q_(3, fresh)
    for converted in (quantity.to("byte"), quantity.to(ureg._parse_units_as_container("byte"))):
        expected = pints_to(quantity, "byte")
        assert converted.magnitude == expected.magnitude
        assert type(converted.magnitude) is type(expected.magnitude) is int
    assert type(in_unit(quantity, "byte")) is int
    assert type(magnitude_in(quantity, "byte", "size")) is int
    total = quantity + Q_(4, "byte")
    assert total.magnitude == 7 and type(total.magnitude) is int
    assert quantity.to("kB").magnitude == pints_to(quantity, "kB").magnitude


def test_known_factors_convert_as_pint_does() -> None:
    """The first conversion of a pair of units goes through pint, later ones multiply by the
    factor pint cached then (``_known_factor``): each equals ``quantity.to(unit).magnitude``
    (pint the oracle) to the bit and in type, for numbers, integers and arrays; offset units
    (degC) always take pint's path; a wrong dimension is still a one-line UnitError."""
    import numpy as np

    from mlcost.units import in_unit, magnitude_in

    cases = [
        (Q_(7, "MiB/ms"), "GB/s"),
        (Q_(0.3, "PFLOP"), "TFLOP"),
        (Q_(np.array([1.5, 2.25]), "kWh"), "MJ"),
        (Q_(3, "gCO2e/kWh"), "kgCO2e/MWh"),
        (Q_(21.5, "degC"), "kelvin"),
        (Q_(300.0, "kelvin"), "degC"),
    ]
    pints_to = pint.UnitRegistry.Quantity.to  # pint's own method, past mlcost's override
    for quantity, unit in cases:
        expected = pints_to(quantity, unit)
        for _ in range(2):  # the first call may fill pint's cache; the second reads it
            converted = quantity.to(unit)
            assert converted.units == expected.units
            # pint's own container (what pint passes when it converts an operand)
            container = quantity.to(ureg._parse_units_as_container(unit))
            assert container._units == expected._units
            np.testing.assert_array_equal(container.magnitude, expected.magnitude)
            assert type(container.magnitude) is type(expected.magnitude)
            for got in (converted.magnitude, quantity.m_as(unit), in_unit(quantity, unit),
                        magnitude_in(quantity, unit, "x")):  # fmt: skip
                np.testing.assert_array_equal(got, expected.magnitude)
                assert type(got) is type(expected.magnitude), (quantity, unit)
    for _ in range(2):
        with pytest.raises(UnitError, match="speed"):
            magnitude_in(Q_(7, "MiB"), "GB/s", "speed")


def test_a_quantity_shown_in_another_unit_is_pints_conversion() -> None:
    """``quantity_in(m, unit, shown)`` (a figure's number in the unit it is shown in; the pair's
    factor remembered after the first call) equals pint's own ``Q_(m, unit).to(shown)`` (the
    oracle, past mlcost's override) in magnitude, type and units, the second call as the first,
    offset units, numpy values and a pint context included."""
    import numpy as np

    from mlcost.units import quantity_in

    pints_to = pint.UnitRegistry.Quantity.to
    pairs = [("s", "ms"), ("s", "day"), ("dimensionless", "percent"), ("kWh", "MWh"),
             ("W", "kW"), ("s", "s"), ("degC", "kelvin")]  # fmt: skip
    magnitudes = (1234.5678, 7, 0.0, -2.5e-300, np.float64(3.25), np.array([1.0, 2.5]))
    for unit, shown in pairs:
        for magnitude in magnitudes:
            expected = pints_to(Q_(magnitude, unit), shown)
            for _ in range(2):
                got = quantity_in(magnitude, unit, shown)
                np.testing.assert_array_equal(got.magnitude, expected.magnitude)
                assert type(got.magnitude) is type(expected.magnitude), (magnitude, unit, shown)
                assert got.units == expected.units
    with ureg.context("sp"):
        got = quantity_in(2.5, "s", "ms")
        assert got.magnitude == pints_to(Q_(2.5, "s"), "ms").magnitude == 2500.0


def test_conversions_inside_a_context_are_pints_own() -> None:
    """Inside a pint context (spectroscopy: wavelength <-> frequency) conversions, including
    pairs whose factor mlcost remembered outside it, give what pint's own ``to`` gives (the
    oracle, past mlcost's override); after the context, the remembered factors apply again."""
    pints_to = pint.UnitRegistry.Quantity.to
    cases = [(Q_(7.0, "MiB/ms"), "GB/s"), (Q_(2.5, "s"), "ms"), (Q_(500.0, "nm"), "THz")]
    for quantity, unit in cases[:2]:
        quantity.to(unit)  # remembered before the context
    with ureg.context("sp"):
        for quantity, unit in cases:
            expected = pints_to(quantity, unit)
            got = quantity.to(unit)
            assert got.magnitude == expected.magnitude and got.units == expected.units
            if unit == "THz":  # c / wavelength, by hand
                assert got.magnitude == pytest.approx(299792458 / 500e-9 / 1e12, rel=1e-12)
    with pytest.raises(pint.DimensionalityError):
        Q_(500.0, "nm").to("THz")
    assert Q_(2.5, "s").to("ms").magnitude == pints_to(Q_(2.5, "s"), "ms").magnitude


def _catalog_texts() -> list[str]:
    """Every string value of the built-in catalog's YAML files that pint reads as a quantity
    with a unit (the texts ``parse_quantity`` reads on every catalog load)."""
    import yaml

    from mlcost.specs.catalog import default_catalog_dir

    found: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
        elif isinstance(node, str) and node[:1].isdigit():
            try:
                parsed = ureg.parse_expression(node)
            except Exception:
                return
            if isinstance(parsed, pint.Quantity) and not parsed.dimensionless:
                found.add(node)

    for file in default_catalog_dir().rglob("*.yaml"):
        walk(yaml.safe_load(file.read_text()))
    return sorted(found)


def _same_as_pint(text: str) -> None:
    ours, pints = parse_quantity(text), ureg.parse_expression(text)
    assert type(ours.magnitude) is type(pints.magnitude), text  # int stays int, as in pint
    assert ours.magnitude == pints.magnitude and ours.units == pints.units, text


def test_catalog_quantities_parse_as_pint_parses_them() -> None:
    # Oracle: pint's own expression evaluator, on every quantity text of the catalog (the form
    # parse_quantity reads without it) and on forms it leaves to pint.
    texts = _catalog_texts()
    assert len(texts) > 200
    for text in [*texts, "2 * 80 GB", "80GB", "1.5e-3 s", ".5 ms", "-3 W", "3 TB/s/W", "inf W"]:
        _same_as_pint(text)


@given(
    st.one_of(st.integers(0, 10**12), st.floats(0, 1e20, allow_nan=False)),
    st.sampled_from(["GB", "GiB", "TB/s", "W", "gCO2e/kWh", "USD/hour", "TFLOP/s", "us", "param"]),
)
def test_number_and_unit_texts_parse_as_pint_parses_them(number: float, unit: str) -> None:
    _same_as_pint(f"{number!r} {unit}")


def test_derived_units_read_back_equal_pints_own_derivation(tmp_path: Path) -> None:
    """The units derived after mlcost's ``bit`` redefinition, kept by one process and read back
    by the next, equal what pint derives afresh; a broken or foreign file is not used."""
    from mlcost import units

    fresh = units._new_registry()
    fresh.define(units._BIT)
    fresh._build_cache()  # the oracle: pint's own derivation, in this process
    kept = tmp_path / "derived.pickle"
    units._save_derived_units(fresh, kept)
    assert kept.stat().st_mode & 0o777 == 0o644
    assert not list(tmp_path.glob("*.tmp"))

    restored = units._new_registry()
    restored.define(units._BIT)
    assert units._restore_derived_units(restored, kept)
    assert restored._cache == fresh._cache
    assert restored._caches[()] is restored._cache
    assert restored.Quantity(1, "GiB").to("bit").magnitude == 8 * 2**30
    with pytest.raises(pint.DimensionalityError):
        restored.Quantity(1, "byte").to("dimensionless")

    kept.write_bytes(b"not a pickle")
    assert not units._restore_derived_units(restored, kept)
    kept.write_bytes(pickle.dumps({"root_units": {}}))
    assert not units._restore_derived_units(restored, kept)
    assert not units._restore_derived_units(restored, tmp_path / "missing.pickle")


def test_registry_with_and_without_kept_units_converts_alike() -> None:
    """The registry as mlcost builds it, with the kept derived units or without, converts the
    catalog's units identically."""
    from mlcost import units

    rebuilt = units._build_registry(reuse_derived_units=False)
    for text in ("80 GiB", "3.35 TB/s", "989.4 TFLOP/s", "400 Gbit/s", "350 gCO2e/kWh", "2 USD/h"):
        here, there = ureg(text), rebuilt(text)
        assert here.magnitude == there.magnitude
        assert str(here.units) == str(there.units)
        assert here.to_base_units().magnitude == pytest.approx(
            there.to_base_units().magnitude, rel=1e-15
        )
        assert str(here.dimensionality) == str(there.dimensionality)


def test_unit_texts_build_the_units_pint_builds() -> None:
    """``Q_(value, text)`` reads the text through the memoized parse; pint's own constructor
    (the oracle) gives the same units and magnitude, offset and dimensionless units included."""
    pints_new = pint.UnitRegistry.Quantity.__new__  # pint's own, past mlcost's override
    cls = type(Q_(1, "s"))
    values = (1.5, 3, np.float64(2.5), np.int64(7), np.array([1.0, 2.0]), [1, 2], (3.0,))
    for text in ["byte", "GB/s", "MiB", "gCO2e/kWh", "TFLOP/s", "degC", "", "USD/hour", "W"]:
        for units in (text, ureg._parse_units_as_container(text)):  # text, or pint's container
            for value in values:
                ours, pints = Q_(value, units), pints_new(cls, value, units)
                assert ours._units == pints._units, text
                np.testing.assert_array_equal(ours.magnitude, pints.magnitude)
                assert type(ours.magnitude) is type(pints.magnitude)
    for bad in (True, None, {"a": 1}):  # pint refuses these; so does mlcost's constructor
        with pytest.raises(TypeError):
            pints_new(cls, bad, "s")
        with pytest.raises(TypeError):
            Q_(bad, "s")


def _same_as_pints(ours: Any, theirs: Any, left: Any, right: Any) -> None:
    """``ours(left, right)`` (mlcost's operator) against ``theirs(left, right)`` (pint's own
    method, past mlcost's override): the same magnitude, type, dtype and units, or the same
    refusal (an exception, or pint declining with NotImplemented, which makes the operator
    fail)."""
    try:
        expected = theirs(left, right)
    except Exception as error:  # pint refuses: so must the fast path
        with pytest.raises(type(error)):
            ours(left, right)
        return
    if expected is NotImplemented:  # pint declines (a bool): the operator fails
        with pytest.raises(TypeError):
            ours(left, right)
        return
    got = ours(left, right)
    assert got._units == expected._units, (left, right)
    np.testing.assert_array_equal(got.magnitude, expected.magnitude)
    assert type(got.magnitude) is type(expected.magnitude), (left, right)
    if isinstance(got.magnitude, np.ndarray):
        assert got.magnitude.dtype == expected.magnitude.dtype


def test_scaling_by_a_plain_number_is_pints_own() -> None:
    """``q * x``, ``x * q`` and ``q / x`` for a plain int or float take a fast path; pint's own
    operators (the oracle, past mlcost's override) give the same magnitude, type and units,
    offset units (which pint treats apart) and pint's errors included."""
    pints = pint.UnitRegistry.Quantity
    magnitudes = (3, 2.5, np.float64(1.5), np.int64(7), np.array([1.0, 2.0]), np.array([1, 2]))
    units = ("s", "byte/s", "GiB", "USD/kWh", "dimensionless", "percent", "degC", "kelvin")
    operators = (
        (lambda q, x: q * x, pints.__mul__),
        (lambda q, x: x * q, pints.__rmul__),
        (lambda q, x: q / x, pints.__truediv__),
    )
    for unit in units:
        for magnitude in magnitudes:
            for other in (2, 0.5, -3, 1e300, 10**20, True, np.float64(2.0)):
                for ours, theirs in operators:
                    _same_as_pints(ours, theirs, Q_(magnitude, unit), other)
    with pytest.raises(ZeroDivisionError):
        Q_(1.0, "s") / 0
    # Division of whole numbers is in floats, as pint's non_int_type makes it: 2**54 + 3 is
    # converted (to 2**54 + 4) before dividing, which differs from dividing exactly and rounding.
    assert (Q_(2**54 + 3, "byte") / 3).magnitude == float(2**54 + 3) / 3.0 != (2**54 + 3) / 3


def test_products_and_quotients_of_quantities_are_pints_own() -> None:
    """``q1 * q2``, ``q1 / q2``, ``q1 + q2`` and ``q1 - q2`` of two quantities take a fast path
    where neither has an offset unit; pint's own operators (the oracle) give the same magnitude,
    type and units, and where pint refuses (offset units, other dimensions), so does mlcost."""
    pints = pint.UnitRegistry.Quantity
    magnitudes = (3, 2.5, np.float64(1.5), np.int64(7), np.array([1.0, 2.0]), np.array([4, 6]))
    units = ("s", "byte/s", "GiB", "USD/kWh", "dimensionless", "percent", "degC", "kelvin", "W")
    sums = ((lambda a, b: a + b, pints.__add__), (lambda a, b: a - b, pints.__sub__))
    operators = ((lambda a, b: a * b, pints.__mul__), (lambda a, b: a / b, pints.__truediv__))
    quantities = [Q_(m, u) for u in units for m in magnitudes]
    for left in quantities:
        for right in [*quantities[::5], *(Q_(m, left.units) for m in magnitudes)]:
            for ours, theirs in (*operators, *sums):
                _same_as_pints(ours, theirs, left, right)
    # Other units of the same dimension (converted first), and pint's delta units.
    pairs = [
        (Q_(8.4, "kW"), Q_(700, "W")), (Q_(1.5, "GB"), Q_(3, "MiB")),
        (Q_(np.array([1.0, 2.0]), "s"), Q_(250, "ms")), (Q_(3, "byte"), Q_(2, "kbyte")),
        (Q_(2.0, "delta_degC"), Q_(3.0, "kelvin")), (Q_(3.0, "kelvin"), Q_(2.0, "delta_degC")),
        (Q_(1.0, "hour"), Q_(5, "GB")),
    ]  # fmt: skip
    for left, right in pairs:
        for ours, theirs in sums:
            _same_as_pints(ours, theirs, left, right)
    # Whole numbers divide as floats (pint's non_int_type): 2**54 + 3 becomes 2**54 + 4 first.
    quotient = Q_(2**54 + 3, "byte") / Q_(3, "s")
    assert quotient.magnitude == float(2**54 + 3) / 3.0 != (2**54 + 3) / 3


def test_unit_text_is_pints_own_formatting() -> None:
    """``unit_text`` remembers pint's text for a unit in a format; the oracle is pint's own
    ``format(quantity.units, spec)``, asked every time, for the units mlcost writes (compound,
    prefixed, offset, dimensionless, custom), in both formats it uses."""
    from mlcost.units import format_quantity, quantity_to_json, unit_text

    texts = ("byte", "GB/s", "MiB", "gCO2e/kWh", "TFLOP/s", "degC", "", "USD/hour", "W",
             "percent", "token/s", "kWh", "flop", "tCO2e", "second ** 2")  # fmt: skip
    for text in texts:
        for magnitude in (1.5, 3, np.array([1.0, 2.0])):
            quantity = Q_(magnitude, text)
            for spec in ("~D", "~P", "~C", "D"):
                for _ in range(2):  # the first call fills the memo; the second reads it
                    assert unit_text(quantity, spec) == format(quantity.units, spec), (text, spec)
            if np.ndim(magnitude) == 0:
                pint_text = f"{quantity.units:~D}"
                expected = f"{magnitude} {pint_text}".strip() if pint_text else f"{magnitude}"
                assert format_quantity(quantity) == expected
            assert quantity_to_json(quantity)["unit"] == f"{quantity.units:~D}"
    foreign = pint.UnitRegistry().Quantity(3, "meter/second")  # another registry: pint writes it
    assert unit_text(foreign) == format(foreign.units, "~D") == "m / s"


def test_quantities_pickle_back_onto_mlcosts_registry_in_a_fresh_process(tmp_path: Path) -> None:
    """A pickled quantity comes back on mlcost's registry, with mlcost's own units (``token``,
    ``flop``, ``USD``, ``gCO2e``) and prefixed ones parsed for the first time in the reading
    process; pint's own pickle rebuilds on its application registry, which knows none of them
    (``UndefinedUnitError: 'token'``). Read in a fresh interpreter: what a process pool does."""
    import subprocess
    import sys

    quantities = [Q_(3.0, "token/s"), Q_(989.4, "TFLOP/s"), Q_(350, "gCO2e/kWh"),
                  Q_(2.5, "USD/hour"), Q_(np.array([1.0, 2.0]), "GiB"), Q_(20, "degC")]  # fmt: skip
    path = tmp_path / "quantities.pickle"
    path.write_bytes(pickle.dumps(quantities))
    reader = (
        "import pickle, sys\n"
        "from mlcost.units import ureg\n"
        "back = pickle.loads(open(sys.argv[1], 'rb').read())\n"
        "assert all(q._REGISTRY is ureg for q in back)\n"
        "print('|'.join(f'{q.magnitude!r} {q.units:~}' for q in back))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", reader, str(path)], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "|".join(f"{q.magnitude!r} {q.units:~}" for q in quantities)
    back = pickle.loads(pickle.dumps(quantities))
    assert all(
        b._REGISTRY is ureg and str(b.units) == str(q.units)
        for b, q in zip(back, quantities, strict=True)
    )
