"""Grid regions (carbon intensity, electricity price, PUE) and cloud prices, each dated."""

import datetime
from typing import ClassVar, Literal

from pydantic import Field

from mlcost.specs.base import CarbonIntensity, EnergyPrice, MoneyRate, PositiveInt, Spec


class Grid(Spec):
    """An electricity grid region: carbon intensity of generation for a year, and context."""

    KIND: ClassVar[str] = "grid"
    kind: Literal["grid"] = "grid"
    region: str
    carbon_intensity: CarbonIntensity
    year: int = Field(ge=1990, le=2100)
    electricity_price: EnergyPrice | None = None
    pue: float | None = Field(default=None, ge=1.0, le=5.0)


class Price(Spec):
    """A cloud offering's price per GPU-hour, on a date."""

    KIND: ClassVar[str] = "price"
    kind: Literal["price"] = "price"
    provider: str
    offering: str
    accelerator: str
    gpus: PositiveInt = 1
    price_per_gpu_hour: MoneyRate
    #: How the capacity is bought: on-demand list price, spot/preemptible, a committed-use or
    #: reserved rate, a capacity block, or a marketplace host's own price.
    offer_type: Literal["on-demand", "spot", "committed", "capacity-block", "marketplace"] = (
        "on-demand"
    )
    #: The cloud region the price is for (None: one price for every region, or not stated).
    region: str | None = None
    date: datetime.date

    def references_to(self) -> list[tuple[str, str]]:
        return [("accelerator", self.accelerator)]
