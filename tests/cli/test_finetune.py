"""Fine-tuning options on ``mlcost memory``, ``mlcost plan`` and ``mlcost fit``."""

from __future__ import annotations

import json

import pytest

import mlcost
from mlcost.finetune import FineTuning, trainable_parameters
from tests.cli.conftest import Cli

LORA = ("--finetune", "lora", "--lora-rank", "16", "--lora-targets", "all-linear")


def test_memory_takes_lora_options(cli: Cli) -> None:
    result = cli("memory", "llama-3-8b", *LORA, "--precision", "bf16", "--json")
    assert result.exit_code == 0, result.stderr
    terms = {t["name"]: t["bytes"]["value"] for t in json.loads(result.stdout)["terms"]}
    # Hand count: 41,943,040 adapter parameters (peft), BF16 gradients 2 B each.
    assert terms["gradients"] == pytest.approx(2 * 41_943_040 / 2**30, rel=1e-12)
    # Frozen BF16 base plus BF16 adapters: 2 B per parameter of both.
    weights = 2 * (mlcost.model("llama-3-8b").parameter_count + 41_943_040)
    assert terms["weights"] == pytest.approx(weights / 2**30, rel=1e-12)


def test_memory_takes_frozen_parts(cli: Cli) -> None:
    result = cli(
        "memory", "gpt2", "--freeze", "embeddings", "--freeze-layers", "6", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    terms = {t["name"]: t["bytes"]["value"] for t in json.loads(result.stdout)["terms"]}
    tuning = FineTuning(frozen=("embeddings",), frozen_layers=6)
    trainable = trainable_parameters(mlcost.model("gpt2"), tuning)
    assert terms["optimizer states"] == pytest.approx(8 * trainable / 2**30, rel=1e-12)


def test_plan_takes_lora_options(cli: Cli) -> None:
    common = ("plan", "llama-3-8b", "--gpus", "8", "--tokens", "1e9", "--dp", "8",
              "--batch", "2", "--zero", "3", "--global-batch", "512", "--json")  # fmt: skip
    full = cli(*common)
    lora = cli(*common, *LORA)
    assert full.exit_code == 0 and lora.exit_code == 0, (full.stderr, lora.stderr)
    assert "fine-tuning: LoRA r=16 alpha=8 on all-linear" in json.loads(lora.stdout)["title"]

    def figure(stdout: str, name: str) -> float:
        figures = {f["name"]: f["value"] for f in json.loads(stdout)["figures"]}
        return float(figures[name]["value"])

    # Frozen weights: no weight gradients (4 of 6 FLOPs per weight and token), states for the
    # adapters only.
    assert figure(lora.stdout, "memory per GPU") < figure(full.stdout, "memory per GPU")


def test_fit_answers_which_method_fits(cli: Cli) -> None:
    result = cli("fit", "llama-3-8b", "--gpu", "a100-sxm4-40gb", "--seq", "1024", *LORA, "--all")
    assert result.exit_code == 0, result.stderr
    for text in ("which fine-tuning fits", "full", "LoRA r=16", "QLoRA (NF4) r=16"):
        assert text in result.stdout
    data = json.loads(
        cli("fit", "llama-3-8b", "--gpu", "a100-sxm4-40gb", "--seq", "1024", *LORA,
            "--json").stdout
    )  # fmt: skip
    fits = [row["fits"] for row in data["finetuning"]]
    assert fits == [False, True, True]
    assert data["finetuning"][1]["trainable parameters"] == 41_943_040


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (("--finetune", "dora"), "method"),
        (("--finetune", "lora", "--lora-targets", "qkv"), "target_modules"),
        (("--finetune", "lora", "--lora-rank", "0"), "rank"),
        (("--finetune", "lora", "--freeze", "embeddings"), "frozen"),
        (("--finetune", "lora", "--lora-targets", "c_attn"), "target_modules"),
        (("--freeze", "vision"), "frozen"),
        (("--freeze-layers", "99"), "frozen_layers"),
    ],
)
def test_bad_finetuning_options_are_one_line(cli: Cli, args: tuple[str, ...], field: str) -> None:
    result = cli("memory", "llama-3-8b", *args)
    assert result.exit_code == 2
    assert field in result.stderr
    assert "Traceback" not in result.stderr
