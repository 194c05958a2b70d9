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
* Life-cycle view (Luccioni, Viguier and Ligozat 2022, "Estimating the Carbon Footprint of
  BLOOM", section 4): operational energy split into *dynamic* (what the convention counts per
  GPU-hour) and *idle* (the infrastructure that draws power whether or not it computes: idle
  nodes, network, storage; ``GPU-hours x P_idle x PUE``, or a published idle energy), plus
  *embodied* carbon of the GPUs and of their share of the servers amortized over lifetime x use
  rate; each reported apart and summed. BLOOM: 433,196 kWh dynamic + 256,646 kWh idle at
  57 gCO2e/kWh and 11.2 t embodied = 50.5 tCO2e.

All functions take and return pint quantities and accept numpy magnitudes.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import numpy as np
import pint

from mlcost.arrays import Real
from mlcost.assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from mlcost.checks import finite, quantity
from mlcost.errors import MlcostError, UnknownNameError
from mlcost.records import Record
from mlcost.units import Q_, magnitude_in, positive_magnitude

#: Joules in a kilowatt-hour (1000 W x 3600 s) and grams in a tonne, as the unit registry
#: defines ``kWh`` and ``tCO2e``: the two constants of the magnitude forms below.
JOULES_PER_KWH = float(Q_(1, "kWh").to("J").magnitude)
GRAMS_PER_TONNE = float(Q_(1, "tCO2e").to("gCO2e").magnitude)


def accelerator_watts(utilization: Real, tdp_w: Real, idle_fraction: float) -> Real:
    """``P_idle + (TDP - P_idle)·u`` in W with ``P_idle = idle_fraction · TDP`` (plain numbers
    or arrays; :func:`accelerator_power` takes quantities)."""
    idle = tdp_w * idle_fraction
    return idle + (tdp_w - idle) * utilization


def energy_kwh(watts: Real, seconds: Real, pue: Real = 1.0) -> Real:
    """Facility energy ``P · t · PUE`` in kWh from W and s (:func:`energy` takes quantities)."""
    return watts * seconds * pue / JOULES_PER_KWH


def operational_tonnes(kwh: Real, grams_per_kwh: Real) -> Real:
    """``E · I`` in tCO2e from kWh and gCO2e/kWh (:func:`operational_carbon`)."""
    return kwh * grams_per_kwh / GRAMS_PER_TONNE


def embodied_tonnes(gpu_hours: Real, per_device_t: Real, lifetime_hours: Real) -> Real:
    """``per_device · GPU-hours / lifetime`` in tCO2e (:func:`embodied_carbon`)."""
    return per_device_t * (gpu_hours / lifetime_hours)


def _share(value: Real, field: str) -> None:
    """A share in [0, 1] (every element), else one line naming ``field``."""
    finite(value, field)
    if np.any(np.asarray(value, dtype=np.float64) > 1.0):
        raise MlcostError(f"{field}: got {value!r}, expected a share in [0, 1]")


def accelerator_power(
    utilization: Real, tdp: pint.Quantity, *, idle_fraction: float | None = None
) -> pint.Quantity:
    """``P_idle + (TDP - P_idle)·u`` with ``P_idle = idle_fraction · TDP`` (default
    ``Assumptions.gpu_idle_fraction``): a linear model between idle and TDP."""
    if idle_fraction is None:
        idle_fraction = DEFAULT_ASSUMPTIONS.gpu_idle_fraction
    _share(utilization, "utilization")
    _share(idle_fraction, "idle_fraction")
    return Q_(accelerator_watts(utilization, quantity(tdp, "W", "tdp", strict=True), idle_fraction),
              "W")  # fmt: skip


def cluster_power(
    gpus: Real,
    gpu_power: pint.Quantity,
    *,
    hosts: Real = 0,
    host_power: pint.Quantity | None = None,
) -> pint.Quantity:
    """IT power ``N_gpu·P_gpu + N_host·P_host``."""
    watts = finite(gpus, "gpus") * quantity(gpu_power, "W", "gpu_power")
    if host_power is not None:
        watts = watts + finite(hosts, "hosts") * quantity(host_power, "W", "host_power")
    return Q_(watts, "W").to("kW")


def energy(power: pint.Quantity, duration: pint.Quantity, *, pue: Real = 1.0) -> pint.Quantity:
    """Facility energy ``P · t · PUE`` in kWh (:func:`energy_kwh`); power and duration finite
    and >= 0, PUE >= 1."""
    watts, seconds = quantity(power, "W", "power"), quantity(duration, "s", "duration")
    return Q_(energy_kwh(watts, seconds, finite(pue, "pue", minimum=1.0)), "kWh")


def operational_carbon(energy_used: pint.Quantity, intensity: pint.Quantity) -> pint.Quantity:
    """``E · I`` in tCO2e (intensity in gCO2e/kWh, e.g. from a catalog grid region)."""
    kwh = quantity(energy_used, "kWh", "energy_used")
    grams = quantity(intensity, "gCO2e/kWh", "intensity")
    return Q_(operational_tonnes(kwh, grams), "tCO2e")


