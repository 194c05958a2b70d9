"""Where a run happens and what it costs there: the system, the grid region, the GPU's price per
hour and purchase price, the electricity price, the PUE and the energy accounting convention.

Each resolver takes the few inputs it needs (keyword arguments, as a training
:class:`mlcost.plan.Plan` or a :class:`mlcost.serving.ServePlan` holds them) and returns plain
numbers in the units noted, each with where it came from: ``given``, a catalog spec's cited
source, or a documented default of :class:`mlcost.assumptions.Assumptions`.
"""

from __future__ import annotations

import datetime
import math
from pathlib import Path
from typing import Any

import pint

from mlcost.assumptions import ASSUMPTION_SOURCES, Assumptions
from mlcost.energy import check_accounting, check_pue
from mlcost.errors import MlcostError, UnknownNameError
from mlcost.specs import Accelerator, Catalog, Cluster, Grid, Node, Price
from mlcost.systems import System
from mlcost.systems import system as system_of
from mlcost.units import in_unit, magnitude_in, positive_magnitude


def resolve_system(
    *,
    system: str | Path | Node | Cluster | System | None,
    gpu: str | Path | Accelerator | None,
    catalog: Catalog,
    assumptions: Assumptions,
) -> System:
    """The system a run uses (:func:`mlcost.systems.system`): ``system`` (a node or cluster)
    with ``gpu`` as its accelerator where both are given, else the standard node of ``gpu``."""
    target = system if system is not None else gpu
    if target is None:
        raise MlcostError("Plan: give gpu= (e.g. 'h100-sxm5-80gb') or system= (e.g. 'dgx-h100')")
    accelerator = gpu if system is not None else None
    return system_of(target, accelerator=accelerator, catalog=catalog, assumptions=assumptions)


def resolve_grid(region: str | Grid, catalog: Catalog) -> Grid:
    """The grid region a run draws its power from: a :class:`Grid` as given, else the catalog's
    grid of that name."""
    return region if isinstance(region, Grid) else catalog.grid(region)


def resolve_price(
    price: str | pint.Quantity | None, *, catalog: Catalog, gpu_names: tuple[str, ...]
) -> tuple[float, str]:
    """USD per GPU-hour and where it comes from (NaN when none is known). ``price`` is a catalog
    price name, a quantity (or its text), or None for the default offer (:func:`_default_price`).
    ``gpu_names``: the run's GPU and, for a calibrated profile, the catalog GPU it was measured
    as; a catalog price for another GPU is refused."""
    if isinstance(price, str) and not price.strip()[:1].isdigit():
        offer = catalog.price(price)
        if offer.accelerator not in gpu_names:
            others = (
                [o.name for o in catalog.prices_for(gpu_names[0])]
                if gpu_names[0] in catalog
                else []
            )
            hint = (
                f"; prices for it: {', '.join(others)}" if others else "; give a number in USD/hour"
            )
            raise MlcostError(
                f"price: {offer.name!r} prices {offer.accelerator}, but the plan runs on "
                f"{gpu_names[0]}{hint}"
            )
        return float(in_unit(offer.price_per_gpu_hour, "USD/hour")), _offer_source(offer)
    if price is not None:
        value = float(magnitude_in(price, "USD/hour", "price"))
        if not value >= 0 or not math.isfinite(value):
            raise MlcostError(f"price: got {price!r}, expected a finite price >= 0 USD/hour")
        return value, "given"
    gpu_name = next((name for name in gpu_names if name in catalog), gpu_names[0])
    return _default_price(catalog, gpu_name)


