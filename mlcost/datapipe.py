"""The data pipeline (the textbook chapter's pipeline section): can the input keep up?

* storage ``T_storage = min(B_disk, B_network)``, effective ``T_storage · F_access`` for random
  access (the chapter: F_access ≈ 0.1);
* preprocessing ``workers / t_transform`` (batches/s), tokenization time ``tokens / rate``;
* host-to-device transfer ``bytes / B_PCIe``;
* training throughput ``min(preprocessing, transfer, compute)`` (the "min of three");
* the data-parallel gradient all-reduce volume ``2 × gradient bytes`` over the network (the
  chapter's network wall; the ring algorithm sends ``2(N-1)/N`` of it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pint

from mlcost.units import Q_

Number = Any


def storage_throughput(
    disk: pint.Quantity, network: pint.Quantity | None = None, *, access_factor: float = 1.0
) -> pint.Quantity:
    """``min(disk, network) · F_access``."""
    best = (
        disk
        if network is None
        else Q_(np.minimum(disk.to("GB/s").magnitude, network.to("GB/s").magnitude), "GB/s")
    )
    return (best * access_factor).to("GB/s")


def tokenization_time(
    tokens: Number, rate_per_core: pint.Quantity, workers: int = 1
) -> pint.Quantity:
    """``tokens / (rate · workers)``."""
    return (Q_(tokens, "token") / (rate_per_core * workers)).to("ms")


def transfer_time(batch_bytes: pint.Quantity, bandwidth: pint.Quantity) -> pint.Quantity:
    """Host-to-device copy of one batch: ``bytes / bandwidth``."""
    return (batch_bytes / bandwidth).to("ms")


def training_throughput(*rates: pint.Quantity) -> pint.Quantity:
    """The slowest stage bounds the pipeline: ``min`` of the stage rates (same units)."""
    unit = rates[0].units
    return Q_(min(float(rate.to(unit).magnitude) for rate in rates), unit)


def allreduce_volume(gradient_bytes: pint.Quantity, factor: float = 2.0) -> pint.Quantity:
    """Bytes a data-parallel step moves per GPU for its gradients, ``factor × gradients``."""
    return (gradient_bytes * factor).to("GB")
