"""Energy and carbon the way published reports count them (issue 16): report mode reproduces
Patterson et al. 2021 table 4 and the Llama 3.1 model card from their published inputs, and the
default convention's power per GPU is the cited node measurement."""

from __future__ import annotations

import itertools

import pytest

from mlcost import Plan
from mlcost.energy import ACCOUNTING, report_energy
from mlcost.errors import MlcostError
from mlcost.units import Q_
from tests.cli.conftest import invoke

#: Patterson et al. 2021 (arXiv 2104.10350) table 4, read in the primary: chips, measured average
#: system power per chip (W), days, PUE, net grid kgCO2e/kWh -> published MWh and net tCO2e.
#: (The transcription in ../shared/reference/validation_dev.yaml has 1000 chips for GShard-600B
#: and Switch; the paper's table says 1024, as GShard's own 2048 TPU v3 cores do.)
PATTERSON = {
    "gpt-3": (10_000, 330, 14.8, 1.1, 0.429, 1287, 552.1),
    "t5": (512, 310, 20, 1.12, 0.545, 85.7, 46.7),
    "meena": (1024, 289, 30, 1.09, 0.415, 232, 96.4),
    "gshard-600b": (1024, 288, 3.1, 1.09, 0.177, 24.1, 4.3),
    "switch-1.5t": (1024, 245, 27, 1.1, 0.33, 179, 59.1),
    "evolved-transformer-nas": (200, 208, 6.8, 1.1, 0.431, 7.5, 3.2),
}


