"""The comm sub-app and the parallel command, registered as mlcost.cli registers them."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from mlcost.cli_parallel import comm_app, parallel_command
from mlcost.errors import MlcostError

app = typer.Typer()
app.add_typer(comm_app, name="comm")
app.command("parallel")(parallel_command)
runner = CliRunner()


def test_allreduce_json_reports_nccl_tests_bandwidths() -> None:
    result = runner.invoke(
        app,
        ["comm", "allreduce", "--system", "dgx-h100", "--nodes", "4", "--bytes", "1GB", "--json"],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
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
def test_every_collective_prints_a_table(command: str) -> None:
    result = runner.invoke(app, ["comm", command, "--bytes", "256MiB"])
    assert result.exit_code == 0, result.output
    assert "busbw" in result.output


def test_bad_size_is_a_user_error() -> None:
    result = runner.invoke(app, ["comm", "allreduce", "--bytes", "3 seconds"])
    assert isinstance(result.exception, MlcostError)
    assert "--bytes" in str(result.exception)


def test_parallel_json_top_configurations() -> None:
    result = runner.invoke(
        app,
        [
            "parallel",
            "llama-2-7b",
            "--system",
            "dgx-h100",
            "--nodes",
            "1",
            "--global-batch",
            "64",
            "--seq",
            "2048",
            "--top",
            "3",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["gpus"] == 8
    assert len(data["configurations"]) == 3
    steps = [row["step_s"] for row in data["configurations"]]
    assert steps == sorted(steps)
    assert all(row["fits"] for row in data["configurations"])


def test_parallel_table() -> None:
    result = runner.invoke(
        app,
        [
            "parallel",
            "gpt2-xl",
            "--nodes",
            "1",
            "--global-batch",
            "32",
            "--seq",
            "1024",
            "--top",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "configurations fit" in result.output


def test_parallel_rejects_a_gpu_as_model() -> None:
    result = runner.invoke(app, ["parallel", "h100-sxm5-80gb"])
    assert isinstance(result.exception, MlcostError)
