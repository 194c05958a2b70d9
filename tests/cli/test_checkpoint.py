"""``mlcost checkpoint activations`` and ``mlcost checkpoint interval``."""

from __future__ import annotations

import json
import math

import pytest

from tests.cli.conftest import Cli


def test_activations_json_fits_the_budget(cli: Cli) -> None:
    result = cli(
        "checkpoint", "activations", "gpt2-xl", "--gpu", "v100-sxm2-32gb", "--batch", "2",
        "--seq", "1024", "--precision", "fp16-mixed", "--attention", "eager",
        "--budget", "30GiB", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["fits"] is True
    assert data["memory"]["unit"] == "GiB"
    assert data["memory"]["value"] <= 30
    assert len(data["placement"]) == 48  # one letter per GPT-2 XL layer
    assert data["curve"][0]["recompute_flops"] == 0  # keeping everything starts the curve


def test_activations_table_output(cli: Cli) -> None:
    result = cli("checkpoint", "activations", "gpt2", "--gpu", "a100-sxm4-80gb", "--curve")
    assert result.exit_code == 0, result.stderr
    assert "sqrt(L) uniform" in result.stdout
    assert "trade-off" in result.stdout


def test_interval_json_llama3_scale(cli: Cli) -> None:
    result = cli(
        "checkpoint", "interval", "--params", "405B", "--gpus", "16384", "--storage", "2 TB/s",
        "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    # 405e9 x 14 B = 5.67 TB; at 2 TB/s 2.835 s; M = 54·24/419 h (Llama 3 default).
    assert data["checkpoint_bytes"]["value"] == pytest.approx(5.67)
    assert data["write_time"]["value"] == pytest.approx(2.835)
    assert data["system_mtbf"]["value"] == pytest.approx(54 * 24 / 419)
    m = 54 * 24 * 60 / 419
    assert data["young_interval"]["value"] == pytest.approx(math.sqrt(2 * 2.835 / 60 * m))
    assert 0.9 < data["goodput"] < 1


def test_interval_with_catalog_storage_and_given_mtbf(cli: Cli) -> None:
    result = cli(
        "checkpoint", "interval", "--params", "70B", "--gpus", "1024", "--mtbf-gpu", "50000 h",
        "--storage", "nvme-pcie4-intel-p5500-3.84tb", "--storage-devices", "1024",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "Daly interval" in result.stdout and "goodput" in result.stdout


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
def test_user_errors_are_one_line(cli: Cli, args: list[str], message: str) -> None:
    result = cli("checkpoint", *args)
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
