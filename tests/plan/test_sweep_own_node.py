"""Issue 64: a sweep over GPUs runs each GPU in its own standard node (its host power, links,
price), not in the plan's node: ``Plan.sweep(gpu=[a100, h100])`` on a DGX H100 plan prices the
A100 rows as a DGX A100 does."""

from __future__ import annotations

import warnings

import pytest

from mlcost.plan import Plan

#: NVIDIA DGX A100 datasheet: system power usage 6.5 kW max (8 GPUs).
DGX_A100_MAX_W = 6_500.0


@pytest.fixture(scope="module")
def rows() -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = Plan("llama-2-7b", system="dgx-h100", tokens=2e12)
        frame = plan.sweep(gpu=["a100-sxm4-80gb", "h100-sxm5-80gb"])
        alone = Plan("llama-2-7b", gpu="a100-sxm4-80gb", gpus=8, tokens=2e12)
        return frame, alone.energy(), alone.run.system.name


def test_an_a100_row_is_priced_as_an_a100_plan(rows: object) -> None:
    frame, energy, node = rows  # type: ignore[misc]
    a100 = frame.set_index("gpu").loc["a100-sxm4-80gb"]
    assert node == "dgx-a100"
    assert a100["gpus"] == 8
    assert a100["it_power_w"] == pytest.approx(energy["IT power"].to("W").magnitude, rel=1e-9)
    assert a100["energy_kwh"] == pytest.approx(energy["energy"].to("kWh").magnitude, rel=1e-9)
    assert a100["it_power_w"] <= DGX_A100_MAX_W  # not 8 x the DGX H100's 1,050 W per GPU


def test_the_plans_own_gpu_keeps_the_plans_node(rows: object) -> None:
    frame, _, _ = rows  # type: ignore[misc]
    h100 = frame.set_index("gpu").loc["h100-sxm5-80gb"]
    # Latif et al. 2025: 8.4 kW measured on an 8-GPU H100 node while training (1,050 W per GPU)
    assert h100["it_power_w"] == pytest.approx(8_400.0)
