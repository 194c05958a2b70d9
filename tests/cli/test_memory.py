"""``mlcost memory`` and ``mlcost fit``."""

from __future__ import annotations

import json

import pytest

import mlcost
from mlcost.layout import Layout
from mlcost.memory import memory_breakdown
from mlcost.workload import TrainingConfig
from tests.cli.conftest import Cli


def test_memory_json(cli: Cli) -> None:
    result = cli(
        "memory", "gpt2", "--gpu", "a100-sxm4-80gb", "--batch", "4", "--seq", "1024",
        "--precision", "fp32", "--optimizer", "adam", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    terms = {t["name"]: t["bytes"] for t in data["terms"]}
    # fp32 Adam: weights 4 B/param x 124,439,808 = 497,759,232 B = 0.46357 GiB (hand arithmetic).
    assert terms["weights"]["unit"] == "GiB"
    assert terms["weights"]["value"] == pytest.approx(497_759_232 / 2**30, rel=1e-12)
    assert terms["optimizer states"]["value"] == pytest.approx(2 * 497_759_232 / 2**30, rel=1e-12)
    assert data["fits"] is True
    assert data["capacity"] == {"value": 80, "unit": "GiB"}  # the A100 80GB datasheet capacity


def test_memory_takes_a_parallel_layout(cli: Cli) -> None:
    # ZeRO-3 over 8 ranks with tensor parallelism 2: weights 2 B/param x P / (2 x 8).
    result = cli("memory", "llama-2-7b", "--dp", "8", "--tp", "2", "--zero", "3", "--sp", "--json")
    assert result.exit_code == 0, result.stderr
    terms = {t["name"]: t["bytes"]["value"] for t in json.loads(result.stdout)["terms"]}
    p = mlcost.model("llama-2-7b").parameter_count
    assert terms["weights"] == pytest.approx(2 * p / 16 / 2**30, rel=1e-12)


def test_fit_answers(cli: Cli) -> None:
    result = cli(
        "fit", "llama-3-8b", "--gpu", "h100-sxm5-80gb", "--seq", "4096", "--recompute", "full",
        "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["fits"] is False and "does not fit" in data["verdict"]
    assert data["max_micro_batch_size"] == 0  # 128 GB of model states on an 80 GB card
    assert data["min_gpus_zero3"] >= 2
    # The smallest catalog GPU that fits: it fits, and no catalog GPU with less memory does
    # (checked here one GPU at a time, outside the solver).
    config = TrainingConfig(sequence_length=4096)
    layout = Layout(recompute="full")
    smallest = mlcost.accelerator(data["smallest_catalog_gpu"])
    assert memory_breakdown("llama-3-8b", config, smallest, layout).fits()
    for gpu in mlcost.catalog().items("accelerators"):
        if gpu.memory_available < smallest.memory_available:
            assert not memory_breakdown("llama-3-8b", config, gpu, layout).fits(), gpu.name
