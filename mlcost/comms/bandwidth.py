"""Bandwidth as nccl-tests reports it (NVIDIA nccl-tests, ``doc/PERFORMANCE.md``).

``algbw = S/t`` and ``busbw = algbw x factor`` with factor ``2(n-1)/n`` for all-reduce,
``(n-1)/n`` for all-gather, reduce-scatter and all-to-all, and 1 for broadcast, reduce and
send/receive, so that a run's ``busbw`` can be compared with the link's bandwidth whatever ``n``
is; a ring with no latency has ``busbw = beta`` exactly.
"""

from __future__ import annotations

import numpy as np
import pint

from mlcost.arrays import Real, plain
from mlcost.checks import quantity
from mlcost.comms.collectives import COLLECTIVES, check_ranks
from mlcost.errors import MlcostError
from mlcost.units import Q_


def bus_bandwidth_factor(collective: str, ranks: Real) -> Real:
    """nccl-tests' correction from algorithm to bus bandwidth ("Summary"): all-reduce
    ``2(n-1)/n``; reduce-scatter, all-gather, all-to-all ``(n-1)/n``; broadcast, reduce and
    point-to-point 1."""
    n = np.asarray(check_ranks(ranks), dtype=np.float64)
    if collective == "all-reduce":
        factor = 2 * (n - 1) / n
    elif collective in ("reduce-scatter", "all-gather", "all-to-all"):
        factor = (n - 1) / n
    elif collective in ("broadcast", "reduce", "point-to-point"):
        factor = np.ones_like(n)
    else:
        raise MlcostError(
            f"collective: got {collective!r}, expected one of {', '.join(COLLECTIVES)}"
        )
    return plain(factor)


def algorithm_bandwidth(size: pint.Quantity, time: pint.Quantity) -> pint.Quantity:
    """``algbw = S / t`` (nccl-tests PERFORMANCE.md), in GB/s (size >= 0, time > 0)."""
    moved = quantity(size, "byte", "size")
    return Q_(moved / quantity(time, "s", "time", strict=True), "B/s").to("GB/s")


def bus_bandwidth(
    size: pint.Quantity, time: pint.Quantity, collective: str, ranks: Real
) -> pint.Quantity:
    """``busbw = algbw x factor`` (:func:`bus_bandwidth_factor`), comparable with link peaks."""
    return (algorithm_bandwidth(size, time) * bus_bandwidth_factor(collective, ranks)).to("GB/s")
