"""Issue 64: every costing command answers first in about ten lines of at most 80 columns
(the verdict), with ``--explain`` and ``--all`` behind it. The limits are the issue's: an
80 x 24 terminal, "a verdict of at most ~12 lines"."""

from __future__ import annotations

import pytest

from tests.cli.conftest import Cli

#: The issue's acceptance command lines (serve's --gpus: the GPUs of one replica).
ACCEPTANCE = [
    ("fit", "llama-3.1-8b", "--gpu", "rtx-4090"),
    ("plan", "qwen2.5-7b", "--gpu", "l40s", "--gpus", "8"),
    ("serve", "llama-3.1-70b", "--gpu", "h100", "--gpus", "4"),
    ("memory", "llama-3.1-8b", "--gpu", "rtx-4090"),
]


@pytest.mark.parametrize("args", ACCEPTANCE, ids=lambda a: a[0])
def test_the_short_answer_fits_an_80_column_terminal(cli: Cli, args: tuple[str, ...]) -> None:
    result = cli(*args)
    # 0, or 1 for the answer "does not fit" (full training of 8B parameters on 24 GB)
    assert result.exit_code == (1 if args[0] in ("fit", "memory") else 0), result.stderr
    assert len(result.stdout.splitlines()) <= 12, result.stdout
    lines = (result.stderr + result.stdout).splitlines()  # a note on stderr is as wide
    assert max(len(line) for line in lines) <= 80, result.stderr + result.stdout


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (ACCEPTANCE[0], ("full training", "LoRA", "QLoRA", "inference", "smallest GPU")),
        (ACCEPTANCE[1], ("fits", "layout", "wall clock", "GPU-hours", "rental cost",
                         "energy", "total CO2e")),
        (ACCEPTANCE[2], ("fit", "time to first token", "time per output token",
                         "output throughput", "USD per million output tokens")),
    ],
    ids=("fit", "plan", "serve"),
)  # fmt: skip
def test_the_verdict_names_what_the_issue_asks(
    cli: Cli, args: tuple[str, ...], expected: tuple[str, ...]
) -> None:
    stdout = cli(*args).stdout
    for text in expected:
        assert text in stdout
    assert "--explain" in stdout.splitlines()[-1]


@pytest.mark.parametrize("args", ACCEPTANCE[1:3], ids=("plan", "serve"))
def test_all_and_explain_show_more_than_the_verdict(cli: Cli, args: tuple[str, ...]) -> None:
    short = cli(*args).stdout.splitlines()
    every = cli(*args, "--all").stdout
    explained = cli(*args, "--explain").stdout
    assert len(every.splitlines()) > 2 * len(short)
    assert "formula:" in explained and "source:" in explained


def test_fit_puts_gpus_side_by_side(cli: Cli) -> None:
    result = cli("fit", "llama-3.1-8b", "--gpu", "rtx-4090,l40s")
    assert result.exit_code == 0, result.stderr
    rows = result.stdout.splitlines()
    assert [row.split()[0] for row in rows[2:]] == ["rtx-4090", "l40s"]
    # An 8B model's full training (16 bytes per parameter before activations) fits neither.
    assert all(row.split()[2] == "no" for row in rows[2:])


def test_fit_all_lists_only_gpus_of_the_precision(cli: Cli) -> None:
    # The V100 and T4 datasheets list no BF16 (issue 64's catalog part).
    stdout = cli("fit", "gpt2", "--gpu", "all").stdout
    names = [row.split()[0] for row in stdout.splitlines()[2:]]
    assert "h100-sxm5-80gb" in names
    assert not {"t4", "v100-sxm2-32gb"} & set(names)


