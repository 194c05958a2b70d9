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
        "bench", "--out-dir", str(out), "--only", "gemm", "--only", "launch", "--only", "memory",
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


def test_validate_the_shipped_h200_run_by_profile_name(cli: Cli) -> None:
    # The H200 results of 2026-11-26 against the measured profile named from the catalog: the
    # launch benchmark is the profile's launch overhead, so its error after calibration is 0;
    # every GEMM row of the raw CSV that succeeded is predicted.
    data = Path(__file__).resolve().parents[2] / "benchmarks/data/h200-2026-11-26/mlcost-bench"
    result = cli(
        "validate", str(data), "--profile", "h200-sxm-141gb-measured", "--base",
        "h200-sxm-141gb", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    rows = json.loads(result.stdout)["rows"]
    launch = [r for r in rows if r["family"] == "launch"]
    assert len(launch) == 1 and launch[0]["error_after"] == pytest.approx(0.0, abs=1e-12)
    csv = (data / "results.csv").read_text().splitlines()
    gemm_ok = sum(1 for line in csv if line.startswith("gemm,") and ",ok," in line)
    assert sum(1 for r in rows if r["family"] == "gemm") == gemm_ok
    bad = cli("validate", str(data), "--profile", "no-such-gpu")
    assert bad.exit_code == 2 and "no-such-gpu" in bad.stderr
