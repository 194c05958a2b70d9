"""The region gives its PUE as well as its carbon intensity (issue 64): the European grids carry
the Uptime Institute 2020 survey's European average, 1.46 (A. Lawrence, Uptime Institute Journal,
2020-08-24: Europe 1.46, global 1.59), and a region without one keeps the industry average."""

from __future__ import annotations

import pytest

from mlcost.assumptions import Assumptions
from mlcost.site import region_pue
from mlcost.specs import default_catalog

UPTIME_2020_EUROPE = 1.46  # the survey's figure, typed from the article


@pytest.mark.parametrize("region", ["france", "germany", "eu", "united-kingdom"])
def test_a_european_region_gives_the_survey_pue(region: str) -> None:
    grid = default_catalog().grid(region)
    answer = region_pue(None, None, grid=grid, assumptions=Assumptions())
    assert answer["pue"] == pytest.approx(UPTIME_2020_EUROPE)
    assert "Uptime" in answer["pue_source"]


def test_given_pue_and_facility_class_take_precedence_over_the_region() -> None:
    grid = default_catalog().grid("france")
    assert region_pue(1.2, None, grid=grid, assumptions=Assumptions())["pue"] == 1.2
    hyperscale = region_pue(None, "hyperscale", grid=grid, assumptions=Assumptions())
    assert hyperscale["pue"] == Assumptions().hyperscale_pue
