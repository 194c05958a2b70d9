"""Unit safety: the registry's own dimensions, byte prefixes, parsing and exact round trips.
Oracles: the definitions (SI, IEC 80000-13), hand arithmetic and pint's own registry."""

from __future__ import annotations

import math
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pint
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mlcost.errors import UnitError
from mlcost.units import (
    Q_,
    format_quantity,
    in_unit,
    magnitude_in,
    parse_quantity,
    quantity_in,
    quantity_to_json,
    unit_text,
    ureg,
)


@pytest.mark.parametrize(
    ("text", "unit", "expected"),
    [
        # Decimal and binary prefixes by definition (SI brochure 9th ed.; IEC 80000-13).
        ("80 GiB", "byte", 80 * 2**30),
        ("80 GB", "byte", 80e9),
        ("3.35 TB/s", "byte/s", 3.35e12),
        ("989.4 TFLOP/s", "flop/s", 989.4e12),
        ("400 Gbit/s", "GB/s", 50),
        ("1 PiB", "byte", 2**50),
        ("1 KiB", "byte", 1024),
        ("2 PFLOP/s", "TFLOP/s", 2000),
        ("1 kWh", "joule", 3.6e6),
        ("2.5 USD/hour", "USD/s", 2.5 / 3600),
        ("1 tCO2e", "kgCO2e", 1000),
        ("1979 TOPS", "flop/s", 1979e12),
        ("1 Gbps", "bit/s", 1e9),
    ],
)
def test_strings_parse_to_the_defined_values(text: str, unit: str, expected: float) -> None:
    assert math.isclose(Q_(text).to(unit).magnitude, expected, rel_tol=1e-12)


def test_bytes_are_exact_and_gb_is_not_gib() -> None:
    assert Q_("80 GiB").to("byte").magnitude == 85899345920
    assert Q_("400 Gbit/s").to("GB/s").magnitude == 50
    assert Q_(80, "GiB").to("byte").to("GiB").magnitude == 80
    assert Q_(80, "GB") != Q_(80, "GiB")
    assert np.array_equal(Q_(np.array([1.0, 2.0]), "GiB").to("MiB").magnitude, [1024, 2048])


@pytest.mark.parametrize(
    ("left", "right"),
    [("1 flop", "1 USD"), ("1 param", "1 token"), ("1 kgCO2e", "1 kg"), ("1 byte", "1 flop"),
     ("1 USD", "1 gCO2e"), ("1 token", "1 byte"), ("80 GiB", "3"), ("1 byte", "1 param")],
)  # fmt: skip
def test_distinct_dimensions_do_not_mix(left: str, right: str) -> None:
    with pytest.raises(pint.DimensionalityError):
        Q_(left) + Q_(right)
    with pytest.raises(pint.DimensionalityError):
        Q_(left).to(Q_(right).units)


def test_the_registry_is_pints_own_but_for_bit() -> None:
    """pint's default registry (the oracle) converts as mlcost's does, its default system
    included; only ``bit`` differs: pint's is dimensionless, mlcost's ``[information]``."""
    pints = pint.UnitRegistry()
    for value, text, unit in [(1, "kWh", "MJ"), (90, "minute", "hour"), (20.5, "degC", "K")]:
        assert Q_(value, text).m_as(unit) == pints.Quantity(value, text).m_as(unit)
    assert str(Q_("1 g").to_base_units()) == "0.001 kg"  # mks: kilogram, not pint's root gram
    assert pints.Quantity("1 byte").dimensionless and not Q_("1 byte").dimensionless
    assert str(Q_("1 byte").dimensionality) == "[information]"


@pytest.mark.parametrize("bad", ["eighty gigabytes", "80 GiBs", "", "1 +* 2", None, True])
def test_bad_values_raise_unit_error_naming_the_field(bad: object) -> None:
    with pytest.raises(UnitError, match="memory_capacity"):
        parse_quantity(bad, field="memory_capacity")
    with pytest.raises(UnitError, match="bandwidth"):
        magnitude_in(Q_(7, "MiB"), "GB/s", "bandwidth")


