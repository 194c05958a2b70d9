"""``mlcost comm ...`` and ``mlcost parallel``."""

from __future__ import annotations

import json

import pytest

from mlcost.memory import memory_breakdown
from mlcost.parallel import multi_gpu_step_time
from mlcost.parallel.search import search
from mlcost.workload import TrainingConfig
from tests.cli.conftest import Cli


def test_allreduce_json_reports_nccl_tests_bandwidths(cli: Cli) -> None:
    result = cli(
        "comm", "allreduce", "--system", "dgx-h100", "--nodes", "4", "--bytes", "1GB", "--json"
    )
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["nodes"] == 4
    assert data["size"] == {"value": 1000000000, "unit": "B"}
    n = 32
    for row in data["results"]:
        assert row["ranks"] == n
        # algbw = S / t and busbw = algbw x 2(n-1)/n (nccl-tests)
        algbw = 1.0 / (row["time"]["value"] / 1e3)  # GB / s
        assert row["algbw"]["value"] == pytest.approx(algbw, rel=1e-9)
        assert row["busbw"]["value"] == pytest.approx(algbw * 2 * (n - 1) / n, rel=1e-9)
    assert {row["algorithm"] for row in data["results"]} == {"ring", "tree", "hierarchical", "auto"}


@pytest.mark.parametrize(
    "command", ["allgather", "reducescatter", "alltoall", "sendrecv", "broadcast", "allreduce"]
)
def test_every_collective_prints_a_table(cli: Cli, command: str) -> None:
    result = cli("comm", command, "--bytes", "256MiB")
    assert result.exit_code == 0, result.stderr
    assert "busbw" in result.stdout


def test_bad_size_is_a_user_error(cli: Cli) -> None:
    result = cli("comm", "allreduce", "--bytes", "3 seconds")
    assert result.exit_code == 2 and "--bytes" in result.stderr


@pytest.mark.parametrize("command", ["allreduce", "allgather", "alltoall", "broadcast"])
def test_a_one_rank_collective_is_refused(cli: Cli, command: str) -> None:
    """One rank moves no data: its time is 0 and ``S / t`` no bandwidth (nccl-tests needs two
    ranks), so the answer is a one-line error naming ``ranks``, never ``inf`` or ``nan``."""
    result = cli("comm", command, "--ranks", "1")
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "ranks: got 1" in lines[0] and "at least 2" in lines[0]
    assert "Warning" not in result.stderr
    assert cli("comm", command, "--ranks", "2").exit_code == 0


def test_parallel_json_agrees_with_the_python_api(cli: Cli) -> None:
    result = cli(
        "parallel", "llama-2-7b", "--system", "dgx-h100", "--nodes", "1", "--global-batch", "64",
        "--seq", "2048", "--top", "3", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["gpus"] == 8
    # Each row is the step and memory of its layout through the one-layout path.
    found = search("llama-2-7b", "dgx-h100", 64, config=TrainingConfig(sequence_length=2048))
    config = TrainingConfig(sequence_length=2048)
    for row, layout in zip(data["configurations"], found.layouts(3), strict=True):
        step = multi_gpu_step_time("llama-2-7b", config, "dgx-h100", layout)
        assert row["step_s"] == pytest.approx(step.total.to("s").magnitude, rel=1e-9)
        memory = memory_breakdown("llama-2-7b", config, "h100-sxm5-80gb", layout)
        assert row["memory_GiB"] == pytest.approx(memory.total.to("GiB").magnitude, rel=1e-9)


def test_parallel_table(cli: Cli) -> None:
    result = cli(
        "parallel", "gpt2-xl", "--nodes", "1", "--global-batch", "32", "--seq", "1024", "--top",
        "2",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "layouts fit" in result.stdout


def test_parallel_rejects_a_gpu_as_model(cli: Cli) -> None:
    result = cli("parallel", "h100-sxm5-80gb")
    assert result.exit_code == 2 and "is an accelerator" in result.stderr