def _default_price(catalog: Catalog, gpu_name: str) -> tuple[float, str]:
    """The default price of ``gpu_name``: the newest on-demand offer in the catalog, else its
    newest offer, else NaN with how to give one."""
    offers = catalog.prices_for(gpu_name) if gpu_name in catalog else []
    if not offers:
        return math.nan, (
            f"no catalog price for {gpu_name}; give one with --price (USD per GPU-hour) or "
            "Plan(price=...), or a catalog price name (mlcost specs list prices)"
        )
    on_demand = [o for o in offers if o.offer_type == "on-demand"]
    chosen = (on_demand or offers)[0]  # prices_for: newest first
    rule = (
        "default: the newest on-demand offer for this GPU"
        if on_demand
        else "default: the newest offer for this GPU (no on-demand price; this one is "
        f"{chosen.offer_type})"
    )
    return float(in_unit(chosen.price_per_gpu_hour, "USD/hour")), (
        f"{_offer_source(chosen)}; {rule}; other offers: "
        + (", ".join(o.name for o in offers if o is not chosen) or "none")
    )


def _offer_source(offer: Price) -> str:
    """Who, what, where and when: ``aws-p5-h100-on-demand: AWS p5.48xlarge ..., on-demand,
    us-west-1, dated 2025-11-06 (382 days old) (source)``. The age is counted in days of UTC."""
    where = offer.source_of("price_per_gpu_hour") or "catalog"
    age = (datetime.datetime.now(datetime.UTC).date() - offer.date).days
    region = f", {offer.region}" if offer.region else ""
    return (
        f"{offer.name}: {offer.provider} {offer.offering}, {offer.offer_type}{region}, dated "
        f"{offer.date} ({age} days old) ({where})"
    )


def resolve_purchase(
    purchase_price: pint.Quantity | None, *, accelerator: Accelerator
) -> dict[str, Any]:
    """USD per GPU bought (``purchase``, NaN when unknown) and its source (``purchase_source``):
    given, else the accelerator's list price."""
    if purchase_price is not None:
        value = float(magnitude_in(purchase_price, "USD", "purchase_price"))
        if not value >= 0:
            raise MlcostError(f"purchase_price: got {purchase_price!r}, expected >= 0 USD")
        return {"purchase": value, "purchase_source": "given"}
    if accelerator.list_price is None:
        return {"purchase": math.nan, "purchase_source": "no list price; pass purchase_price="}
    return {
        "purchase": float(in_unit(accelerator.list_price, "USD")),
        "purchase_source": accelerator.source_of("list_price") or "spec",
    }


def region_electricity(
    electricity_price: pint.Quantity | None, *, grid: Grid, assumptions: Assumptions
) -> dict[str, Any]:
    """Electricity price in USD/kWh (``electricity_price``) and its source
    (``electricity_source``): given, else the grid's, else the sourced fallback."""
    if electricity_price is not None:
        value = float(magnitude_in(electricity_price, "USD/kWh", "electricity_price"))
        if not value >= 0:
            raise MlcostError(
                f"electricity_price: got {electricity_price!r}, expected >= 0 USD/kWh"
            )
        return {"electricity_price": value, "electricity_source": "given"}
    if grid.electricity_price is not None:
        return {
            "electricity_price": float(in_unit(grid.electricity_price, "USD/kWh")),
            "electricity_source": grid.source_of("electricity_price") or grid.name,
        }
    return {
        "electricity_price": float(in_unit(assumptions.fallback_electricity_price, "USD/kWh")),
        "electricity_source": f"the {grid.name} grid spec gives no electricity price, so the "
        f"fallback: {ASSUMPTION_SOURCES['fallback_electricity_price']} (give "
        "electricity_price= for this region's)",
    }


def region_pue(
    pue: float | None, facility: str | None, *, grid: Grid, assumptions: Assumptions
) -> dict[str, Any]:
    """PUE (``pue``) and its source (``pue_source``): given; else the facility class given
    (``hyperscale`` 1.10 or ``industry-average`` 1.58, each sourced); else the grid region's;
    else the industry average, said so."""
    if pue is not None:
        return {"pue": check_pue(pue), "pue_source": "given"}
    classes = {
        "hyperscale": (assumptions.hyperscale_pue, ASSUMPTION_SOURCES["hyperscale_pue"]),
        "industry-average": (assumptions.fallback_pue, ASSUMPTION_SOURCES["fallback_pue"]),
    }
    if facility is not None:
        if facility not in classes:
            raise UnknownNameError("facility", facility, classes)
        value, source = classes[facility]
        return {"pue": value, "pue_source": f"facility class {facility}: {source}"}
    if grid.pue is not None:
        return {"pue": float(grid.pue), "pue_source": grid.source_of("pue") or grid.name}
    value, source = classes["industry-average"]
    return {
        "pue": value,
        "pue_source": "facility class industry-average (the default when neither pue= nor the "
        f"region gives one; facility='hyperscale' for a hyperscaler): {source}",
    }


