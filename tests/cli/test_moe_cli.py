"""The CLI on mixture-of-experts models: a plan of Mixtral-8x7B on 64 GPUs, a given expert-parallel
layout, a bad expert-parallel degree, and the offline import of a Mixtral config.json."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Cli
from tests.oracles import MOE_HF_CONFIGS


def test_plan_mixtral_on_64_gpus(cli: Cli) -> None:
    result = cli("plan", "mixtral-8x7b", "--gpus", "64", "--json")
    assert result.exit_code == 0, result.stderr
    figures = {f["name"]: f for f in json.loads(result.stdout)["figures"]}
    assert figures["fits"]["value"].startswith("fits")
    mfu = figures["MFU"]["value"]
    step = figures["step time"]["value"]
    assert (mfu["unit"], step["unit"]) == ("%", "ms")
    assert 20 < mfu["value"] < 90
    # The default batch is 4M tokens of 2048 (Llama 2): 6 x 12,879,925,248 x 2048 x 2048 FLOPs
    # over 64 H100s at their dense BF16 peak of 989 TFLOP/s take 5.12 s: no step is faster.
    assert step["value"] > 6 * 12_879_925_248 * 2048 * 2048 / (64 * 989e12) * 1e3


def test_plan_with_expert_parallel_layout(cli: Cli) -> None:
    result = cli(
        "plan", "mixtral-8x7b", "--gpus", "64", "--dp", "16", "--tp", "4", "--ep", "2",
        "--zero", "1", "--batch", "1", "--global-batch", "512", "--seq", "4096", "--sp",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "ep=2" in result.stdout


def test_bad_expert_parallel_degree_exits_2_with_one_line(cli: Cli) -> None:
    result = cli(
        "plan", "mixtral-8x7b", "--gpus", "48", "--dp", "6", "--tp", "8", "--ep", "6",
        "--batch", "1", "--global-batch", "48",
    )  # fmt: skip
    assert result.exit_code == 2
    assert "ep" in result.stderr and "Traceback" not in result.stderr


def test_import_mixtral_config_json(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(MOE_HF_CONFIGS["mixtral-8x7b"]))
    result = cli("specs", "import-hf", str(path), "--output", str(tmp_path / "m.yaml"))
    assert result.exit_code == 0, result.stderr
    assert "46,702,792,704" in result.stdout
