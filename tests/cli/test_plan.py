"""``mlcost plan``: the main command, its layouts, and runs that do not fit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import mlcost
from mlcost.parallel import multi_gpu_step_time
from mlcost.workload import TrainingConfig
from tests.cli.conftest import Cli

LLAMA_70B_1024 = ("plan", "llama-2-70b", "--gpu", "h100-sxm5-80gb", "--gpus", "1024")


def test_plan_defaults_print_the_table_and_write_plots(cli: Cli, tmp_path: Path) -> None:
    result = cli("plan", "--plot-dir", str(tmp_path), "--all")
    assert result.exit_code == 0, result.stderr
    for name in ("layout", "wall clock", "GPU-hours", "energy", "rental cost", "operational CO2e"):
        assert name in result.stdout
    for name in ("roofline.png", "memory.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plan_json_reproduces_the_chapter_rent_vs_buy_inputs(cli: Cli) -> None:
    # W-12 in napkin mode: 1,000 H100 at 494.5 TFLOP/s sustained, USD 3/GPU-hour, USD 30,000
    # per GPU; 6·N·D FLOPs with Llama-2-70B's exact N, 4 x 4096 x 1,000 tokens per step (the
    # chapter ignores memory and failures; this layout of the same tokens per step fits).
    result = cli(
        *LLAMA_70B_1024[:4], "--gpus", "1000", "--tokens", "2T", "--price", "3", "--purchase",
        "30000", "--sustained", "494.5", "--seq", "4096", "--tp", "8", "--dp", "125", "--batch",
        "4", "--accumulation", "8", "--zero", "1", "--recompute", "full", "--no-failures", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    figures = {f["name"]: f for f in json.loads(result.stdout)["figures"]}
    rental = figures["rental cost"]["value"]["value"]
    assert figures["rent-vs-buy break-even"]["value"]["value"] == pytest.approx(30e6 / rental)
    n = mlcost.model("llama-2-70b").parameter_count
    # The chapter's USD 1,415,571 for 70e9 parameters, scaled to the exact count (1e-4: the
    # chapter's inputs are rounded to 989 TFLOP/s; whole steps add 2e-6).
    assert rental == pytest.approx(1_415_571.28 * n / 70e9, rel=1e-4)
    assert all(f["source"] for f in figures.values())


def test_plan_bad_tokens_is_one_line(cli: Cli) -> None:
    result = cli("plan", "--tokens", "lots")
    assert result.exit_code == 2
    assert "--tokens" in result.stderr and "Traceback" not in result.stderr


def test_plan_without_a_layout_names_the_layout_it_searched(cli: Cli) -> None:
    result = cli(*LLAMA_70B_1024, "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["fits"] is True and "fastest" in data["layout_source"]
    figures = {f["name"]: f for f in data["figures"]}
    # The MFU is that of the named layout, through the one-layout path.
    layout = mlcost.Layout(**data["layout"])
    step = multi_gpu_step_time("llama-2-70b", TrainingConfig(), "dgx-h100", layout)
    assert figures["MFU"]["value"]["value"] / 100 == pytest.approx(step.mfu(), rel=1e-9)


def test_pure_data_parallelism_does_not_fit_and_the_suggestions_do(cli: Cli) -> None:
    # 69B parameters x 16 B/param (bf16 weights and gradients, FP32 master and Adam states)
    # replicated on every GPU: over 1 TB, against 79.65 GiB.
    result = cli(*LLAMA_70B_1024, "--dp", "1024")
    assert result.exit_code == 1  # the answer "does not fit", on stdout (docs/cli.md)
    assert result.stderr == "" and "Traceback" not in result.stdout
    assert "does not fit: needs" in result.stdout and "79.65 GiB per GPU" in result.stdout
    suggested = re.findall(r"(--gpus \d+ [^(;]+?) \(", " ".join(result.stdout.split()))
    assert len(suggested) >= 2
    for options in suggested:
        tried = cli(*LLAMA_70B_1024[:4], *options.split(), "--json")
        assert tried.exit_code == 0, (options, tried.stderr)
        assert json.loads(tried.stdout)["fits"] is True


def test_plan_on_eight_l40s_prints_a_cost(cli: Cli) -> None:
    # Issue 64's acceptance line: the L40S has a catalog price (CoreWeave, 18.00 USD/hour for 8
    # GPUs = 2.25 per GPU-hour), so the plan prints a rental cost = GPU-hours x 2.25.
    result = cli("plan", "qwen2.5-7b", "--gpu", "l40s", "--gpus", "8", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    figures = {f["name"]: f["value"] for f in data["figures"]}
    hours = figures["GPU-hours"]["value"]
    assert figures["rental cost"]["unit"] == "USD"
    assert figures["rental cost"]["value"] == pytest.approx(hours * 2.25, rel=1e-9)
    short = cli("plan", "qwen2.5-7b", "--gpu", "l40s", "--gpus", "8").stdout
    assert "rental cost unknown" not in short and "rental cost" in short


def test_plan_region_prices_electricity_from_the_region_s_source(cli: Cli) -> None:
    # --region france: Eurostat nrg_pc_205, band ID, 2024, excluding VAT, EUR 0.14275 per kWh
    # at 0.9242 EUR per USD (FRED, 2024): 0.1545 USD/kWh, its source named in the figure.
    run = ("plan", "gpt2-xl", "--gpu", "h100-sxm5-80gb", "--gpus", "8", "--tokens", "1e10")
    result = cli(*run, "--region", "france", "--json")
    assert result.exit_code == 0, result.stderr
    figure = {f["name"]: f for f in json.loads(result.stdout)["figures"]}[
        "ownership cost of this run"
    ]
    price = float(re.findall(r"x ([0-9.]+) USD/kWh", figure["substituted"])[-1])
    assert price == pytest.approx(0.14275 / 0.9242, rel=5e-4)
    assert "nrg_pc_205" in figure["source"] and "fallback" not in figure["source"]
    explained = cli(*run, "--region", "france", "--explain")
    assert "nrg_pc_205" in explained.stdout
