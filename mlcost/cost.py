"""Dollars: renting, owning, and when buying pays off.

* Rental ``GPU-hours × price per GPU-hour``.
* Electricity ``E · PUE · price per kWh``.
* Ownership for a period: purchase price amortized over the lifetime, plus electricity
  ``E · PUE · price per kWh``.
* Break-even: purchase price over the rental cost of one run (runs), and over the monthly
  rental cost of steady use (months).
"""

from __future__ import annotations

import pint

from mlcost.arrays import Real
from mlcost.units import Q_, in_unit

#: Hours in pint's ``month`` (a twelfth of a Julian year: 730.5 h), the month of
#: :func:`break_even_months`.
HOURS_PER_MONTH = float(Q_(1, "month").to("hour").magnitude)


def rental_usd(gpu_hours: Real, usd_per_gpu_hour: Real) -> Real:
    """``GPU-hours × USD per GPU-hour`` in USD (plain numbers or arrays)."""
    return gpu_hours * usd_per_gpu_hour


def ownership_usd(
    gpus: Real,
    purchase_usd: Real,
    used_hours: Real,
    lifetime_hours: Real,
    energy_kwh: Real = 0.0,
    usd_per_kwh: Real = 0.0,
) -> Real:
    """Purchase amortized over the lifetime for the hours used, plus electricity, in USD."""
    amortized = gpus * purchase_usd * (used_hours / lifetime_hours)
    return amortized + electricity_usd(energy_kwh, usd_per_kwh)


def electricity_usd(energy_kwh: Real, usd_per_kwh: Real, pue: float = 1.0) -> Real:
    """``E · PUE · price per kWh`` in USD (:func:`electricity_cost`)."""
    return energy_kwh * pue * usd_per_kwh


def break_even_run_count(purchase_usd: Real, rental_usd_per_run: Real) -> Real:
    """How many runs' rental equal the purchase price (:func:`break_even_runs`)."""
    return purchase_usd / rental_usd_per_run


def break_even_month_count(
    purchase_usd: Real, gpus: Real, usd_per_gpu_hour: Real, utilization: float = 1.0
) -> Real:
    """Months of steady use whose rental equals the purchase price (:func:`break_even_months`)."""
    return purchase_usd / (gpus * usd_per_gpu_hour * HOURS_PER_MONTH * utilization)


def rental_cost(gpu_hours: pint.Quantity, price_per_gpu_hour: pint.Quantity) -> pint.Quantity:
    """``GPU-hours × USD per GPU-hour``."""
    return Q_(rental_usd(in_unit(gpu_hours, "hour"), in_unit(price_per_gpu_hour, "USD/hour")),
              "USD")  # fmt: skip


def ownership_cost(
    gpus: Real,
    purchase_price: pint.Quantity,
    *,
    used_for: pint.Quantity,
    lifetime: pint.Quantity,
    energy_used: pint.Quantity | None = None,
    electricity_price: pint.Quantity | None = None,
) -> pint.Quantity:
    """Purchase amortized over ``lifetime`` for ``used_for``, plus electricity if given."""
    kwh: Real = 0.0
    usd_per_kwh: Real = 0.0
    if energy_used is not None and electricity_price is not None:
        kwh, usd_per_kwh = in_unit(energy_used, "kWh"), in_unit(electricity_price, "USD/kWh")
    hours = in_unit(used_for, "hour"), in_unit(lifetime, "hour")
    return Q_(ownership_usd(gpus, in_unit(purchase_price, "USD"), *hours, kwh, usd_per_kwh), "USD")


def electricity_cost(
    energy_used: pint.Quantity, price: pint.Quantity, *, pue: float = 1.0
) -> pint.Quantity:
    """``E · PUE · price per kWh`` (the textbook chapter's F-64 uses USD 0.10/kWh; pass ``pue``
    only when ``energy_used`` is IT energy, not facility energy)."""
    return Q_(electricity_usd(in_unit(energy_used, "kWh"), in_unit(price, "USD/kWh"), pue), "USD")


def break_even_runs(purchase: pint.Quantity, rental_per_run: pint.Quantity) -> pint.Quantity:
    """How many runs' rental equal the purchase price."""
    runs = break_even_run_count(in_unit(purchase, "USD"), in_unit(rental_per_run, "USD"))
    return Q_(runs, "dimensionless")


def break_even_months(
    purchase: pint.Quantity,
    gpus: Real,
    price_per_gpu_hour: pint.Quantity,
    utilization: float = 1.0,
) -> pint.Quantity:
    """Months of steady use (at ``utilization``) whose rental equals the purchase price (a month
    is pint's ``month``, a twelfth of a Julian year: 730.5 h)."""
    months = break_even_month_count(
        in_unit(purchase, "USD"), gpus, in_unit(price_per_gpu_hour, "USD/hour"), utilization
    )
    return Q_(months, "dimensionless")
