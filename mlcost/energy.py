"""Energy and carbon of a training run.

* Accelerator power against utilization: ``P(u) = P_idle + (P_max - P_idle)·u`` (a linear
  model between idle and TDP; the idle share defaults to ``Assumptions.gpu_idle_fraction``,
  whose source :data:`mlcost.assumptions.ASSUMPTION_SOURCES` gives).
* IT power of a cluster: ``N_gpu·P_gpu + N_host·P_host``; facility energy ``E_IT · PUE`` (the
  Green Grid's PUE definition).
* Operational carbon ``E · I_grid`` (gCO2e from kWh and gCO2e/kWh); embodied carbon charged per
  GPU-hour as ``embodied per device · GPU-hours / lifetime hours`` (Gupta et al. 2021, "Chasing
  Carbon"), reported separately.

* Accounting conventions (:data:`ACCOUNTING`): how published reports turn GPU-hours into
  energy. ``measured-node`` (the default): whole-node power measured under training load, per
  GPU; ``system-per-accelerator``: measured average system power per accelerator, host, memory,
  network and fans included (Patterson et al. 2021, table 4); ``gpu-tdp``: the GPU's peak power
  (TDP) alone, as Meta's model cards count ("peak power capacity per GPU device ... adjusted for
  power usage efficiency"); ``utilization``: mlcost's linear idle-to-TDP model at the GPU's busy
  share plus the node's non-GPU share. Each is multiplied by the PUE.
  ``E = GPU-hours x P_per_GPU x PUE``; location-based carbon ``E x I_grid``, market-based carbon
  ``E x I_market`` (the residual or contracted intensity; 0 for fully matched renewables).

All functions take and return pint quantities and accept numpy magnitudes.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from typing import Any

import pint

from mlcost.assumptions import Assumptions
from mlcost.errors import MlcostError, UnknownNameError
from mlcost.units import Q_, magnitude_in

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


#: The accounting conventions, with what each counts per GPU-hour.
ACCOUNTING: dict[str, str] = {
    "measured-node": "whole-node power measured under training load, per GPU, x PUE",
    "system-per-accelerator": (
        "measured average system power per accelerator (host, memory, network, fans "
        "included; Patterson et al. 2021, table 4), x PUE"
    ),
    "gpu-tdp": "GPU peak power (TDP) x GPU-hours, x PUE (Meta's model cards)",
    "utilization": (
        "linear idle-to-TDP GPU power at the busy share + the node's non-GPU share, x PUE"
    ),
}


def check_accounting(name: str) -> str:
    """``name`` if it is a known convention, else an :class:`UnknownNameError`."""
    if name not in ACCOUNTING:
        raise UnknownNameError("accounting convention", name, ACCOUNTING)
    return name


def check_pue(pue: Any) -> float:
    """``pue`` as a number in [1, 5] (the Green Grid's definition: facility over IT energy, never
    below 1; the worst surveyed facilities are near 2.5), else an :class:`MlcostError`."""
    try:
        value = float(pue)
    except (TypeError, ValueError):
        raise MlcostError(f"pue: got {pue!r}, expected a number between 1.0 and 5.0") from None
    if not 1.0 <= value <= 5.0:
        raise MlcostError(f"pue: got {pue!r}, expected a value between 1.0 and 5.0")
    return value


def _intensity(value: Any, field: str) -> pint.Quantity:
    """A grid intensity >= 0 in gCO2e/kWh; a bare number is taken in gCO2e/kWh."""
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = float(value)  # "429" or "0": a bare number in gCO2e/kWh
    magnitude = magnitude_in(value, "gCO2e/kWh", field, bare=True)
    if not (magnitude >= 0 and math.isfinite(magnitude)):
        raise MlcostError(f"{field}: got {value!r}, expected a finite intensity >= 0 gCO2e/kWh")
    return Q_(magnitude, "gCO2e/kWh")


@dataclass(frozen=True)
class EnergyReport:
    """Energy and operational carbon of a number of GPU-hours under one convention."""

    gpu_hours: pint.Quantity
    power_per_gpu: pint.Quantity
    pue: float
    energy: pint.Quantity
    location_carbon: pint.Quantity
    market_carbon: pint.Quantity | None
    accounting: str

    def text(self) -> str:
        market = (
            f", market-based {self.market_carbon.to('tCO2e').magnitude:,.4g} tCO2e"
            if self.market_carbon is not None
            else ""
        )
        return (
            f"{self.gpu_hours.to('hour').magnitude:,.4g} GPU-h x "
            f"{self.power_per_gpu.to('W').magnitude:,.4g} W x PUE {self.pue:g} = "
            f"{self.energy.to('MWh').magnitude:,.4g} MWh; location-based "
            f"{self.location_carbon.to('tCO2e').magnitude:,.4g} tCO2e{market} "
            f"({self.accounting}: {ACCOUNTING[self.accounting]})"
        )


def report_energy(
    gpu_hours: Any,
    power_per_gpu: Any,
    *,
    pue: float = 1.0,
    intensity: Any,
    market_intensity: Any = None,
    accounting: str = "gpu-tdp",
) -> EnergyReport:
    """Report mode: energy and CO2e of published GPU-hours under a report's convention,
    ``E = GPU-hours x P x PUE``, ``CO2e = E x I`` (location-based; market-based with
    ``market_intensity``). ``power_per_gpu`` is what the convention counts (the TDP for
    ``gpu-tdp``, the measured system power per accelerator for ``system-per-accelerator``, ...).
    """
    check_accounting(accounting)
    hours = magnitude_in(gpu_hours, "hour", "gpu_hours", bare=True)
    watts = magnitude_in(power_per_gpu, "W", "power_per_gpu")
    if not (hours > 0 and hours < float("inf")):
        raise MlcostError(f"gpu_hours: got {gpu_hours!r}, expected a finite number > 0")
    if not (watts > 0 and watts < float("inf")):
        raise MlcostError(f"power_per_gpu: got {power_per_gpu!r}, expected a power > 0 W")
    check_pue(pue)
    grid = _intensity(intensity, "intensity")
    used = energy(Q_(watts, "W"), Q_(hours, "hour"), pue=float(pue))
    market = None
    if market_intensity is not None:
        market = operational_carbon(used, _intensity(market_intensity, "market_intensity"))
    return EnergyReport(
        gpu_hours=Q_(hours, "hour"),
        power_per_gpu=Q_(watts, "W"),
        pue=float(pue),
        energy=used,
        location_carbon=operational_carbon(used, grid),
        market_carbon=market,
        accounting=accounting,
    )


__all__ = [
    "ACCOUNTING",
    "EnergyReport",
    "accelerator_power",
    "check_accounting",
    "check_pue",
    "cluster_power",
    "embodied_carbon",
    "energy",
    "operational_carbon",
    "report_energy",
]