#: Commands that answered with a full table before issue 64's second part, and a row of that
#: table which ``--all`` still shows (the column heads of each).
TABLES = [
    (("step", "llama-2-7b"), "compute ms"),
    (("step", "llama-2-7b", "--mode", "no-overlap"), "compute ms"),
    (("parallel", "llama-2-7b"), "exposed comm (s)"),
    (("parallel", "llama-3.1-70b", "--nodes", "4", "--rank-by", "cost"), "exposed comm (s)"),
    (("flops", "llama-2-7b"), "vs exact model FLOPs"),
    (("flops", "llama-3.1-70b", "--recompute", "full"), "vs exact model FLOPs"),
    (("roofline",), "ridge FLOP/B"),
    (("roofline", "llama-2-7b", *("--gpu", "h100", "--gpu", "a100") * 3), "ridge FLOP/B"),
    (("comm", "allreduce", "--nodes", "4"), "busbw (GB/s)"),
    (("comm", "sendrecv"), "busbw (GB/s)"),
    (("comm", "alltoall", "--nodes", "2", "--bytes", "256MiB"), "busbw (GB/s)"),
    (("checkpoint", "interval", "--params", "70B", "--gpus", "16384"), "P(failure within a day)"),
    (("checkpoint", "interval", "--params", "405B", "--gpus", "16384", "--async"), "Young"),
    (
        ("checkpoint", "activations", "llama-3.1-70b", "--gpu", "h100-sxm5-80gb", "--tp", "8"),
        "recomputed TFLOP / micro-batch",
    ),
    (("checkpoint", "activations", "llama-2-7b", "--batch", "8"), "cheapest that fits"),
    (("ops", "llama-2-7b"), "saved MB"),
    (("ops", "mixtral-8x7b", "--recompute", "selective"), "saved MB"),
    (("energy", "--gpu-hours", "3.3M", "--region", "france"), "; location-based"),
    # BLOOM's published inputs (docs/energy.md), every part of the report
    (
        (
            "energy",
            "--gpu-hours",
            "1082990",
            "--gpu",
            "a100-sxm4-80gb",
            "--power-per-gpu",
            "400 W",
            "--intensity",
            "57",
            "--idle-energy",
            "256646 kWh",
            "--gpus-per-server",
            "8",
            "--market-intensity",
            "0",
        ),
        "; location-based",
    ),
]


@pytest.mark.parametrize("case", TABLES, ids=lambda c: " ".join(c[0]))
def test_more_commands_answer_in_an_80_column_terminal(
    cli: Cli, case: tuple[tuple[str, ...], str]
) -> None:
    args, head = case
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) <= 12, result.stdout
    assert max(len(line) for line in lines) <= 80, result.stdout
    assert "--all" in lines[-1]
    assert head not in result.stdout


@pytest.mark.parametrize("case", TABLES, ids=lambda c: " ".join(c[0]))
def test_all_still_shows_the_full_table(cli: Cli, case: tuple[tuple[str, ...], str]) -> None:
    args, head = case
    every = cli(*args, "--all")
    assert every.exit_code == 0, every.stderr
    assert head in every.stdout
    assert "--all" not in every.stdout


def test_step_names_the_step_and_its_slowest_kinds(cli: Cli) -> None:
    stdout = cli("step", "llama-2-7b").stdout
    for text in ("step time", "MFU", "HFU", "matmul"):
        assert text in stdout
    assert "formula:" in cli("step", "llama-2-7b", "--explain").stdout


def test_parallel_shows_the_best_layout_and_runners_up(cli: Cli) -> None:
    args = ("parallel", "llama-2-7b")
    every = cli(*args, "--all").stdout.splitlines()
    # The first row of the full table (rank 1): its step time and MFU are the short answer's.
    best = next(row.split("│") for row in every if row.startswith("│  1 "))
    step, mfu = best[13].strip(), best[16].strip()
    short = cli(*args).stdout
    assert f"step time    {step} s" in short
    assert f"MFU          {mfu}" in short
    assert "#2" in short and "#3" in short
    # --top 1: the best alone
    assert "#2" not in cli(*args, "--top", "1").stdout


