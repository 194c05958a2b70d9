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
from typing import TYPE_CHECKING, Any

import numpy as np

from mlcost.arrays import Array
from mlcost.errors import MlcostError
from mlcost.records import Record, replace
from mlcost.results import Figure

if TYPE_CHECKING:
    from mlcost.specs import Accelerator

#: The level of every band: the share of published rows inside it.
LEVEL = 0.8
#: Every band's quantiles: the 5th and 95th percentiles of its rows' measured / predicted. The
#: 10th and 90th held fewer than 80 % of the rows out of sample (each family left out of the fit
#: in turn: 75 % of the training rows, 77 % of the serving rows); these hold at least that
#: (82 % and 89 %; benchmarks/validate_runs.py and validate_serving.py print it).
BAND_TAIL = 0.05


class Band(Record, frozen=True, dict=True):
    """``[low, high]`` multipliers of a prediction, their level and how they were derived
    (``coverage``: the share of rows inside it when each family of rows is left out of the fit
    in turn, where measured)."""

    low: float
    high: float
    level: float
    rows: int
    derivation: str
    coverage: float | None = None

    @property
    def resolution(self) -> float:
        """The band's half-width relative to its middle, ``(high - low) / (high + low)``: two
        predictions closer than this cannot be told apart by the published runs."""
        return (self.high - self.low) / (self.high + self.low)

    def apply(self, value: Any) -> tuple[Any, Any]:
        """``(value · low, value · high)``."""
        return value * self.low, value * self.high

    @cached_property
    def note(self) -> str:
        """The band's level and derivation, as a figure cites it (written once per band)."""
        return f"{self.level:.0%} band: {self.derivation}"


def band_from_errors(
    errors: Any, derivation: str, level: float = LEVEL, tail: float | None = None
) -> Band:
    """The band of ``measured time / predicted time = 1 + error`` over the rows' throughput errors
    ``error = predicted / measured throughput - 1`` (module docstring): its ``tail`` and
    ``1 - tail`` quantiles (default ``(1 - level) / 2``; a wider choice where the in-sample
    quantiles cover less than ``level`` of the rows out of sample)."""
    ratios = 1.0 + np.asarray(errors, dtype=np.float64)
    if ratios.size < 2 or not np.all(np.isfinite(ratios)) or np.any(ratios <= 0):
        raise MlcostError("errors: expected at least two finite throughput errors above -100%")
    tail = (1 - level) / 2 if tail is None else tail
    low, high = np.quantile(ratios, [tail, 1 - tail])
    return Band(float(low), float(high), level, int(ratios.size), derivation)


def calibration_factor(ratios: Any) -> float:
    """One correction factor of a step time: the median of ``measured / predicted`` over the
    published runs ``ratios`` (1 without any), robust to one run predicted far off."""
    values = np.asarray(ratios, dtype=np.float64)
    return float(np.median(values)) if values.size else 1.0


def corrected_ratios(ratios: Any, groups: Any, fitted_on: Any) -> Array:
    """``measured / predicted`` after each group's (implementation profile's) correction
    factor, fitted (:func:`calibration_factor`) on the rows ``fitted_on`` only (a boolean
    mask): a group without rows there takes the pooled factor of all the rows there, as a
    profile without published runs does (:func:`calibration`)."""
    values, names = np.asarray(ratios, dtype=np.float64), np.asarray(groups)
    mask = np.asarray(fitted_on, dtype=bool)
    pooled = calibration_factor(values[mask])
    factors = {
        name: calibration_factor(values[mask & (names == name)]) if np.any(mask & (names == name))
        else pooled
        for name in set(names.tolist())
    }  # fmt: skip
    return values / np.array([factors[name] for name in names.tolist()])


def held_out_bands(
    ratios: Any, groups: Any, families: Any, tail: float
) -> dict[str, tuple[float, float, Array]]:
    """Per family, the band fitted without it and which of its rows fall inside: the groups'
    correction factors (:func:`corrected_ratios`; ``groups`` ``None``: no correction) and the
    ``tail`` / ``1 - tail`` quantiles of ``measured / predicted``, both from the other families'
    rows only. ``(low, high, inside)`` per family; a family whose absence leaves fewer than two
    rows is left out."""
    names = np.asarray(families)
    values = np.asarray(ratios, dtype=np.float64)
    out: dict[str, tuple[float, float, Array]] = {}
    for family in dict.fromkeys(names.tolist()):
        held = names == family
        if (~held).sum() < 2:
            continue
        corrected = values if groups is None else corrected_ratios(values, groups, ~held)
        low, high = np.quantile(corrected[~held], [tail, 1 - tail])
        inside = (corrected[held] >= low) & (corrected[held] <= high)
        out[family] = (float(low), float(high), inside)
    return out