def embodied_carbon(
    gpu_hours: pint.Quantity, per_device: pint.Quantity, lifetime: pint.Quantity
) -> pint.Quantity:
    """Embodied emissions charged to a run: ``per_device · GPU-hours / lifetime``."""
    return Q_(
        embodied_tonnes(
            quantity(gpu_hours, "hour", "gpu_hours"), quantity(per_device, "tCO2e", "per_device"),
            quantity(lifetime, "hour", "lifetime", strict=True),
        ),
        "tCO2e",
    )  # fmt: skip


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


class EnergyReport(Record, frozen=True):
    """Energy and carbon of a number of GPU-hours under one convention: operational energy as
    dynamic + idle, location- (and market-) based carbon, and optionally the embodied carbon of
    the GPUs and servers (the life-cycle view; :func:`report_energy`)."""

    gpu_hours: pint.Quantity
    power_per_gpu: pint.Quantity
    pue: float
    dynamic_energy: pint.Quantity
    idle_energy: pint.Quantity
    energy: pint.Quantity  # dynamic + idle
    location_carbon: pint.Quantity  # of ``energy``
    market_carbon: pint.Quantity | None
    accounting: str
    embodied_gpu_carbon: pint.Quantity | None = None
    embodied_server_carbon: pint.Quantity | None = None

    @property
    def embodied_carbon(self) -> pint.Quantity | None:
        """Embodied CO2e of the GPUs and their servers' share, or None when not asked for."""
        if self.embodied_gpu_carbon is None or self.embodied_server_carbon is None:
            return None
        return (self.embodied_gpu_carbon + self.embodied_server_carbon).to("tCO2e")

    @property
    def dynamic_carbon(self) -> pint.Quantity:
        """Location-based CO2e of the dynamic energy: one grid intensity for both parts, so
        ``location_carbon · dynamic_energy / energy`` (BLOOM's split, Luccioni et al. 2022,
        section 4: 24.69 t dynamic, 14.6 t idle)."""
        if self.energy.magnitude == 0:
            return Q_(0.0, "tCO2e")
        return (self.location_carbon * (self.dynamic_energy / self.energy).to("")).to("tCO2e")

    @property
    def idle_carbon(self) -> pint.Quantity:
        """Location-based CO2e of the idle infrastructure energy: ``location_carbon`` minus
        :attr:`dynamic_carbon`."""
        return (self.location_carbon - self.dynamic_carbon).to("tCO2e")

    @property
    def total_carbon(self) -> pint.Quantity:
        """Location-based operational CO2e plus embodied CO2e (when computed)."""
        embodied = self.embodied_carbon
        return self.location_carbon if embodied is None else (self.location_carbon + embodied)

    def _figures(self) -> dict[str, str]:
        """The numbers of :meth:`text` and :meth:`short_rows`, each formatted once: ``market``,
        ``idle``, ``split`` and ``embodied`` empty where the report has none."""

        def tco2e(quantity: pint.Quantity) -> str:
            return f"{quantity.to('tCO2e').magnitude:,.4g}"

        figures = {
            "hours": f"{self.gpu_hours.to('hour').magnitude:,.4g}",
            "power": f"{self.power_per_gpu.to('W').magnitude:,.4g}",
            "dynamic": f"{self.dynamic_energy.to('MWh').magnitude:,.4g}",
            "location": tco2e(self.location_carbon),
            "total": tco2e(self.total_carbon),
            "market": "" if self.market_carbon is None else tco2e(self.market_carbon),
            "idle": "", "split": "", "embodied": "",
        }  # fmt: skip
        if self.idle_energy.magnitude > 0:
            figures["idle"] = f"{self.idle_energy.to('MWh').magnitude:,.4g}"
            figures["split"] = (
                f"dynamic {self.dynamic_carbon.magnitude:,.4g} + idle "
                f"{self.idle_carbon.magnitude:,.4g}"
            )
        gpu_part, server_part = self.embodied_gpu_carbon, self.embodied_server_carbon
        if gpu_part is not None and server_part is not None:
            figures["embodied"] = (
                f"{tco2e(gpu_part + server_part)} tCO2e (GPUs {tco2e(gpu_part)} + servers "
                f"{tco2e(server_part)})"
            )
        return figures

    def text(self) -> str:
        f = self._figures()
        idle = f" + idle {f['idle']} MWh" if f["idle"] else ""
        split = f" ({f['split']})" if f["split"] else ""
        market = f", market-based {f['market']} tCO2e" if f["market"] else ""
        life = f"; embodied {f['embodied']}; total {f['total']} tCO2e" if f["embodied"] else ""
        return (
            f"{f['hours']} GPU-h x {f['power']} W x PUE {self.pue:g} = {f['dynamic']} MWh{idle}; "
            f"location-based {f['location']} tCO2e{split}{market}{life} "
            f"({self.accounting}: {ACCOUNTING[self.accounting]})"
        )

    def short_rows(self) -> list[tuple[str, str]]:
        """The short answer's ``(label, text)`` rows: the energy, the carbon by basis, the
        convention (the numbers of :meth:`text`)."""
        f = self._figures()
        rows = [
            ("dynamic energy" if f["idle"] else "energy",
             f"{f['dynamic']} MWh = {f['hours']} GPU-h x {f['power']} W x PUE {self.pue:g}"),
        ]  # fmt: skip
        if f["idle"]:
            rows.append(("idle energy", f"{f['idle']} MWh"))
        split = f" ({f['split']})" if f["split"] else ""
        rows.append(("location-based", f"{f['location']} tCO2e{split}"))
        if f["market"]:
            rows.append(("market-based", f"{f['market']} tCO2e"))
        if f["embodied"]:
            rows.append(("embodied", f["embodied"]))
        rows.append(("accounting", f"{self.accounting}: {ACCOUNTING[self.accounting]}"))
        return rows


