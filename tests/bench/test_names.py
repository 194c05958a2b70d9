"""The names ``mlcost bench`` checks before torch loads (:mod:`mlcost.bench.store`) are the
families, presets and formats its suites actually run (:mod:`mlcost.bench.suites`)."""

from __future__ import annotations

from mlcost.bench.store import BENCH_FORMATS, FAMILY_NAMES, PRESET_NAMES
from mlcost.bench.suites import FAMILIES, PRESETS, _formats


def test_checked_names_are_the_suites_names() -> None:
    assert tuple(FAMILIES) == FAMILY_NAMES
    assert tuple(PRESETS) == PRESET_NAMES
    assert set(_formats("cuda", None)) <= set(BENCH_FORMATS)
    assert set(_formats("cpu", None)) <= set(BENCH_FORMATS)
