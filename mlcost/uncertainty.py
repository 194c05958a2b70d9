"""How far a prediction may be from the run it predicts: bands derived from the published
validation set.

A band is the range of ``measured / predicted`` that the rows of one kind of prediction spanned
when mlcost predicted them (:mod:`mlcost.published`): for the step time of a training run, the
10th and 90th percentiles of ``measured step time / predicted step time`` (= predicted over
measured throughput) over every training-run row, one configuration per family. Applied to a
prediction ``x`` it gives ``[x · low, x · high]``, an 80% band under the assumption that a new run
errs as the published ones did. Quantities proportional to the step time (wall clock,
GPU-hours, energy, dollars, CO2e) take the same band.

The numbers live in ``mlcost/data/uncertainty.json``, written by ``benchmarks/validate_runs.py``
from the validation it runs; the test suite recomputes them and fails when they drift.
"""

from __future__ import annotations

import json
from functools import cache, cached_property
from importlib import resources
from typing import Any

import numpy as np

from mlcost.errors import MlcostError
from mlcost.records import Record, replace
from mlcost.results import Figure

#: The level of every band: the share of published rows inside it.
LEVEL = 0.8


class Band(Record, frozen=True, dict=True):
    """``[low, high]`` multipliers of a prediction, their level and how they were derived."""

    low: float
    high: float
    level: float
    rows: int
    derivation: str

    def apply(self, value: Any) -> tuple[Any, Any]:
        """``(value · low, value · high)``."""
        return value * self.low, value * self.high

    @cached_property
    def note(self) -> str:
        """The band's level and derivation, as a figure cites it (written once per band)."""
        return f"{self.level:.0%} band: {self.derivation}"


def band_from_errors(errors: Any, derivation: str, level: float = LEVEL) -> Band:
    """The band of ``measured time / predicted time = 1 + error`` over the rows' throughput errors
    ``error = predicted / measured throughput - 1`` (module docstring)."""
    ratios = 1.0 + np.asarray(errors, dtype=np.float64)
    if ratios.size < 2 or not np.all(np.isfinite(ratios)) or np.any(ratios <= 0):
        raise MlcostError("errors: expected at least two finite throughput errors above -100%")
    tail = (1 - level) / 2
    low, high = np.quantile(ratios, [tail, 1 - tail])
    return Band(float(low), float(high), level, int(ratios.size), derivation)


@cache
def step_time_band() -> Band:
    """The band of a training step time (and what scales with it), as shipped."""
    text = resources.files("mlcost").joinpath("data/uncertainty.json").read_text()
    data = json.loads(text)["training_step_time"]
    return Band(
        low=float(data["low"]), high=float(data["high"]), level=float(data["level"]),
        rows=int(data["rows"]), derivation=str(data["derivation"]),
    )  # fmt: skip


def with_band(figure: Figure) -> Figure:
    """``figure`` (a step time, or a quantity proportional to it) with the step-time band."""
    band = step_time_band()
    return replace(figure, band=band.apply(figure.value), band_note=band.note)


__all__ = ["LEVEL", "Band", "band_from_errors", "step_time_band", "with_band"]
