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
    # ... and that the memory model (PyTorch on CUDA) describes: NVIDIA's (a TPU v5e's 16 GB
    # would otherwise be the answer for bf16, with XLA's memory planning answered as CUDA's).
    able = [
        g for g in mlcost.catalog().items("accelerators")
        if ("bf16" if precision == "bf16-mixed" else "fp16") in g.formats  # type: ignore[attr-defined]
        and g.vendor == "NVIDIA"  # type: ignore[attr-defined]
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


def test_fit_all_leaves_out_what_the_memory_model_does_not_describe(cli: Cli) -> None:
    # Google's TPUs (XLA), AMD's Instinct GPUs (ROCm) and Intel's Gaudi run other software
    # stacks than PyTorch on CUDA, whose allocator and context the memory model describes.
    result = cli("fit", "gpt2", "--gpu", "all", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    shown = {row["gpu"] for row in data["gpus"]}
    others = {g.name for g in mlcost.catalog().items("accelerators")
              if g.vendor in ("Google", "AMD", "Intel")}  # type: ignore[attr-defined]  # fmt: skip
    assert others >= {"tpu-v5e", "mi300x-192gb", "gaudi-3"}
    assert not shown & others
    assert {row["gpu"] for row in data["left_out"]} == others
    assert "note: left out 6 accelerators" in result.stderr and "XLA" in result.stderr


def test_a_named_tpu_is_answered_and_said_to_be_outside_the_model(cli: Cli) -> None:
    result = cli("fit", "gpt2", "--gpu", "tpu-v5e")
    assert result.exit_code == 0, result.stderr
    assert "note: tpu-v5e runs XLA" in " ".join(result.stderr.split())


def test_fit_inference_names_the_runs_16_bit_format(cli: Cli) -> None:
    # An fp16-mixed run on a V100 (Volta whitepaper: FP16 tensor cores, no BF16) serves in
    # FP16; a bf16-mixed run on an H100 in BF16. Both keep 2 bytes per weight.
    v100 = cli("fit", "gpt2", "--gpu", "v100-sxm2-32gb", "--precision", "fp16-mixed")
    assert "fp16 weights" in v100.stdout and "bf16" not in v100.stdout.replace("\n", " ")
    h100 = cli("fit", "gpt2", "--gpu", "h100-sxm5-80gb", "--json")
    inference = json.loads(h100.stdout)["inference"]
    assert inference["format"] == "bf16"
    # GPT-2's 124,439,808 parameters x 2 bytes (tied head counted once) = 0.2318 GiB.
    assert inference["weights_gib"] == pytest.approx(124_439_808 * 2 / 2**30, rel=1e-9)


def test_fit_says_why_serving_is_not_answered(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    # Where ServePlan refuses the model, the inference row gives ServePlan's reason instead of
    # disappearing.
    from mlcost.errors import MlcostError
    from mlcost.serving import ServePlan

    def refuse(self: ServePlan) -> dict[str, float]:
        raise MlcostError("engine: a refusal for the test")

    monkeypatch.setattr(ServePlan, "memory", property(refuse))
    result = cli("fit", "gpt2", "--gpu", "h100-sxm5-80gb")
    assert "inference" in result.stdout
    assert "not answered: engine: a refusal for the test" in " ".join(result.stdout.split())
    side = cli("fit", "gpt2", "--gpu", "h100-sxm5-80gb,a100-sxm4-80gb")
    assert "refused*" in side.stdout and "serving not answered: engine: a refusal" in side.stdout
