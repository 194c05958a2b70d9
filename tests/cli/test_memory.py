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
    assert result.exit_code == 1, result.stderr  # the answer "does not fit"
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
        if gpu.memory_available < smallest.memory_available and "bf16" in gpu.formats:
            assert not memory_breakdown("llama-3-8b", config, gpu, layout).fits(), gpu.name


# Volta (V100 whitepaper: tensor cores take FP16 inputs only) and Turing (T4 datasheet: FP16,
# INT8, INT4 tensor cores) have no BF16: a bf16 run is never suggested on them.
NO_BF16 = ("Volta", "Turing")


@pytest.mark.parametrize("precision", ["bf16-mixed", "fp16-mixed"])
def test_fit_suggests_only_gpus_of_the_precision(cli: Cli, precision: str) -> None:
    # GPT-2 at s=1024 fits on every catalog GPU (3.65 GiB in bf16-mixed): the smallest catalog
    # GPU is the one with the least memory among those that compute in the run's precision.
    result = cli("fit", "gpt2", "--precision", precision, "--json")
    assert result.exit_code == 0, result.stderr
    chosen = mlcost.accelerator(json.loads(result.stdout)["smallest_catalog_gpu"])
    able = [
        g for g in mlcost.catalog().items("accelerators")
        if ("bf16" if precision == "bf16-mixed" else "fp16") in g.formats  # type: ignore[attr-defined]
    ]  # fmt: skip
    assert chosen.memory_available == min(g.memory_available for g in able)  # type: ignore[attr-defined]
    if precision == "bf16-mixed":
        assert chosen.architecture not in NO_BF16
    else:  # FP16 runs on the 16 GB Volta and Turing cards
        assert chosen.architecture in NO_BF16


@pytest.mark.parametrize("times", [1, 2])  # in one process: each command says it again
def test_a_short_name_takes_its_default_and_says_so(cli: Cli, times: int) -> None:
    result = cli("fit", "gpt2", "--gpu", "h100", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["gpu"] == "h100-sxm5-80gb"  # the SXM module
    assert " ".join(result.stderr.split()) == (
        "note: h100 → h100-sxm5-80gb (NVIDIA H100 SXM5 80GB); say h100-pcie-80gb for the other"
    )  # one note, wrapped at 80 columns


def test_a_name_of_one_card_says_nothing_more(cli: Cli) -> None:
    result = cli("fit", "gpt2", "--gpu", "4090", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["gpu"] == "rtx-4090" and result.stderr == ""