def test_flops_names_model_and_hardware_flops(cli: Cli) -> None:
    stdout = cli("flops", "llama-2-7b").stdout
    for text in ("model FLOPs (MFU)", "hardware FLOPs (HFU)", "tokens per step", "6ND"):
        assert text in stdout
    # the full table's 6ND difference from the exact count, in the short answer too
    every = cli("flops", "llama-2-7b", "--all").stdout
    difference = next(row for row in every.splitlines() if "│ 6ND" in row).split("│")[3].strip()
    assert f"{difference} vs exact" in stdout


def test_roofline_names_the_slowest_of_the_operators_all_places(cli: Cli) -> None:
    args = ("roofline", "llama-2-7b", "--gpu", "h100-sxm5-80gb")
    placed = [row for row in cli(*args, "--all").stdout.splitlines() if row.endswith(" ms")]
    slowest = max(placed, key=lambda row: float(row.rsplit(",", 1)[1].removesuffix(" ms")))
    name = slowest.strip().split(":")[0]
    stdout = cli(*args).stdout
    assert f"of {len(placed)} operators compute-bound" in stdout
    assert any(row.strip().startswith(name) for row in stdout.splitlines())


def test_energy_gives_the_total_and_its_parts(cli: Cli) -> None:
    # BLOOM's published inputs and parts (docs/energy.md): 24.69 t dynamic, 14.63 t idle,
    # 11.20 t embodied, 50.52 t in all
    stdout = cli(
        "energy", "--gpu-hours", "1082990", "--gpu", "a100-sxm4-80gb", "--power-per-gpu", "400 W",
        "--intensity", "57", "--idle-energy", "256646 kWh", "--gpus-per-server", "8",
    ).stdout  # fmt: skip
    assert stdout.startswith("50.52 tCO2e in all")
    for text in ("dynamic 24.69 + idle 14.63", "embodied        11.2 tCO2e", "idle energy"):
        assert text in stdout


def test_ops_lists_the_operators_of_the_full_table(cli: Cli) -> None:
    every = cli("ops", "llama-2-7b", "--all").stdout.splitlines()
    names = {row.split("│")[1].strip() for row in every if row.startswith("│")}
    stdout = cli("ops", "llama-2-7b").stdout
    assert stdout.startswith(f"{len(names)} operators")
    listed = [row.split("  ")[1] for row in stdout.splitlines() if row.startswith("  ")][-4:]
    assert set(listed) <= names and "mlp gate projection" in listed


def test_comm_names_the_fastest_of_the_full_table(cli: Cli) -> None:
    args = ("comm", "allreduce", "--nodes", "4")
    rows = [
        row.split("│") for row in cli(*args, "--all").stdout.splitlines() if row.startswith("│")
    ]
    fastest = min(rows, key=lambda row: float(row[4]))
    stdout = cli(*args).stdout
    assert f"fastest {fastest[1].strip()}, {fastest[4].strip()} ms" in " ".join(stdout.split())
    assert all(row[1].strip() in stdout for row in rows)


def test_checkpoint_interval_gives_the_goodput_of_the_full_table(cli: Cli) -> None:
    args = ("checkpoint", "interval", "--params", "70B", "--gpus", "16384")
    rows = {row.split("│")[1].strip(): row.split("│")[2].strip()
            for row in cli(*args, "--all").stdout.splitlines() if row.startswith("│")}  # fmt: skip
    stdout = cli(*args).stdout
    assert stdout.startswith(f"goodput {rows['goodput']} checkpointing every")
    assert f"expected waste            {rows['expected waste']}" in stdout
    explained = cli(*args, "--explain").stdout
    assert "Daly 2006" in explained


def test_checkpoint_activations_lists_the_strategies_of_the_full_table(cli: Cli) -> None:
    args = ("checkpoint", "activations", "llama-2-7b", "--batch", "8")
    every = cli(*args, "--all").stdout.splitlines()
    strategies = [row.split("│")[1].strip() for row in every if row.startswith("│")]
    stdout = cli(*args).stdout
    assert all(name in stdout for name in strategies if name != "cheapest that fits")
    assert "fits" in stdout and "formula:" in cli(*args, "--explain").stdout
    # --curve asks for the trade-off table: the full output
    assert "Pareto points" in cli(*args, "--curve").stdout
