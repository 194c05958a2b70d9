"""The uncertainty band of serving latencies, as shipped: ``mlcost/data/serving_band.json``,
written by ``benchmarks/validate_serving.py --write`` from the published serving rows
(:func:`mlcost.serving.published.serving_band_from_rows`: the 5th-95th percentile of measured /
predicted time, with its leave-one-family-out check). The training step's band is
:func:`mlcost.uncertainty.step_time_band`; the same :class:`~mlcost.uncertainty.Band` here."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from mlcost.uncertainty import Band


@cache
def serving_latency_band() -> Band:
    """The band of a serving latency (TTFT, TPOT, a batch's latency) and, inverted, of a
    serving throughput."""
    text = resources.files("mlcost").joinpath("data/serving_band.json").read_text()
    data = json.loads(text)["serving_latency"]
    return Band(**{name: data[name] for name in ("low", "high", "level", "rows", "derivation")})


__all__ = ["serving_latency_band"]
