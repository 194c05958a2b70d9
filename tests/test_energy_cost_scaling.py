"""Energy, carbon, cost, data pipeline and scaling laws against the chapter and published runs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mlcost
from mlcost.assumptions import Assumptions
from mlcost.cost import break_even_runs, electricity_cost, rental_cost
from mlcost.datapipe import tokenization_time, transfer_time
from mlcost.energy import (
    accelerator_power,
    cluster_power,
    embodied_carbon,
    energy,
    operational_carbon,
)
from mlcost.parallel import gradient_all_reduce_bytes
from mlcost.scaling import EPOCH, HOFFMANN, twenty_tokens_per_parameter
from mlcost.timing import iron_law
from mlcost.units import Q_


def test_chapter_carbon_example_w23() -> None:
    # 6 x 7e9 x 1e12 FLOPs at 150 TFLOP/s sustained on each of 1,024 A100 (400 W) plus
    # 128 hosts x 200 W: 75.955 h, 435.2 kW, 33,055.6 kWh; half of it at 0.4 kg/kWh = 6.61 t.
    hours = 6 * 7e9 * 1e12 / (1024 * 150e12) / 3600
    duration = iron_law(Q_(6 * 7e9 * 1e12, "flop"), 1024 * Q_(150, "TFLOP/s")).time
    assert duration.to("hour").magnitude == pytest.approx(hours, rel=1e-12)
    power = cluster_power(1024, Q_(400, "W"), hosts=1024 // 8, host_power=Q_(200, "W"))
    assert power.to("kW").magnitude == pytest.approx((1024 * 400 + 128 * 200) / 1e3, rel=1e-12)
    used = energy(power, duration)
    assert used.to("kWh").magnitude == pytest.approx(435.2 * hours, rel=1e-12)
    saved = operational_carbon(used / 2, Q_(400, "gCO2e/kWh"))
    assert saved.to("tCO2e").magnitude == pytest.approx(435.2 * hours / 2 * 0.4 / 1e3, rel=1e-12)


def test_gpt3_energy_patterson_2021() -> None:
    # Patterson et al. 2021, Table 4: GPT-3 on 10,000 V100 for 14.8 days at 330 W average,
    # PUE 1.1: 1,287 MWh; 0.429 kgCO2e/kWh: 552 tCO2e. Tolerance 2% (the paper rounds).
    power = cluster_power(10_000, Q_(330, "W"))
    used = energy(power, Q_(14.8, "day"), pue=1.1)
    assert used.to("MWh").magnitude == pytest.approx(1287, rel=0.02)
    assert operational_carbon(used, Q_(429, "gCO2e/kWh")).magnitude == pytest.approx(552, rel=0.02)


def test_bloom_energy_luccioni_2022() -> None:
    # Luccioni et al. 2022: BLOOM used 1,082,990 A100 GPU-hours; at 400 W that is 433 MWh.
    used = energy(Q_(400, "W"), Q_(1_082_990, "hour"))
    assert used.to("MWh").magnitude == pytest.approx(433, rel=0.02)


def test_chapter_rent_vs_buy_w12() -> None:
    # 8.4e23 FLOPs on 1,000 H100 at 50% of 989 TFLOP/s: 19.66 days; at USD 3 per GPU-hour
    # USD 1,415,571 of rental vs USD 30 M of purchase: break-even after 21.19 runs.
    days = iron_law(Q_(8.4e23, "flop"), 1000 * Q_(989, "TFLOP/s"), 0.5).time.to("day")
    gpu_hours = 1000 * days.to("hour")
    rental = rental_cost(gpu_hours, Q_(3, "USD/hour"))
    expected = 1000 * 8.4e23 / (1000 * 989e12 * 0.5) / 3600 * 3
    assert rental.magnitude == pytest.approx(expected, rel=1e-9)
    assert rental.magnitude == pytest.approx(1_415_571, rel=1e-6)  # the chapter's figure
    runs = break_even_runs(1000 * Q_(30_000, "USD"), rental)
    assert runs.magnitude == pytest.approx(30e6 / expected, rel=1e-9)


def test_chapter_data_pipeline_w08_and_network_wall_w09() -> None:
    # W-08: 32 x 1024 tokens at 500,000 tokens/s per core: 65.536 ms, 8.192 ms on 8 workers;
    # the int64 batch (262,144 B) over PCIe 3 (15.75 GB/s): 0.016644 ms.
    rate = Q_(500_000, "token/s")
    assert tokenization_time(32 * 1024, rate).magnitude == pytest.approx(65.536)
    assert tokenization_time(32 * 1024, rate, workers=8).magnitude == pytest.approx(8.192)
    pcie3 = mlcost.catalog().link("pcie-3-x16").per_direction
    chapter = transfer_time(Q_(262_144, "B"), Q_(15.75, "GB/s"))
    assert chapter.to("ms").magnitude == pytest.approx(262_144 / 15.75e9 * 1e3, rel=1e-12)
    assert transfer_time(Q_(262_144, "B"), pcie3).magnitude == pytest.approx(0.01664, rel=0.01)
    # W-09: 7B FP16 gradients = 14 GB; all-reduce moves 2x = 28 GB; at 12.5 GB/s: 2.24 s.
    volume = Q_(gradient_all_reduce_bytes(7e9 * 2), "B")
    assert volume.to("GB").magnitude == pytest.approx(28)
    assert (volume / Q_(100, "Gbit/s")).to("s").magnitude == pytest.approx(2.24)


def test_input_pipeline_takes_arrays_in_any_argument() -> None:
    """Workers, rates or readers given as arrays (a sweep) give, element by element, the answer
    of each configuration alone."""
    from mlcost.datapipe import data_stage_seconds

    base = {"stored_bytes_per_token": 4.0, "token_id_bytes": 8.0, "host_link": 1e10}
    swept = data_stage_seconds(
        1000.0, storage=np.array([1e9, 2e9]), tokenization_rate=1e5, workers=np.array([1, 2]),
        readers_sharing_storage=np.array([8, 4]), **base,
    )  # fmt: skip
    for i, (storage, workers, readers) in enumerate(((1e9, 1, 8), (2e9, 2, 4))):
        one = data_stage_seconds(
            1000.0, storage=storage, tokenization_rate=1e5, workers=workers,
            readers_sharing_storage=readers, **base,
        )  # fmt: skip
        for stage, value in one.items():
            assert np.broadcast_to(swept[stage], (2,))[i] == value, stage


def test_chinchilla_twenty_tokens_per_parameter() -> None:
    # C = 5.76e23: N = sqrt(C/120) = 69.3e9 and D = 1.386e12 (Chinchilla: 70B, 1.4T tokens).
    n, d = twenty_tokens_per_parameter(5.76e23)
    assert n == pytest.approx(69.28e9, rel=1e-3)
    assert d == pytest.approx(1.386e12, rel=1e-3)
    assert 6 * n * d == pytest.approx(5.76e23, rel=1e-12)


@pytest.mark.parametrize("fit", [HOFFMANN, EPOCH])
def test_compute_optimal_closed_form_by_hand(fit: object) -> None:
    budget = 5.76e23
    n_opt, d_opt = fit.compute_optimal(budget)  # type: ignore[attr-defined]
    assert 6 * n_opt * d_opt == pytest.approx(budget, rel=1e-12)
    # Hand check: minimize L(N, C/(6N)) over a fine log grid of N; the minimum sits at N_opt.
    grid = np.logspace(9, 12, 30001)
    losses = fit.loss(grid, budget / (6 * grid))  # type: ignore[attr-defined]
    assert grid[np.argmin(losses)] == pytest.approx(n_opt, rel=1e-3)
    # And the closed form written out here: G = (alpha A / (beta B))^(1/(alpha+beta)).
    a, b = fit.alpha, fit.beta  # type: ignore[attr-defined]
    g = (a * fit.A / (b * fit.B)) ** (1 / (a + b))  # type: ignore[attr-defined]
    assert n_opt == pytest.approx(g * (budget / 6) ** (b / (a + b)), rel=1e-12)


@pytest.mark.parametrize("fit", [HOFFMANN, EPOCH])
def test_distance_from_optimal_is_the_closed_form(fit: object) -> None:
    """``N / N_opt`` at the plan's own budget ``6·N·D`` is the closed form written out here, for
    numbers and for arrays."""
    from mlcost.scaling import distance_from_optimal

    fitted: Any = fit
    a, b = fit.alpha, fit.beta  # type: ignore[attr-defined]
    g = (a * fit.A / (b * fit.B)) ** (1 / (a + b))  # type: ignore[attr-defined]
    for parameters, tokens in ((70e9, 1.4e12), (7e9, 2e12), (175e9, 300e9)):
        by_hand = parameters / (g * (parameters * tokens) ** (b / (a + b)))
        number = distance_from_optimal(parameters, tokens, fitted)
        array = distance_from_optimal(np.array([parameters]), np.array([tokens]), fitted)
        assert number == pytest.approx(by_hand, rel=1e-12)
        assert array[0] == pytest.approx(by_hand, rel=1e-12)


@given(low=st.floats(1e18, 1e25), factor=st.floats(1.01, 1000))
def test_optimal_n_and_d_grow_with_compute(low: float, factor: float) -> None:
    for fit in (HOFFMANN, EPOCH):
        n1, d1 = fit.compute_optimal(low)
        n2, d2 = fit.compute_optimal(low * factor)
        assert n2 > n1 and d2 > d1


def test_embodied_carbon_and_catalog_grid_by_hand() -> None:
    # 1,000 GPU-hours of a device with 150 kgCO2e embodied over a 5-year (43,800 h) life:
    # 150 x 1000 / 43800 = 3.4247 kgCO2e.
    charged = embodied_carbon(Q_(1000, "hour"), Q_(150, "kgCO2e"), Q_(5 * 8760, "hour"))
    assert charged.to("kgCO2e").magnitude == pytest.approx(150 * 1000 / 43800, rel=1e-12)
    # Linear power model: at 50% utilization a 700 W GPU idling at 30% draws 210 + 245 W.
    assert accelerator_power(0.5, Q_(700, "W"), idle_fraction=0.3).magnitude == pytest.approx(
        0.3 * 700 + 0.7 * 700 * 0.5, rel=1e-12
    )
    # The default idle share is the sourced Assumptions.gpu_idle_fraction (0.15).
    idle = Assumptions().gpu_idle_fraction
    assert accelerator_power(0.5, Q_(700, "W")).magnitude == pytest.approx(
        idle * 700 + (1 - idle) * 700 * 0.5, rel=1e-12
    )
    # Operational carbon with a catalog grid (its intensity is a sourced, dated figure).
    world = mlcost.catalog().grid("world")
    emitted = operational_carbon(Q_(1000, "kWh"), world.carbon_intensity)
    assert emitted.to("kgCO2e").magnitude == pytest.approx(
        world.carbon_intensity.to("gCO2e/kWh").magnitude, rel=1e-12
    )


def test_electricity_cost_chapter_f64() -> None:
    # Chapter F-64 (T-17): cost = kWh x USD 0.10. 32 V100 x 300 W for 14 days = 3,225.6 kWh
    # (the catalog's D-23 correction of the chapter's 275,000 kWh) cost USD 322.56.
    used = energy(cluster_power(32, Q_(300, "W")), Q_(14, "day"))
    assert used.to("kWh").magnitude == pytest.approx(3225.6, rel=1e-12)
    assert electricity_cost(used, Q_(0.10, "USD/kWh")).magnitude == pytest.approx(322.56)
    assert electricity_cost(used, Q_(0.10, "USD/kWh"), pue=1.5).magnitude == pytest.approx(483.84)


def test_bloom_embodied_gpu_share_through_plan_defaults() -> None:
    # Luccioni et al. 2022, section 4.1: 150 kgCO2e per GPU amortized over 6 years at an 85% use
    # rate; BLOOM's 1,082,990 GPU-hours then carry 150 x 1,082,990 / (6 x 8766 h x 0.85)
    # = 3.63 tCO2e, the paper's "3.64 t" for the GPUs (rounding of its inputs: 1%).
    a = Assumptions()
    busy_life = a.gpu_lifetime * a.gpu_use_rate
    share = embodied_carbon(Q_(1_082_990, "hour"), a.embodied_carbon_per_gpu, busy_life)
    assert share.to("tCO2e").magnitude == pytest.approx(3.64, rel=0.01)


def test_magnitude_forms_equal_the_quantity_forms_by_hand() -> None:
    """The plain-number forms the plan's chain uses (W, s, kWh, hours, USD, tCO2e) agree with
    hand values and with the quantity forms: 1 kW for 1 h = 1 kWh; 1,000 kWh at 400 gCO2e/kWh
    = 0.4 t; a 150 kgCO2e GPU for 1,000 of its 43,800 lifetime hours = 3.42 kg; a pint month is
    365.25 x 24 / 12 = 730.5 h, so 8 GPUs at 2 USD/h cost 11,688 USD a month."""
    from mlcost import cost, energy

    assert energy.energy_kwh(1000.0, 3600.0) == pytest.approx(1.0, rel=1e-15)
    assert energy.energy(Q_(1, "kW"), Q_(1, "hour"), pue=1.5).m_as("kWh") == pytest.approx(1.5)
    assert energy.operational_tonnes(1000.0, 400.0) == pytest.approx(0.4, rel=1e-15)
    assert energy.embodied_tonnes(1000.0, 0.150, 43_800.0) == pytest.approx(0.150 / 43.8)
    assert cost.HOURS_PER_MONTH == 730.5
    months = cost.break_even_months(Q_(11_688, "USD"), 8, Q_(2, "USD/hour"))
    assert months.m_as("") == pytest.approx(1.0, rel=1e-15)
    assert cost.break_even_month_count(11_688.0, 8, 2.0) == pytest.approx(1.0, rel=1e-15)
    assert cost.ownership_usd(8, 30_000.0, 100.0, 1000.0, 50.0, 0.1) == pytest.approx(24_005.0)
    owned = cost.ownership_cost(8, Q_(30_000, "USD"), used_for=Q_(100, "hour"),
                                lifetime=Q_(1000, "hour"), energy_used=Q_(50, "kWh"),
                                electricity_price=Q_(0.1, "USD/kWh"))  # fmt: skip
    assert owned.m_as("USD") == pytest.approx(24_005.0)
