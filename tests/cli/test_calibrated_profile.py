"""A calibrated profile goes wherever a catalog GPU goes: every command that takes hardware, and
:class:`mlcost.Plan`.

The profile is measured here, on this machine's CPU (``mlcost bench``), and calibrated against
the H100 SXM5 it stands in for (``--base``). A CPU's memory bandwidth is tens of GB/s, far below
the H100's 3.35 TB/s (NVIDIA H100 datasheet), so a command that really used the profile predicts a
much slower step than the same command on the catalog H100.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mlcost import Plan
from mlcost.specs import load_spec
from tests.cli.conftest import Cli, invoke, invoke_json

pytest.importorskip("torch")

NAME = "cpu-as-h100"
H100_BANDWIDTH_TBPS = 3.35  # NVIDIA H100 Tensor Core GPU datasheet, SXM5: 3.35 TB/s


@pytest.fixture(scope="module")
def profile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("profile")
    measured = invoke(
        "bench", "--out-dir", str(folder / "results"), "--only", "gemm", "--only", "memory",
        "--only", "launch", "--format", "fp32",
    )  # fmt: skip
    assert measured.exit_code == 0, measured.stderr
    path = folder / "profile.yaml"
    calibrated = invoke(
        "calibrate", str(folder / "results"), "--base", "h100-sxm5-80gb", "--name", NAME,
        "--out", str(path), "--stand-in",
    )  # fmt: skip
    assert calibrated.exit_code == 0, calibrated.stderr
    return path


def test_the_profile_is_a_cpu_standing_in_for_an_h100(profile: Path) -> None:
    spec = load_spec(profile)
    assert spec.name == NAME and spec.measured is not None
    assert spec.measured.based_on == "h100-sxm5-80gb"
    assert spec.memory_bandwidth.to("TB/s").magnitude < H100_BANDWIDTH_TBPS / 10


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (("summary",), ("accelerator", "name")),
        (("memory", "gpt2"), ("gpu",)),
        (("fit", "gpt2"), ("gpu",)),
        (("step", "gpt2"), ("gpu",)),
        (("roofline", "gpt2"), ("gpus", 0, "gpu")),
        (("plan", "gpt2", "--gpus", "8", "--tokens", "1e9"), ("gpu",)),
        (("parallel", "gpt2", "--nodes", "1"), ("gpu",)),
        (("comm", "allreduce"), ("gpu",)),
        (("checkpoint", "activations", "gpt2"), ("gpu",)),
    ],
    ids=lambda value: " ".join(map(str, value)) if isinstance(value, tuple) else value,
)
def test_every_hardware_command_takes_the_profile(
    cli: Cli, profile: Path, args: tuple[str, ...], where: tuple[str | int, ...]
) -> None:
    shown = invoke_json(*args, "--gpu", str(profile))
    for key in where:
        shown = shown[key]
    assert shown == NAME


def test_a_profile_as_system_is_the_node_of_its_base_gpu(cli: Cli, profile: Path) -> None:
    shown = invoke_json("comm", "allreduce", "--system", str(profile))
    assert shown["gpu"] == NAME and shown["system"] == "dgx-h100"
    searched = invoke_json("parallel", "gpt2", "--system", str(profile), "--nodes", "1")
    assert searched["gpu"] == NAME and searched["gpus"] == 8


def test_the_profiles_measurements_set_the_step_time(cli: Cli, profile: Path) -> None:
    on_cpu = invoke_json("step", "gpt2", "--gpu", str(profile))["step_time"]["value"]
    on_h100 = invoke_json("step", "gpt2", "--gpu", "h100-sxm5-80gb")["step_time"]["value"]
    assert on_cpu > 10 * on_h100


def test_plan_takes_the_profile(profile: Path) -> None:
    on_cpu = Plan("gpt2", gpu=profile, gpus=8, tokens=1e9)
    on_h100 = Plan("gpt2", gpu="h100-sxm5-80gb", gpus=8, tokens=1e9)
    assert on_cpu.accelerator.name == NAME
    assert on_cpu.run.system.name == on_h100.run.system.name == "dgx-h100"
    assert on_cpu.fits and on_h100.fits
    wall_cpu = on_cpu.train()["wall clock"].to("s").magnitude
    wall_h100 = on_h100.train()["wall clock"].to("s").magnitude
    assert wall_cpu > 10 * wall_h100
