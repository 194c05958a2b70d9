"""Dollars: renting, owning, and when buying pays off.

* Rental ``GPU-hours × price per GPU-hour``.
* Electricity ``E · PUE · price per kWh``.
* Ownership for a period: purchase price amortized over the lifetime, plus electricity
  ``E · PUE · price per kWh``.
* Break-even: purchase price over the rental cost of one run (runs), and over the monthly
  rental cost of steady use (months).
"""

from __future__ import annotations

from typing import Any

import pint

from mlcost.units import Q_

Number = Any  # a count, or a numpy array of counts


def rental_cost(gpu_hours: pint.Quantity, price_per_gpu_hour: pint.Quantity) -> pint.Quantity:
    """``GPU-hours × USD per GPU-hour``."""
    return (gpu_hours * price_per_gpu_hour).to("USD")


def ownership_cost(
    gpus: Number,
    purchase_price: pint.Quantity,
    *,
    used_for: pint.Quantity,
    lifetime: pint.Quantity,
    energy_used: pint.Quantity | None = None,
    electricity_price: pint.Quantity | None = None,
) -> pint.Quantity:
    """Purchase amortized over ``lifetime`` for ``used_for``, plus electricity if given."""
    amortized = gpus * purchase_price * (used_for / lifetime).to("dimensionless")
    if energy_used is not None and electricity_price is not None:
        amortized = amortized + energy_used * electricity_price
    return amortized.to("USD")


def electricity_cost(
    energy_used: pint.Quantity, price: pint.Quantity, *, pue: float = 1.0
) -> pint.Quantity:
    """``E · PUE · price per kWh`` (the textbook chapter's F-64 uses USD 0.10/kWh; pass ``pue``
    only when ``energy_used`` is IT energy, not facility energy)."""
    return (energy_used * pue * price).to("USD")


def break_even_runs(purchase: pint.Quantity, rental_per_run: pint.Quantity) -> pint.Quantity:
    """How many runs' rental equal the purchase price."""
    return (purchase / rental_per_run).to("dimensionless")


def break_even_months(
    purchase: pint.Quantity,
    gpus: Number,
    price_per_gpu_hour: pint.Quantity,
    utilization: float = 1.0,
) -> pint.Quantity:
    """Months of steady use (at ``utilization``) whose rental equals the purchase price (a month
    is pint's ``month``, a twelfth of a Julian year: 730.5 h)."""
    monthly = gpus * price_per_gpu_hour * Q_(1, "month") * utilization
    return (purchase / monthly).to("dimensionless")