def report_energy(
    gpu_hours: Any,
    power_per_gpu: Any,
    *,
    pue: float = 1.0,
    intensity: Any,
    market_intensity: Any = None,
    accounting: str = "gpu-tdp",
    idle_power_per_gpu: Any = None,
    idle_energy: Any = None,
    gpus_per_server: int | None = None,
    embodied_per_gpu: Any = None,
    embodied_per_server: Any = None,
    assumptions: Assumptions | None = None,
) -> EnergyReport:
    """Report mode: energy and CO2e of published GPU-hours under a report's convention.

    ``E_dynamic = GPU-hours x P x PUE`` (``power_per_gpu`` is what the convention counts: the TDP
    for ``gpu-tdp``, the measured system power per accelerator for ``system-per-accelerator``,
    ...); ``E_idle = GPU-hours x P_idle x PUE`` (``idle_power_per_gpu``) or a published idle
    energy (``idle_energy``, taken as is); ``CO2e = (E_dynamic + E_idle) x I`` (location-based;
    market-based with ``market_intensity``). With ``gpus_per_server`` the life-cycle view adds
    embodied carbon, ``(per GPU + per server / GPUs per server) x GPU-hours / (lifetime x use
    rate)`` (Luccioni et al. 2022, section 4.1; per-device figures and lifetime from
    :class:`mlcost.assumptions.Assumptions` unless given).
    """
    check_accounting(accounting)
    hours = positive_magnitude(gpu_hours, "hour", "gpu_hours", bare=True)
    watts = positive_magnitude(power_per_gpu, "W", "power_per_gpu")
    check_pue(pue)
    grid = _intensity(intensity, "intensity")
    dynamic = energy(Q_(watts, "W"), Q_(hours, "hour"), pue=float(pue))
    if idle_power_per_gpu is not None and idle_energy is not None:
        raise MlcostError(
            "idle_energy: got both idle_power_per_gpu and idle_energy; give one (a power per GPU "
            "for the idle infrastructure, or the report's idle energy)"
        )
    if idle_power_per_gpu is not None:
        idle_w = positive_magnitude(idle_power_per_gpu, "W", "idle_power_per_gpu", allow_zero=True)
        idle = energy(Q_(idle_w, "W"), Q_(hours, "hour"), pue=float(pue))
    elif idle_energy is not None:
        idle = Q_(positive_magnitude(idle_energy, "kWh", "idle_energy", allow_zero=True), "kWh")
    else:
        idle = Q_(0.0, "kWh")
    used = (dynamic + idle).to("kWh")
    market = None
    if market_intensity is not None:
        market = operational_carbon(used, _intensity(market_intensity, "market_intensity"))
    embodied_gpu = embodied_server = None
    if gpus_per_server is not None:
        if isinstance(gpus_per_server, bool) or not (
            isinstance(gpus_per_server, int) and gpus_per_server > 0
        ):
            raise MlcostError(
                f"gpus_per_server: got {gpus_per_server!r}, expected a whole number > 0 (8 for "
                "a DGX/HGX node)"
            )
        a = assumptions or DEFAULT_ASSUMPTIONS

        def kilograms(value: Any, field: str, default: pint.Quantity) -> pint.Quantity:
            if value is None:
                return default
            return Q_(positive_magnitude(value, "kgCO2e", field, allow_zero=True), "kgCO2e")

        per_gpu = kilograms(embodied_per_gpu, "embodied_per_gpu", a.embodied_carbon_per_gpu)
        per_server = kilograms(
            embodied_per_server, "embodied_per_server", a.embodied_carbon_per_server
        )
        busy_life = a.gpu_lifetime * a.gpu_use_rate
        embodied_gpu = embodied_carbon(Q_(hours, "hour"), per_gpu, busy_life)
        embodied_server = embodied_carbon(
            Q_(hours, "hour"), per_server / gpus_per_server, busy_life
        )
    return EnergyReport(
        gpu_hours=Q_(hours, "hour"),
        power_per_gpu=Q_(watts, "W"),
        pue=float(pue),
        dynamic_energy=dynamic,
        idle_energy=idle,
        energy=used,
        location_carbon=operational_carbon(used, grid),
        market_carbon=market,
        accounting=accounting,
        embodied_gpu_carbon=embodied_gpu,
        embodied_server_carbon=embodied_server,
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