def report_mode(
    *, idle_power: pint.Quantity | None, gpu_hours: float | pint.Quantity | None
) -> dict[str, Any]:
    """The idle infrastructure power per GPU in W (``idle_power_per_gpu``, ``idle_source``: the
    life-cycle split of Luccioni et al. 2022, section 4.2; none counted unless given) and, in
    report mode, the published GPU-hours (``gpu_hours``; None otherwise)."""
    idle, idle_source = (
        0.0,
        (
            "not counted (give idle_power=, e.g. BLOOM's 256,646 kWh of idle infrastructure over "
            "1,082,990 GPU-hours, about 237 W per GPU: Luccioni et al. 2022, section 4.2)"
        ),
    )
    if idle_power is not None:
        idle = positive_magnitude(idle_power, "W", "idle_power", allow_zero=True)
        idle_source = "given"
    hours = None
    if gpu_hours is not None:
        hours = positive_magnitude(gpu_hours, "hour", "gpu_hours", bare=True)
    return {"idle_power_per_gpu": idle, "idle_source": idle_source, "gpu_hours": hours}


def resolve_power(
    *, accounting: str, power_per_gpu: pint.Quantity | None, resolved: System
) -> dict[str, Any]:
    """The energy accounting convention (``accounting``, :data:`mlcost.energy.ACCOUNTING`) and
    the IT power per GPU in W it counts (``power_per_gpu``, ``power_source``): a measured node
    under training load, a measured system power per accelerator (``power_per_gpu``), the GPU's
    TDP, or ``None`` for the utilization model. ``measured-node`` on a node without a
    measurement falls back to the utilization model, and says so."""
    accounting = check_accounting(accounting)
    gpu = resolved.accelerator
    if power_per_gpu is not None:
        watts = float(magnitude_in(power_per_gpu, "W", "power_per_gpu"))
        if not (watts > 0 and math.isfinite(watts)):
            raise MlcostError(f"power_per_gpu: got {power_per_gpu!r}, expected a power > 0 W")
        return {"accounting": accounting, "power_per_gpu": watts, "power_source": "given"}
    if accounting == "system-per-accelerator":
        raise MlcostError(
            "power_per_gpu: the system-per-accelerator convention needs the measured average "
            "system power per accelerator (e.g. Patterson et al. 2021: 330 W per V100); pass "
            "power_per_gpu= (--power-per-gpu)"
        )
    if accounting == "gpu-tdp":
        if gpu.tdp is None:
            raise MlcostError(f"accounting: {gpu.name} has no tdp in its spec; gpu-tdp needs one")
        return {
            "accounting": accounting,
            "power_per_gpu": float(in_unit(gpu.tdp, "W")),
            "power_source": f"{gpu.name} TDP ({gpu.source_of('tdp') or 'datasheet'})",
        }
    if accounting == "measured-node" and resolved.training_power_per_gpu is not None:
        return {
            "accounting": accounting,
            "power_per_gpu": float(in_unit(resolved.training_power_per_gpu, "W")),
            "power_source": resolved.training_power_source,
        }
    fallback = (
        f"{resolved.name} has no measured training power, so the utilization model stands in "
        "(an upper bound: nameplate host share); "
        if accounting == "measured-node"
        else ""
    )
    return {
        "accounting": "utilization",
        "power_per_gpu": None,
        "power_source": fallback + resolved.host_power_source,
    }


__all__ = [
    "region_electricity",
    "region_pue",
    "report_mode",
    "resolve_grid",
    "resolve_power",
    "resolve_price",
    "resolve_purchase",
    "resolve_system",
]
