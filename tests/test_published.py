"""The published validation set: every row predicted (or said why not), the families' models as
their sources define them, and the shipped uncertainty band equal to what the validation gives.
"""

from __future__ import annotations

import json

import matplotlib
import pytest

import mlcost
from mlcost.published import (
    megatron_flops,
    mpt,
    published_cases,
    training_band,
    validate_published,
)
from mlcost.uncertainty import step_time_band
from tests.cli.conftest import invoke

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def result():  # type: ignore[no-untyped-def]
    return validate_published()


def test_every_row_is_predicted_or_says_why_not(result) -> None:  # type: ignore[no-untyped-def]
    ids = {case["id"] for case in published_cases()}
    covered = {row.id.split(".")[0] + "." + ".".join(row.id.split(".")[1:3]) for row in result.rows}
    assert {".".join(i.split(".")[:3]) for i in ids} <= covered
    for row in result.rows:
        assert row.predicted is not None or row.note, row.id
    families = ("megatron-core-h100", "llm-foundry", "korthikanti-a100")
    training = [r for r in result.rows if r.family in families]
    assert len(training) == 28 and all(r.predicted is not None for r in training)


def test_mpt_models_have_the_tables_parameter_counts() -> None:
    # llm-foundry benchmark README: NumParams of MPT at sequence 2048 (tied embeddings, biases,
    # learned positions: L(12d^2 + 13d) + V·d + S·d + 2d).
    for case in published_cases():
        if case["id"].startswith("run.llmfoundry."):
            size = case["id"].split(".")[-2]
            assert mpt(size, 2048).parameter_count == case["conditions"]["params"], case["id"]


def test_megatron_flops_is_narayanan_equation_3() -> None:
    # Narayanan et al. 2021 eq. 3 without recomputation: 72·B·s·L·h²(1 + s/6h + V/(12·L·h)); the
    # README's 1.7B row: 408.8 TFLOP/s per GPU on 48 GPUs is 0.452 s per step.
    b, s, layers, h, v = 192, 4096, 24, 2048, 131072
    expected = 72 * b * s * layers * h * h * (1 + s / (6 * h) + v / (12 * layers * h))
    assert megatron_flops(b, s, layers, h, v) == pytest.approx(expected, rel=1e-12)
    assert expected / (408.8e12 * 48) == pytest.approx(0.452, rel=1e-3)


def test_the_shipped_band_is_what_the_validation_gives(result) -> None:  # type: ignore[no-untyped-def]
    fresh, shipped = training_band(result), step_time_band()
    assert shipped.low == pytest.approx(fresh.low, rel=1e-5)
    assert shipped.high == pytest.approx(fresh.high, rel=1e-5)
    assert shipped.rows == fresh.rows == 28
    assert shipped.coverage == pytest.approx(fresh.coverage)
    assert shipped.coverage >= shipped.level  # leave-one-family-out coverage meets the level
    assert shipped.low < 1 < shipped.high  # the point lies inside its band


def test_a_plan_carries_the_band() -> None:
    plan = mlcost.Plan("gpt2", gpu="h100-sxm5-80gb", gpus=8, tokens=1e9, layout=mlcost.Layout(dp=8))
    band = step_time_band()
    wall = next(f for f in plan.figures() if f.name == "wall clock")
    assert wall.band is not None
    assert wall.band[0].to("s").magnitude == pytest.approx(wall.value.to("s").magnitude * band.low)
    assert wall.band[1].to("s").magnitude == pytest.approx(wall.value.to("s").magnitude * band.high)
    assert "80% band" in wall.text()
    data = next(f for f in plan.to_json()["figures"] if f["name"] == "wall clock")
    assert data["band"]["derivation"].startswith("80% band")


def test_the_cli_prints_the_published_validation(tmp_path) -> None:  # type: ignore[no-untyped-def]
    picture = tmp_path / "validation.png"
    result = invoke("validate", "--published", "--json", "--plot", str(picture))
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert {f["name"] for f in data["figures"]} >= {"median |error|, llm-foundry"}
    assert picture.read_bytes()[:4] == b"\x89PNG"
    assert invoke("validate").exit_code == 2


def test_the_figure_is_readable(result) -> None:  # type: ignore[no-untyped-def]
    axes = result.plot().axes[0]
    assert axes.get_title() and "%" in axes.get_xlabel() and axes.get_legend() is not None
