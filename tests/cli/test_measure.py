"""``mlcost bench``, ``calibrate`` and ``validate`` on this machine's CPU."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import Cli

pytest.importorskip("torch")


def test_bench_calibrate_validate_commands(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "results"
    result = cli(
        "bench", "--out", str(out), "--only", "gemm", "--only", "launch", "--only", "memory",
        "--format", "fp32",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert (out / "results.csv").exists() and (out / "metadata.json").exists()
    profile = tmp_path / "profile.yaml"
    result = cli("calibrate", str(out), "--out", str(profile))
    assert result.exit_code == 0, result.stderr
    shown = json.loads(cli("specs", "show", str(profile), "--json").stdout)
    assert shown["kind"] == "accelerator" and shown["name"] == "measured-cpu"
    result = cli(
        "validate", str(out), "--profile", str(profile), "--json", "--plot",
        str(tmp_path / "errors.png"),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "gemm" in json.loads(result.stdout)["summary"]
    assert (tmp_path / "errors.png").read_bytes()[:4] == b"\x89PNG"
    assert "torchrun" in cli("bench", "--help").stdout
