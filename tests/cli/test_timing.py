"""``mlcost step`` and ``mlcost roofline``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlcost.flops import training_flops
from mlcost.layout import Layout
from mlcost.workload import TrainingConfig
from tests.cli.conftest import Cli


def test_step_json(cli: Cli) -> None:
    result = cli(
        "step", "llama-3-8b", "--gpu", "h100-sxm5-80gb", "--batch", "2", "--seq", "2048", "--json"
    )
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["step_time"]["unit"] == "ms" and data["step_time"]["value"] > 0
    # MFU x step x peak is the step's model FLOPs, counted here by the FLOP-counter-checked table
    # (989.4 TFLOP/s: the H100 SXM5 datasheet's dense BF16 peak).
    flops = (
        training_flops(
            "llama-3-8b", TrainingConfig(sequence_length=2048), Layout(micro_batch_size=2)
        )
        .model_flops.to("flop")
        .magnitude
    )
    seconds = data["step_time"]["value"] / 1e3
    assert data["mfu"] * seconds * 989.4e12 == pytest.approx(flops, rel=1e-9)


def test_roofline_writes_png(cli: Cli, tmp_path: Path) -> None:
    target = tmp_path / "roofline.png"
    result = cli(
        "roofline", "gpt2", "--gpu", "a100-sxm4-80gb", "--gpu", "h100-sxm5-80gb", "--plot",
        str(target), "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    # 312e12 / 2.039e12 = 153 and 989.4e12 / 3.35e12 = 295 FLOP/byte (datasheets).
    ridges = {g["gpu"]: round(g["ridge_point"]["value"]) for g in data["gpus"]}
    assert ridges == {"a100-sxm4-80gb": 153, "h100-sxm5-80gb": 295}
    assert target.read_bytes()[:4] == b"\x89PNG"