def leave_one_family_out(ratios: Any, groups: Any, families: Any, tail: float) -> Array:
    """Per row, whether its corrected ``measured / predicted`` falls inside the band fitted
    without its family (:func:`held_out_bands`)."""
    names = np.asarray(families)
    inside = np.zeros(names.shape, dtype=bool)
    for family, (_, _, mine) in held_out_bands(ratios, groups, names, tail).items():
        inside[names == family] = mine
    return inside


@cache
def step_time_band() -> Band:
    """The band of a training step time (and what scales with it), as shipped."""
    text = resources.files("mlcost").joinpath("data/uncertainty.json").read_text()
    data = json.loads(text)["training_step_time"]
    coverage = data.get("coverage")
    return Band(
        low=float(data["low"]), high=float(data["high"]), level=float(data["level"]),
        rows=int(data["rows"]), derivation=str(data["derivation"]),
        coverage=None if coverage is None else float(coverage),
    )  # fmt: skip


class Calibration(Record, frozen=True, dict=True):
    """The one correction factor of an implementation profile's step time: the median of
    ``measured / predicted`` step time over the published training runs it ran (the
    uncorrected roofline model's predictions), and how it was derived."""

    profile: str
    factor: float
    rows: int
    derivation: str

    @cached_property
    def note(self) -> str:
        """What a figure says of it."""
        return f"calibrated to {self.rows} published runs of {self.profile} (x{self.factor:.3f})"


#: The key of ``uncertainty.json``'s calibration that pools every training run, the factor of an
#: implementation profile without published runs of its own.
POOLED = "pooled"


@cache
def calibrations() -> dict[str, Calibration]:
    """The shipped correction factor of each implementation profile that has published runs,
    and the :data:`POOLED` one of all of them (``mlcost/data/uncertainty.json``, written by
    ``benchmarks/validate_runs.py --write``)."""
    text = resources.files("mlcost").joinpath("data/uncertainty.json").read_text()
    data = json.loads(text).get("calibration", {})
    return {
        name: Calibration(
            profile=name,
            factor=float(entry["factor"]),
            rows=int(entry["rows"]),
            derivation=str(entry["derivation"]),
        )
        for name, entry in data.items()
    }


def calibration(
    profile: str | None, *, own_run: bool = False, own_profile: bool = False
) -> Calibration | None:
    """The correction factor of a step time run by the implementation profile named
    ``profile`` (None: no profile given, the roofline model's figure):

    * a profile with published runs: its own factor (the median over its runs);
    * a profile without: the :data:`POOLED` factor of every published run (what leaving each
      family out of the fit in turn measures: docs/validation.md), unless the accelerator is
      the user's own profile (``own_profile``: ``mlcost calibrate``), which says what their
      hardware does and is not pooled with others';
    * none when the accelerator was fitted from the user's own profiled run (``own_run``:
      ``mlcost calibrate --trace``): that run is the calibration."""
    if profile is None or own_run:
        return None
    found = calibrations()
    if profile in found:
        return found[profile]
    return None if own_profile else found.get(POOLED)


def step_calibration(profile: str | None, accelerator: Accelerator) -> Calibration | None:
    """:func:`calibration` of a step run by ``profile`` on ``accelerator``: whether its
    ``measured`` block is the user's own (what ``mlcost calibrate`` writes: the torch it was
    measured under, the catalog accelerator it is based on, or the trace it was fitted from;
    a catalog accelerator's published measurements have none of them) and fitted from their
    profiled run (``trace``)."""
    measured = accelerator.measured
    if measured is None:
        return calibration(profile)
    own = (measured.torch, measured.based_on, measured.trace)
    return calibration(
        profile,
        own_run=measured.trace is not None,
        own_profile=any(value is not None for value in own),
    )


def with_band(figure: Figure) -> Figure:
    """``figure`` (a step time, or a quantity proportional to it) with the step-time band."""
    band = step_time_band()
    return replace(figure, band=band.apply(figure.value), band_note=band.note)


__all__ = [
    "BAND_TAIL",
    "LEVEL",
    "POOLED",
    "Band",
    "Calibration",
    "band_from_errors",
    "calibration",
    "calibration_factor",
    "calibrations",
    "corrected_ratios",
    "held_out_bands",
    "leave_one_family_out",
    "step_calibration",
    "step_time_band",
    "with_band",
]