def _half_unit(text: str) -> float:
    """Half a unit of the last digit written: '3.1' -> 0.05, '20' -> 0.5."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10.0**-decimals


@pytest.mark.parametrize("row", sorted(PATTERSON))
def test_patterson_rows_from_their_published_inputs(row: str) -> None:
    chips, watts, days, pue, intensity, mwh, tco2 = PATTERSON[row]
    report = report_energy(
        chips * days * 24, f"{watts} W", pue=pue, intensity=f"{intensity * 1000} gCO2e/kWh",
        accounting="system-per-accelerator",
    )  # fmt: skip
    energy = report.energy.to("MWh").magnitude
    # Hand derivation: E = chips x W x days x 24 h x PUE; for GPT-3 10,000 x 330 W x 355.2 h x
    # 1.1 = 1,289.4 MWh against the published 1,287.
    assert energy == pytest.approx(chips * watts * days * 24 * pue / 1e6, rel=1e-12)
    assert energy == pytest.approx(mwh, rel=0.01)
    # The carbon, checked against the rounding of the table's inputs: days, PUE and intensity
    # are written to 2-3 digits, so the published figure must lie inside the interval they span.
    corners = []
    for d, p, i in itertools.product(
        (days - _half_unit(str(days)), days + _half_unit(str(days))),
        (pue - _half_unit(str(pue)), pue + _half_unit(str(pue))),
        (intensity - _half_unit(str(intensity)), intensity + _half_unit(str(intensity))),
    ):
        corners.append(chips * watts * d * 24 * p / 1e6 * i)
    slack = _half_unit(str(tco2))
    assert min(corners) - slack <= tco2 <= max(corners) + slack


#: Llama 3.1 MODEL_CARD.md (meta-llama/llama-models 1b28708f), "Training Energy Use": GPU-hours
#: on H100-80GB at 700 W TDP, location-based tCO2eq; market-based 0.
LLAMA = {"8B": (1.46e6, 420), "70B": (7.0e6, 2040), "405B": (30.84e6, 8930)}
LLAMA_TOTAL = (39.3e6, 11390)


@pytest.mark.parametrize("row", sorted(LLAMA))
def test_llama_model_card_rows(row: str) -> None:
    """The card counts GPU-hours x 700 W 'adjusted for PUE' x a location-based intensity, and
    publishes neither the PUE nor the intensity: their product is taken from the card's own
    total row (11,390 t for 39.3M GPU-h, 0.414 tCO2e/MWh), and each model's row is predicted
    from its GPU-hours."""
    hours, tco2 = LLAMA[row]
    factor = LLAMA_TOTAL[1] / (LLAMA_TOTAL[0] * 700 / 1e6)  # tCO2e per MWh of TDP energy
    report = report_energy(
        hours, "700 W", pue=1.0, intensity=f"{factor * 1000} gCO2e/kWh",
        market_intensity="0 gCO2e/kWh", accounting="gpu-tdp",
    )  # fmt: skip
    assert report.location_carbon.to("tCO2e").magnitude == pytest.approx(tco2, rel=0.01)
    assert report.market_carbon is not None and report.market_carbon.magnitude == 0


def test_default_convention_on_a_dgx_h100_is_the_measured_node() -> None:
    """Latif et al. 2025 (IEEE Access 13, 61740): an 8x H100 HGX node drew at most 8.4 kW while
    training; per GPU 8,400 W / 8 = 1,050 W (the node's nameplate 10.2 kW would give 1,275 W)."""
    plan = Plan("gpt2", system="dgx-h100", gpus=8)
    assert plan.run.accounting == "measured-node"
    assert plan.run.power_per_gpu == pytest.approx(8400 / 8)
    assert "Latif" in plan.run.power_source


def test_default_convention_on_a_dgx_a100_is_the_measured_node() -> None:
    """No whole-node measurement during a training run was found for an 8x A100 node; the
    catalog's stand-in is BAAI FlagPerf's DGX A100 (8x A100-40GB) under a sustained FP16 GEMM on
    all eight GPUs: 4,485 W average system power from the BMC, i.e. 4,485 / 8 = 560.6 W per GPU
    (the nameplate 6.5 kW would give 812.5 W)."""
    plan = Plan("gpt2", system="dgx-a100-320gb", gpus=8)
    assert plan.run.accounting == "measured-node"
    assert plan.run.power_per_gpu == pytest.approx(4485 / 8)
    assert "FlagPerf" in plan.run.power_source


def test_a_node_without_a_measurement_says_what_stands_in() -> None:
    plan = Plan("gpt2", system="dgx-a100", gpus=8)
    assert plan.run.accounting == "utilization"
    assert "no measured training power" in plan.run.power_source


def test_conventions_are_named_and_checked() -> None:
    assert set(ACCOUNTING) == {"measured-node", "system-per-accelerator", "gpu-tdp", "utilization"}
    tdp = Plan("gpt2", system="dgx-h100", gpus=8, accounting="gpu-tdp")
    assert tdp.run.power_per_gpu == 700  # H100 SXM5 TDP, the NVIDIA datasheet
    with pytest.raises(MlcostError, match="accounting convention"):
        Plan("gpt2", system="dgx-h100", gpus=8, accounting="guess")
    with pytest.raises(MlcostError, match="power_per_gpu"):
        Plan("gpt2", system="dgx-h100", gpus=8, accounting="system-per-accelerator")


def test_facility_class_sets_the_pue_with_its_source() -> None:
    hyperscale = Plan("gpt2", system="dgx-h100", gpus=8, facility="hyperscale")
    assert hyperscale.run.pue == pytest.approx(1.10)
    assert "Google" in hyperscale.run.pue_source
    average = Plan("gpt2", system="dgx-h100", gpus=8, facility="industry-average")
    assert average.run.pue == pytest.approx(1.58) and "Uptime" in average.run.pue_source


def test_energy_command_reproduces_gpt3() -> None:
    result = invoke(
        "energy", "--gpu-hours", "3552000", "--gpu", "v100-sxm2-16gb", "--accounting",
        "system-per-accelerator", "--power-per-gpu", "330 W", "--pue", "1.1", "--intensity",
        "429 gCO2e/kWh", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    import json

    data = json.loads(result.stdout)
    assert data["energy"]["value"] == pytest.approx(1287, rel=0.01)
    assert data["location_carbon"]["value"] == pytest.approx(552.1, rel=0.01)


#: Luccioni, Viguier and Ligozat 2022 (arXiv 2211.02001), section 4: BLOOM's final training,
#: 1,082,990 GPU-hours on A100s counted at 400 W (TDP), 57 gCO2eq/kWh (French grid), idle
#: infrastructure 256,646 kWh; embodied 150 kgCO2e per GPU and 2,500 kgCO2e per 8-GPU server over
#: a 6-year life at 85% use. Published: 433,196 kWh and 24.69 t dynamic, 14.6 t idle, 11.2 t
#: embodied, 50.5 t in all.
BLOOM_HOURS, BLOOM_IDLE_KWH = 1_082_990, 256_646


def test_bloom_life_cycle_from_its_published_inputs() -> None:
    report = report_energy(
        BLOOM_HOURS, "400 W", intensity="57 gCO2e/kWh", accounting="gpu-tdp",
        idle_energy=f"{BLOOM_IDLE_KWH} kWh", gpus_per_server=8,
    )  # fmt: skip
    # Hand derivation: 1,082,990 h x 0.4 kW = 433,196 kWh; x 57 g = 24.69 t.
    assert report.dynamic_energy.to("kWh").magnitude == pytest.approx(433_196)
    dynamic_t = report.dynamic_energy.to("kWh").magnitude * 57e-6
    assert dynamic_t == pytest.approx(24.69, rel=0.01)
    idle_t = report.idle_energy.to("kWh").magnitude * 57e-6
    assert idle_t == pytest.approx(14.6, rel=0.01)
    # Embodied: (150 + 2500 / 8) kg x 1,082,990 h / (6 x 8766 h x 0.85) = 11,204 kg.
    assert report.embodied_carbon is not None
    hand = (150 + 2500 / 8) * BLOOM_HOURS / (6 * 365.25 * 24 * 0.85) / 1000
    assert report.embodied_carbon.to("tCO2e").magnitude == pytest.approx(hand, rel=1e-9)
    assert report.embodied_carbon.to("tCO2e").magnitude == pytest.approx(11.2, rel=0.01)
    assert report.total_carbon.to("tCO2e").magnitude == pytest.approx(50.5, rel=0.01)
    assert "embodied" in report.text() and "idle" in report.text()


def test_bloom_split_of_location_co2e_in_the_text_and_the_json() -> None:
    """The published split (24.69 t dynamic, 14.6 t idle) is printed and in the JSON."""
    args = (
        "energy", "--gpu-hours", str(BLOOM_HOURS), "--gpu", "a100-sxm4-80gb", "--power-per-gpu",
        "400 W", "--intensity", "57", "--idle-energy", f"{BLOOM_IDLE_KWH} kWh",
        "--gpus-per-server", "8",
    )  # fmt: skip
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.stderr
    import json

    data = json.loads(result.stdout)
    assert data["location_carbon_dynamic"]["value"] == pytest.approx(24.69, rel=0.005)
    assert data["location_carbon_idle"]["value"] == pytest.approx(14.6, rel=0.01)
    # By hand: 433,196 kWh x 57 g = 24.69 t; 256,646 kWh x 57 g = 14.63 t.
    dynamic, idle = 433_196 * 57e-6, BLOOM_IDLE_KWH * 57e-6
    assert f"dynamic {dynamic:,.4g} + idle {idle:,.4g}" in invoke(*args).stdout


def test_report_mode_inputs_are_checked() -> None:
    with pytest.raises(MlcostError, match="give one"):
        report_energy(10, "400 W", intensity=57, idle_energy="1 kWh", idle_power_per_gpu="1 W")
    with pytest.raises(MlcostError, match="gpus_per_server"):
        report_energy(10, "400 W", intensity=57, gpus_per_server=0)
    with pytest.raises(MlcostError, match="idle_power_per_gpu"):
        report_energy(10, "400 W", intensity=57, idle_power_per_gpu="-3 W")
    with pytest.raises(MlcostError, match="gpu_hours"):
        Plan("gpt2", system="dgx-h100", gpus=8, gpu_hours=-5)
    with pytest.raises(MlcostError, match="idle_power"):
        Plan("gpt2", system="dgx-h100", gpus=8, idle_power=Q_(-1, "W"))


def test_plan_report_mode_takes_published_gpu_hours() -> None:
    """Llama 3.1 8B's card: 1.46M GPU-hours at 700 W (gpu-tdp), no PUE: 1.46e6 h x 0.7 kW =
    1,022 MWh; the wall clock is the GPU-hours over the GPUs, and no band is attached."""
    plan = Plan(
        "llama-3-8b", system="dgx-h100", gpus=1024, gpu_hours=1.46e6, accounting="gpu-tdp",
        pue=1.0,
    )  # fmt: skip
    figures = {f.name: f for f in plan.figures()}
    assert figures["GPU-hours"].value.to("hour").magnitude == pytest.approx(1.46e6)
    assert figures["wall clock"].value.to("hour").magnitude == pytest.approx(1.46e6 / 1024)
    assert figures["energy"].value.to("MWh").magnitude == pytest.approx(1022)
    assert figures["energy"].band is None and figures["wall clock"].band is None
    assert plan.energy()["energy"].to("MWh").magnitude == pytest.approx(1022)


def test_idle_infrastructure_is_reported_apart_and_summed() -> None:
    """BLOOM's split: idle = GPUs x P_idle x wall x PUE, total = dynamic + idle."""
    plain = Plan("gpt2", system="dgx-h100", gpus=8, pue=1.1, gpu_hours=100)
    idle = Plan("gpt2", system="dgx-h100", gpus=8, pue=1.1, gpu_hours=100, idle_power=Q_(237, "W"))
    f0 = {f.name: f for f in plain.figures()}
    f1 = {f.name: f for f in idle.figures()}
    assert f0["energy (idle)"].value.magnitude == 0
    assert "not counted" in f0["energy (idle)"].source
    # 100 GPU-h x 237 W x 1.1 = 26.07 kWh; the dynamic part is unchanged.
    assert f1["energy (idle)"].value.to("kWh").magnitude == pytest.approx(26.07)
    assert f1["energy (dynamic)"].value == f0["energy (dynamic)"].value
    assert f1["energy"].value.to("kWh").magnitude == pytest.approx(
        f0["energy"].value.to("kWh").magnitude + 26.07
    )


def test_energy_command_life_cycle() -> None:
    import json

    result = invoke(
        "energy", "--gpu-hours", str(BLOOM_HOURS), "--gpu", "a100-sxm4-80gb", "--power-per-gpu",
        "400 W", "--intensity", "57", "--idle-energy", f"{BLOOM_IDLE_KWH} kWh",
        "--gpus-per-server", "8", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["total_carbon"]["value"] == pytest.approx(50.5, rel=0.01)
    assert data["embodied_carbon"]["value"] == pytest.approx(11.2, rel=0.01)
