"""``mlcost checkpoint ...`` through typer's CliRunner on a local app that registers the sub-app
the way mlcost.cli does (``app.add_typer(checkpoint_app, name="checkpoint")``)."""

from __future__ import annotations

import json
import math

import pytest
import typer
from typer.testing import CliRunner

from mlcost.cli_checkpoint import checkpoint_app
from mlcost.errors import MlcostError

app = typer.Typer()
app.add_typer(checkpoint_app, name="checkpoint")


@app.callback()
def _root() -> None:
    """Test root (so that "checkpoint" is a sub-command, as in mlcost.cli)."""


RUNNER = CliRunner()


def test_activations_json_fits_the_budget() -> None:
    result = RUNNER.invoke(
        app,
        [
            "checkpoint", "activations", "gpt2-xl", "--gpu", "v100-sxm2-32gb", "--batch", "4",
            "--seq", "1024", "--precision", "fp16-mixed", "--attention", "eager",
            "--budget", "30GiB", "--json",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["result"]["fits"] is True
    assert data["result"]["memory"]["unit"] == "GiB"
    assert data["result"]["memory"]["value"] <= 30
    assert len(data["result"]["placement"]) == 48  # one letter per GPT-2 XL layer
    curve = data["curve"]
    assert curve[0]["recompute_flops"] == 0  # keeping everything starts the curve
    assert [p["memory_GiB"] for p in curve] == sorted(
        (p["memory_GiB"] for p in curve), reverse=True
    )


def test_activations_table_output() -> None:
    result = RUNNER.invoke(
        app, ["checkpoint", "activations", "gpt2", "--gpu", "a100-sxm4-80gb", "--curve"]
    )
    assert result.exit_code == 0, result.output
    assert "sqrt(L) uniform" in result.output
    assert "trade-off" in result.output


def test_interval_json_llama3_scale() -> None:
    result = RUNNER.invoke(
        app,
        ["checkpoint", "interval", "--params", "405B", "--gpus", "16384", "--storage", "2 TB/s",
         "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    # 405e9 x 14 B = 5.67 TB; at 2 TB/s 2.835 s; M = 54·24/419 h (Llama 3 default).
    assert data["checkpoint_bytes"]["value"] == pytest.approx(5.67)
    assert data["write_time"]["value"] == pytest.approx(2.835)
    assert data["system_mtbf"]["value"] == pytest.approx(54 * 24 / 419)
    m = 54 * 24 * 60 / 419
    assert data["young_interval"]["value"] == pytest.approx(math.sqrt(2 * 2.835 / 60 * m))
    assert 0.9 < data["goodput"] < 1


def test_interval_with_catalog_storage_and_given_mtbf() -> None:
    result = RUNNER.invoke(
        app,
        ["checkpoint", "interval", "--params", "70B", "--gpus", "1024", "--mtbf-gpu", "50000 h",
         "--storage", "nvme-pcie4-intel-p5500-3.84tb", "--storage-devices", "1024"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Daly interval" in result.output and "goodput" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["interval", "--params", "70B", "--gpus", "8", "--storage", "bogus"], "--storage"),
        (["interval", "--params", "lots", "--gpus", "8"], "--params"),
        (["interval", "--params", "7B", "--gpus", "8", "--mtbf-gpu", "5 GB"], "--mtbf-gpu"),
        (["activations", "resnet-50"], "transformer"),
        (["activations", "gpt2", "--budget", "3 s"], "--budget"),
    ],
)
def test_user_errors_are_mlcost_errors(args: list[str], message: str) -> None:
    result = RUNNER.invoke(app, ["checkpoint", *args])
    assert isinstance(result.exception, MlcostError)
    assert message in str(result.exception)
