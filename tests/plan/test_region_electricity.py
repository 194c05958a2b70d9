"""Each grid region prices electricity from its own dated source (issue 64, item 5).

The expected prices are derived here from the published figures, written out below with their
table, row and period; the exchange rates are the FRED (Federal Reserve H.10) averages for the
same year. None comes from mlcost.
"""

from __future__ import annotations

from statistics import fmean

import pytest

import mlcost
from mlcost import Plan
from mlcost.units import Q_

# Eurostat nrg_pc_205, band ID (2,000-19,999 MWh a year), tax level X_VAT, EUR/kWh, 2024-S1 and
# 2024-S2; converted at 0.9242 EUR per USD (FRED AEXUSEU, 2024 annual average, inverted).
EUR_PER_USD_2024 = 0.9242
EUROSTAT_BAND_ID_2024 = {
    "eu": (0.1630, 0.1712),
    "france": (0.1409, 0.1446),
    "germany": (0.2017, 0.2076),
}
# DESNZ Quarterly Energy Prices, table 3.4.2 (including the Climate Change Levy, excluding VAT),
# 'Electricity: Medium' (2,000-19,999 MWh a year), pence per kWh, 2024 Q1-Q4.
DESNZ_MEDIUM_2024_PENCE = (30.788719, 28.845356, 28.126695, 26.768522)
# FRED EXUSUK, monthly 2024, inverted to GBP per USD (datasets/exchange-rates, data/monthly.csv).
GBP_PER_USD_2024_MONTHLY = (
    0.7873, 0.7918, 0.7866, 0.7989, 0.7914, 0.7864, 0.7770, 0.7725, 0.7565, 0.7667, 0.7851, 0.7907,
)  # fmt: skip

EXPECTED_USD_PER_KWH = {
    **{
        region: fmean(halves) / EUR_PER_USD_2024 for region, halves in EUROSTAT_BAND_ID_2024.items()
    },
    "united-kingdom": fmean(DESNZ_MEDIUM_2024_PENCE) / 100 / fmean(GBP_PER_USD_2024_MONTHLY),
    # EIA retail sales, annual, US, sector IND, 2024: 8.13 US cents per kWh.
    "us": 8.13 / 100,
    # IEA Electricity 2025: 2024 prices for energy-intensive industries, US cents per kWh.
    "india": 6.3 / 100,
    "china": 7.7 / 100,
    # GlobalPetrolPrices, Q4 2024: world average price for businesses, USD 0.147 per kWh.
    "world": 0.147,
}
# Words of each region's source that its price must cite.
CITED = {
    "eu": "nrg_pc_205",
    "france": "nrg_pc_205",
    "germany": "nrg_pc_205",
    "united-kingdom": "table 3.4.2",
    "us": "retail-sales",
    "india": "Electricity 2025",
    "china": "Electricity 2025",
    "world": "GlobalPetrolPrices",
}
# The grids store USD rounded to four significant figures.
ROUNDING = 5e-4


def test_every_grid_region_has_a_sourced_price() -> None:
    assert set(mlcost.catalog().names("grids")) == set(EXPECTED_USD_PER_KWH)


@pytest.mark.parametrize("region", sorted(EXPECTED_USD_PER_KWH))
def test_a_region_prices_the_run_s_electricity_at_its_own_source(region: str) -> None:
    expected = EXPECTED_USD_PER_KWH[region]
    grid = mlcost.catalog().grid(region)
    assert grid.electricity_price is not None
    assert grid.electricity_price.to("USD/kWh").magnitude == pytest.approx(expected, rel=ROUNDING)
    plan = Plan("gpt2-xl", gpu="h100-sxm5-80gb", gpus=8, tokens=1e10, region=region)
    free = Plan(
        "gpt2-xl", gpu="h100-sxm5-80gb", gpus=8, tokens=1e10, region=region,
        electricity_price=Q_(0, "USD/kWh"),
    )  # fmt: skip
    assert plan.run.electricity_price == pytest.approx(expected, rel=ROUNDING)
    assert CITED[region] in plan.run.electricity_source
    assert "fallback" not in plan.run.electricity_source
    # Ownership = amortized purchase + energy x price; the same run at a price of zero leaves
    # the amortized purchase, so the difference is the electricity bill.
    kwh = plan.energy()["energy"].to("kWh").magnitude
    key = "ownership cost of this run"
    bill = plan.cost()[key].to("USD").magnitude - free.cost()[key].to("USD").magnitude
    assert bill == pytest.approx(kwh * expected, rel=ROUNDING)


def test_france_gives_its_price_pue_and_carbon_intensity_together() -> None:
    plan = Plan("gpt2-xl", system="dgx-a100", tokens=1e10, region="france")
    run = plan.run
    # Ember 2024 lifecycle intensity of French generation (OWID energy-data); Uptime Institute
    # 2020 survey, Europe's average PUE; Eurostat band ID, 2024, excluding VAT.
    assert run.grid.carbon_intensity.to("gCO2e/kWh").magnitude == pytest.approx(40.48)
    assert run.pue == pytest.approx(1.46)
    assert run.electricity_price == pytest.approx(
        fmean(EUROSTAT_BAND_ID_2024["france"]) / EUR_PER_USD_2024, rel=ROUNDING
    )
    assert "Uptime" in run.pue_source and "nrg_pc_205" in run.electricity_source
    used = plan.energy()
    kwh = used["energy"].to("kWh").magnitude
    wall_h = plan.train()["wall clock"].to("hour").magnitude
    assert kwh == pytest.approx(used["IT power"].to("kW").magnitude * wall_h * 1.46, rel=1e-9)
    assert plan.carbon()["operational CO2e"].to("gCO2e").magnitude == pytest.approx(
        kwh * 40.48, rel=1e-9
    )


def test_a_given_price_still_wins_over_the_region_s() -> None:
    plan = Plan(
        "gpt2-xl", gpu="h100-sxm5-80gb", gpus=8, tokens=1e10, region="germany",
        electricity_price=Q_(0.05, "USD/kWh"),
    )  # fmt: skip
    assert plan.run.electricity_price == 0.05 and plan.run.electricity_source == "given"


def test_a_grid_without_a_price_falls_back_and_says_so() -> None:
    # A user's own grid spec with no price: the documented fallback, named as such.
    france = mlcost.catalog().grid("france")
    bare = france.model_copy(update={"name": "my-grid", "electricity_price": None})
    plan = Plan("gpt2-xl", gpu="h100-sxm5-80gb", gpus=8, tokens=1e10, region=bare)
    assert "my-grid grid spec gives no electricity price" in plan.run.electricity_source
    assert plan.run.electricity_price == pytest.approx(0.0806)  # EIA 2023, US industrial
