"""``mlcost calibrate --trace`` and ``mlcost validate --trace`` on a real run's trace (the H200
traces of ``benchmarks/data/h200-2026-11-27``), the profile they write going wherever a GPU
goes, and one-line refusals (exit 2) on traces that cannot be read or matched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlcost import Plan
from mlcost.bench.model import GPTConfig, spec_of
from mlcost.specs import load_spec
from tests.cli.conftest import Cli, invoke, invoke_json

DATA = Path(__file__).resolve().parents[2] / "benchmarks/data/h200-2026-11-27"
ROWS = {r["trace"]: r for r in json.loads((DATA / "training.json").read_text())["rows"]}
TRACE = DATA / "traces/gpt3-125m_mb8_none.json.gz"
RUN = ("--batch", "8", "--seq", "2048", "--implementation", "ddp-eager", "--base", "h200-sxm-141gb")
NAME = "h200-from-my-run"


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("model") / "gpt3-125m.yaml"
    shape = GPTConfig(vocab_size=50304, sequence_length=2048, layers=12, hidden=768, heads=12)
    path.write_text(spec_of(shape).to_yaml())
    return path


@pytest.fixture(scope="module")
def profile(model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("profile") / "profile.yaml"
    step = ROWS[TRACE.name]["step_median_s"] * 1e3
    done = invoke(
        "calibrate", "--trace", str(TRACE), "--model", str(model), *RUN, "--step-time",
        str(step), "--name", NAME, "--out", str(out), "--plot", str(out.with_suffix(".png")),
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    assert "matmul" in done.stdout and "step" in done.stdout
    assert out.with_suffix(".png").stat().st_size > 10_000
    return out


def test_the_profile_is_written_from_the_trace(profile: Path) -> None:
    spec = load_spec(profile)
    assert spec.name == NAME and spec.measured is not None and spec.measured.trace is not None
    assert spec.measured.trace.file == TRACE.name


def test_calibrate_json_and_no_surprise_overwrite(cli: Cli, model: Path, profile: Path) -> None:
    again = cli(
        "calibrate", "--trace", str(TRACE), "--model", str(model), *RUN, "--out", str(profile)
    )
    assert again.exit_code == 2 and "--force" in again.stderr
    data = invoke_json(
        "calibrate", "--trace", str(TRACE), "--model", str(model), *RUN, "--out",
        str(profile), "--force", "--name", NAME,
    )  # fmt: skip
    assert set(data) >= {"profile", "before", "after", "warnings"}
    assert (
        data["after"]["memory"]["measured_allocated_bytes"]
        == (ROWS[TRACE.name]["peak_allocated_bytes"])
    )


def test_validate_a_second_trace_against_the_profile(model: Path, profile: Path) -> None:
    other = DATA / "traces/gpt3-125m_mb16_none.json.gz"
    shown = invoke_json(
        "validate", "--trace", str(other), "--model", str(model), "--batch", "16", "--seq",
        "2048", "--implementation", "ddp-eager", "--profile", str(profile),
        "--step-time", str(ROWS[other.name]["step_median_s"] * 1e3),
    )  # fmt: skip
    assert shown["gpu"] == NAME
    assert shown["step"]["measured_s"] == pytest.approx(ROWS[other.name]["step_median_s"])


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (("memory", "gpt2"), ("gpu",)),
        (("step", "gpt2"), ("gpu",)),
        (("roofline", "gpt2"), ("gpus", 0, "gpu")),
        (("plan", "gpt2", "--gpus", "8", "--tokens", "1e9"), ("gpu",)),
        (("serve", "gpt2", "--prompt", "128", "--output", "16"), ("gpu",)),
        (("parallel", "gpt2", "--nodes", "1"), ("gpu",)),
        (("fit", "gpt2"), ("gpu",)),
    ],
    ids=lambda value: " ".join(map(str, value)) if isinstance(value, tuple) else value,
)
def test_every_command_takes_the_trace_profile(
    profile: Path, args: tuple[str, ...], where: tuple[str | int, ...]
) -> None:
    shown = invoke_json(*args, "--gpu", str(profile))
    for key in where:
        shown = shown[key]
    assert shown == NAME


def test_energy_takes_the_trace_profile(profile: Path) -> None:
    """``mlcost energy --gpu PROFILE`` counts the profile's power: the TDP of the GPU the run
    was measured on (the H200 SXM's 700 W, NVIDIA's H200 datasheet)."""
    shown = invoke_json(
        "energy", "--gpu-hours", "100", "--gpu", str(profile), "--intensity", "400 gCO2e/kWh"
    )
    assert shown["power_per_gpu"] == {"value": 700, "unit": "W"}
    # 100 GPU-hours x 700 W = 70 kWh
    assert shown["energy"]["value"] * {"MWh": 1000, "kWh": 1}[shown["energy"]["unit"]] == (
        pytest.approx(70)
    )


def test_sweep_and_search_take_the_trace_profile(profile: Path) -> None:
    """``Plan.sweep(gpu=[PROFILE, ...])`` and the parallel search take the profile file where
    they take a catalog GPU; the sweep's row is the plan of that profile (not the datasheet's
    it was based on)."""
    from mlcost.parallel.search import search

    mine = Plan("gpt2", gpu=str(profile), gpus=1, tokens=1e9)
    datasheet = Plan("gpt2", gpu="h200-sxm-141gb", gpus=1, tokens=1e9)
    frame = mine.sweep(gpu=[str(profile), "h200-sxm-141gb"])
    swept = frame["step_s"].tolist()
    expected = [mine.step_time().total, datasheet.step_time().total]
    assert swept == pytest.approx([q.to("s").magnitude for q in expected], rel=1e-6)
    assert swept[0] != swept[1]
    ranked = search("gpt2", str(profile), 8, gpus=1, top=1).to_frame()
    assert len(ranked) == 1 and ranked.iloc[0]["step_s"] > 0


def test_plan_takes_the_trace_profile_and_explains_it(profile: Path) -> None:
    plan = Plan("gpt2", gpu=str(profile), gpus=1, tokens=1e9)
    compute = next(f for f in plan.figures() if f.name == "compute time per step")
    assert "user's own run" in compute.source and TRACE.name in compute.source


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--trace", "missing.json"), "is not a file"),
        (("--trace", "BAD"), "not readable JSON"),
        (("--trace", "NO_EVENTS"), "no 'traceEvents' list"),
        (("--trace", "NO_STEPS"), "no ProfilerStep#N annotation"),
        (("--trace", str(TRACE)), "--model: missing"),
        (("--trace", str(TRACE), "--model", "llama-3-8b", *RUN), "describe the run"),
    ],
)
def test_bad_traces_exit_2_with_one_line(
    cli: Cli, tmp_path: Path, model: Path, extra: tuple[str, ...], message: str
) -> None:
    files = {"BAD": "{ not json", "NO_EVENTS": '{"schemaVersion": 1}'}
    # a trace of one operator and no ProfilerStep#N around it
    files["NO_STEPS"] = json.dumps(
        {"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 5}]}
    )
    for label, text in files.items():
        (tmp_path / f"{label}.json").write_text(text)
    args = tuple(str(tmp_path / f"{a}.json") if a in files else a for a in extra)
    if "--model" not in args and message != "--model: missing":
        args += ("--model", str(model), *RUN)
    done = cli("calibrate", *args, "--out", str(tmp_path / "p.yaml"))
    assert done.exit_code == 2, done.stdout
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "p.yaml").exists()


@pytest.mark.parametrize(
    ("trace", "message"),
    [("missing.json", "is not a file"), ("BAD", "not readable JSON")],
)
def test_validate_refuses_a_bad_trace_with_one_line(
    cli: Cli, tmp_path: Path, model: Path, profile: Path, trace: str, message: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    path = str(bad) if trace == "BAD" else trace
    done = cli(
        "validate", "--trace", path, "--model", str(model), *RUN[:-2], "--profile", str(profile)
    )
    assert done.exit_code == 2, done.stdout
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
