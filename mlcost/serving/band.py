"""The uncertainty band of serving latencies and the correction factor of each GPU vendor, as
shipped: ``mlcost/data/serving_band.json``, written by ``benchmarks/validate_serving.py --write``
from the published serving rows (:func:`mlcost.serving.published.serving_band_from_rows`).

The factor is the serving analogue of the training step's one factor per implementation
profile (:func:`mlcost.uncertainty.calibration`): the median of measured / predicted time over
the published rows served on a vendor's GPUs (the roofline model's uncorrected predictions);
a vendor without published rows takes the pooled median of all rows. It multiplies the GPU's
forward seconds of a :class:`mlcost.serving.ServePlan` (``calibrated=False``: the uncorrected
figure). The band is the 5th-95th percentile of the corrected measured / predicted time, with
its leave-one-family-out check; the training step's band is
:func:`mlcost.uncertainty.step_time_band`, the same :class:`~mlcost.uncertainty.Band` here."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from mlcost.uncertainty import POOLED, Band, Calibration


@cache
def serving_latency_band() -> Band:
    """The band of a serving latency (TTFT, TPOT, a batch's latency) and, inverted, of a
    serving throughput."""
    text = resources.files("mlcost").joinpath("data/serving_band.json").read_text()
    data = json.loads(text)["serving_latency"]
    return Band(**{name: data[name] for name in ("low", "high", "level", "rows", "derivation")})


@cache
def serving_calibrations() -> dict[str, Calibration]:
    """The shipped factor of each GPU vendor with published serving rows, and the
    :data:`~mlcost.uncertainty.POOLED` one of all rows (module docstring)."""
    text = resources.files("mlcost").joinpath("data/serving_band.json").read_text()
    data = json.loads(text).get("calibration", {})
    return {
        name: Calibration(
            profile=name, factor=float(entry["factor"]), rows=int(entry["rows"]),
            derivation=str(entry["derivation"]),
        )
        for name, entry in data.items()
    }  # fmt: skip


def serving_calibration(vendor: str) -> Calibration | None:
    """The factor of a GPU of ``vendor``: its own where it has published rows, else the pooled
    one (None before any is shipped)."""
    found = serving_calibrations()
    return found.get(vendor, found.get(POOLED))


__all__ = ["serving_calibration", "serving_calibrations", "serving_latency_band"]