@given(
    magnitude=st.floats(min_value=1e-12, max_value=1e18, allow_nan=False, allow_infinity=False),
    unit=st.sampled_from(["GiB", "GB", "TB/s", "TFLOP/s", "W", "USD/hour", "gCO2e/kWh", "param"]),
)
def test_format_and_parse_round_trip_exactly(magnitude: float, unit: str) -> None:
    back = parse_quantity(format_quantity(Q_(magnitude, unit)))
    assert back.units == Q_(1, unit).units and back.magnitude == magnitude


def test_conversions_and_texts_are_pints() -> None:
    """in_unit, quantity_in and magnitude_in are pint's conversion (by hand: 3 GiB, 1.5 s);
    in_unit never returns the quantity's own array; unit_text is pint's format."""
    assert in_unit(Q_(3, "GiB"), "byte") == 3 * 2**30
    assert type(in_unit(Q_(3, "GiB"), "byte")) is int  # pint keeps an int factor's int
    assert quantity_in(1.5, "s", "ms") == Q_(1500.0, "ms")
    assert magnitude_in("2 GiB/s", "MiB/s", "bandwidth") == 2048
    array = Q_(np.array([1.0, 2.0]), "s")
    in_unit(array, "s")[0] = 99.0
    assert array.magnitude[0] == 1.0
    for text in ("byte", "GB/s", "gCO2e/kWh", "degC", "", "USD/hour", "second ** 2"):
        for spec in ("~D", "~P", "D"):
            assert unit_text(Q_(1.5, text), spec) == format(Q_(1.5, text).units, spec)
    assert quantity_to_json(Q_("3.35 TB/s")) == {"value": 3.35, "unit": "TB / s"}
    assert quantity_to_json(Q_(80, "GiB")) == {"value": 80, "unit": "GiB"}


def test_quantities_pickle_back_onto_mlcosts_registry_in_a_fresh_process(tmp_path: Path) -> None:
    """A pickled quantity (or unit) comes back on mlcost's registry with mlcost's units, read in
    a fresh interpreter (what a process pool does); pint's own pickle would rebuild it on its
    application registry, which has no ``token``. Magnitudes to the bit, int staying int."""
    values = [Q_(3.0, "token/s"), Q_(0.1, "USD/hour"), Q_(80, "GiB"), Q_(1 / 3, "TFLOP/s"),
              Q_(np.array([1.0, 2.5]), "byte"), Q_(20, "degC"), ureg.Unit("gCO2e/kWh")]  # fmt: skip
    path = tmp_path / "values.pickle"
    path.write_bytes(pickle.dumps(values))
    reader = (
        "import pickle, sys\n"
        "from mlcost.units import ureg\n"
        "back = pickle.loads(open(sys.argv[1], 'rb').read())\n"
        "assert all(isinstance(v, (ureg.Quantity, ureg.Unit)) for v in back)\n"
        "print(repr(back))\n"
    )
    run = subprocess.run([sys.executable, "-c", reader, str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == repr(values)  # repr: float magnitudes to the bit, int as int


def test_units_uses_pint_through_its_public_api_only() -> None:
    """No module of mlcost reads pint's private caches or subclasses pint's classes."""
    private = re.compile(
        r"\._cache\b|\._active_ctx|\._parse_units_as_container|\._build_cache|\._caches\b"
        r"|\._magnitude\b|\._units\b|\._REGISTRY|_get_non_multiplicative_units|_get_delta_units"
        r"|class \w+\((pint\.|ureg\.)"
    )
    package = Path(__file__).parent.parent / "mlcost"
    found = [
        f"{path.relative_to(package)}:{number}: {line.strip()}"
        for path in sorted(package.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if private.search(line)
    ]
    assert not found
