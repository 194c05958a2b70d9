"""Energy and carbon of a training run.

* Accelerator power against utilization: ``P(u) = P_idle + (P_max - P_idle)·u`` (a linear
  model between idle and TDP; the idle share defaults to ``Assumptions.gpu_idle_fraction``,
  whose source :data:`mlcost.assumptions.ASSUMPTION_SOURCES` gives).
* IT power of a cluster: ``N_gpu·P_gpu + N_host·P_host``; facility energy ``E_IT · PUE`` (the
  Green Grid's PUE definition).
* Operational carbon ``E · I_grid`` (gCO2e from kWh and gCO2e/kWh); embodied carbon charged per
  GPU-hour as ``embodied per device · GPU-hours / lifetime hours`` (Gupta et al. 2021, "Chasing
  Carbon"), reported separately.

All functions take and return pint quantities and accept numpy magnitudes.
"""

from __future__ import annotations

from typing import Any

import pint

from mlcost.assumptions import Assumptions

Number = Any


def accelerator_power(
    utilization: Number, tdp: pint.Quantity, *, idle_fraction: float | None = None
) -> pint.Quantity:
    """``P_idle + (TDP - P_idle)·u`` with ``P_idle = idle_fraction · TDP`` (default
    ``Assumptions.gpu_idle_fraction``): a linear model between idle and TDP."""
    if idle_fraction is None:
        idle_fraction = Assumptions().gpu_idle_fraction
    idle = tdp * idle_fraction
    return (idle + (tdp - idle) * utilization).to("W")


def cluster_power(
    gpus: Number,
    gpu_power: pint.Quantity,
    *,
    hosts: Number = 0,
    host_power: pint.Quantity | None = None,
) -> pint.Quantity:
    """IT power ``N_gpu·P_gpu + N_host·P_host``."""
    total = gpus * gpu_power
    if host_power is not None:
        total = total + hosts * host_power
    return total.to("kW")


def energy(power: pint.Quantity, duration: pint.Quantity, *, pue: Number = 1.0) -> pint.Quantity:
    """Facility energy ``P · t · PUE`` in kWh."""
    return (power * duration * pue).to("kWh")


def operational_carbon(energy_used: pint.Quantity, intensity: pint.Quantity) -> pint.Quantity:
    """``E · I`` in tCO2e (intensity in gCO2e/kWh, e.g. from a catalog grid region)."""
    return (energy_used * intensity).to("tCO2e")


def embodied_carbon(
    gpu_hours: pint.Quantity, per_device: pint.Quantity, lifetime: pint.Quantity
) -> pint.Quantity:
    """Embodied emissions charged to a run: ``per_device · GPU-hours / lifetime``."""
    return (per_device * (gpu_hours / lifetime).to("dimensionless")).to("tCO2e")


__all__ = [
    "accelerator_power",
    "cluster_power",
    "embodied_carbon",
    "energy",
    "operational_carbon",
]
