"""mlcost.Plan end to end: the chapter's worked examples through the whole chain, each expected
value derived by hand in the test from the chapter's inputs and the catalog's exact parameter
counts (the chapter rounds Llama-2-7B to 7e9 and Llama-2-70B to 70e9)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mlcost
from mlcost.assumptions import Assumptions
from mlcost.errors import MlcostError, UnknownNameError
from mlcost.plan import ComputeOptimalWarning, Plan
from mlcost.units import Q_
from mlcost.workload import TrainingConfig

CONFIG = TrainingConfig(micro_batch_size=1, sequence_length=2048)


def test_w23_carbon_example_through_plan() -> None:
    # Chapter W-23: 6·P·D at 150 TFLOP/s sustained per GPU on 1,024 A100 (400 W) plus 200 W per
    # 8-GPU host, PUE 1 (the chapter applies none). With P = 7e9 the chapter gets 75.95 h and
    # 33,056 kWh; with Llama-2-7B's exact P the same formulas give:
    n = mlcost.model("llama-2-7b").parameter_count  # 6,738,415,616
    tokens_per_step = 1 * 2048 * 1024
    steps = math.ceil(1e12 / tokens_per_step)  # the plan runs whole steps
    seconds = steps * 6 * n * tokens_per_step / 1024 / 150e12
    kwh = (1024 * 400 + 128 * 200) * seconds / 3600 / 1000
    plan = Plan(
        "llama-2-7b",
        gpu="a100-sxm4-80gb",
        gpus=1024,
        tokens=1e12,
        config=CONFIG,
        pue=1.0,
        region="us",
        sustained=Q_(150, "TFLOP/s"),
        flop_count="6ND",
    )
    train, used = plan.train(), plan.energy()
    # Tolerance 1e-9: the same arithmetic in another order (float rounding only).
    assert train["wall clock"].to("s").magnitude == pytest.approx(seconds, rel=1e-9)
    assert used["IT power"].to("kW").magnitude == pytest.approx(435.2, rel=1e-12)
    assert used["energy"].to("kWh").magnitude == pytest.approx(kwh, rel=1e-9)
    # The chapter's own figure scaled by the parameter ratio (whole steps add 1.7e-6).
    assert used["energy"].to("kWh").magnitude == pytest.approx(33_055.6 * n / 7e9, rel=1e-5)
    us = mlcost.catalog().grid("us").carbon_intensity.to("gCO2e/kWh").magnitude
    assert plan.carbon()["operational"].to("tCO2e").magnitude == pytest.approx(
        kwh * us / 1e6, rel=1e-9
    )


def test_w12_rent_vs_buy_through_plan() -> None:
    # Chapter W-12: 6·P·D with D = 2e12 on 1,000 H100 at 50% of 989 TFLOP/s, USD 3/GPU-hour,
    # USD 30,000 per GPU: 19.66 days, USD 1.416 M, break-even 21.19 runs for P = 70e9. With the
    # exact Llama-2-70B count the same formulas give (whole steps of 4 x 4096 x 1000 tokens):
    n = mlcost.model("llama-2-70b").parameter_count
    tokens_per_step = 4 * 4096 * 1000
    steps = math.ceil(2e12 / tokens_per_step)
    seconds = steps * 6 * n * tokens_per_step / 1000 / (0.5 * 989e12)
    rental = 1000 * seconds / 3600 * 3
    plan = Plan(
        "llama-2-70b",
        gpu="h100-sxm5-80gb",
        gpus=1000,
        tokens=2e12,
        config=TrainingConfig(micro_batch_size=4, sequence_length=4096),
        price=Q_(3, "USD/hour"),
        purchase_price=Q_(30_000, "USD"),
        sustained=Q_(0.5 * 989, "TFLOP/s"),
        flop_count="6ND",
    )
    cost = plan.cost()
    assert plan.train()["wall clock"].to("day").magnitude == pytest.approx(
        seconds / 86400, rel=1e-9
    )
    assert cost["rental"].magnitude == pytest.approx(rental, rel=1e-9)
    assert cost["break-even runs"].magnitude == pytest.approx(30e6 / rental, rel=1e-9)
    # The chapter's figures scaled by 70e9 / P (whole steps add 2e-6): 21.19 runs, 19.66 days.
    assert cost["break-even runs"].magnitude == pytest.approx(21.19285714 * 70e9 / n, rel=1e-5)
    assert plan.train()["wall clock"].to("day").magnitude == pytest.approx(
        19.6607 * n / 70e9, rel=1e-4
    )


def test_every_explained_figure_names_a_source() -> None:
    plan = Plan("gpt2-xl", system="dgx-a100", tokens=1e10, region="france")
    figures = plan.figures()
    assert len(figures) >= 15
    for figure in figures:
        assert figure.source and figure.source.strip() not in ("None", "unknown"), figure.name
        assert figure.formula, figure.name
    text = plan.explain()
    assert text.count("source:") == len(figures)


def test_summary_is_consistent_with_its_parts() -> None:
    # Relations that must hold between the figures (definitions, not model outputs).
    plan = Plan("llama-2-7b", gpu="h100-sxm5-80gb", gpus=16, tokens=1e11, zero_stage=3)
    train, used, cost = plan.train(), plan.energy(), plan.cost()
    wall_h = train["wall clock"].to("hour").magnitude
    assert train["GPU-hours"].to("hour").magnitude == pytest.approx(16 * wall_h, rel=1e-12)
    assert used["energy"].to("kWh").magnitude == pytest.approx(
        used["IT power"].to("kW").magnitude * wall_h * used["PUE"].magnitude, rel=1e-12
    )
    price = cost["price per GPU-hour"].magnitude
    assert cost["rental"].magnitude == pytest.approx(16 * wall_h * price, rel=1e-12)
    step = plan.step_time()
    assert step.total >= step.compute + step.communication
    assert step.total >= step.data
    assert step.communication.magnitude > 0  # 16 GPUs on two DGX H100 nodes exchange gradients


def test_data_bound_step_on_a_hard_disk() -> None:
    # GPT-2 (124M) streams raw text from one hard disk shared by 8 GPUs, each step 16 x 1024 tokens
    # x 4 B = 65,536 B per GPU, at HDD sequential x F_access / 8. With F_access = 0.01 (small
    # random reads) the read is about 180 ms, far above the ~25 ms compute of 6 x 124M x 16,384
    # FLOPs on an H100: the step is data-bound and takes the read time.
    hdd = mlcost.catalog().storage("hdd-seagate-exos-m-30tb")
    for factor in (0.1, 0.01):
        rate = hdd.sequential_read.to("B/s").magnitude * factor / 8
        expected_read = 16 * 1024 * 4 / rate
        plan = Plan(
            "gpt2",
            gpu="h100-sxm5-80gb",
            gpus=8,
            tokens=1e9,
            storage=hdd,
            config=TrainingConfig(micro_batch_size=16, sequence_length=1024),
            assumptions=Assumptions(storage_access_factor=factor),
        )
        step = plan.step_time()
        read = step.data_stages["read"].to("s").magnitude
        assert read == pytest.approx(expected_read, rel=1e-12)
        busy = (step.compute + step.communication).to("s").magnitude
        assert step.data_bound == (expected_read > busy)
        assert step.total.to("s").magnitude == pytest.approx(max(expected_read, busy), rel=1e-12)
    assert step.data_bound and step.bound == "data (read)"  # the F_access = 0.01 case


def test_far_from_compute_optimal_warns() -> None:
    # GPT-2 (124M) on 1e12 tokens: C = 6·N·D puts N_opt in the billions, N/N_opt << 1/3.
    plan = Plan("gpt2", gpu="h100-sxm5-80gb", tokens=1e12)
    with pytest.warns(ComputeOptimalWarning, match="larger model"):
        plan.train()
    near = Plan("llama-2-7b", gpu="h100-sxm5-80gb", tokens=20 * 6.738e9)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ComputeOptimalWarning)
        near.train()


def test_best_model_for_a_day_budget_spends_it() -> None:
    # days x GPUs x (MFU x peak) = C, and the answer is Chinchilla-optimal: 6·N·D = C.
    plan = Plan("llama-2-7b", gpu="h100-sxm5-80gb", gpus=64, tokens=1e11, zero_stage=3)
    rate = plan.train()["MFU"] * 989.4e12
    best = plan.best_model_for(days=30)
    c = 30 * 86400 * 64 * rate
    assert best["FLOPs"].to("flop").magnitude == pytest.approx(c, rel=1e-9)
    n, d = best["parameters"].magnitude, best["tokens"].magnitude
    assert 6 * n * d == pytest.approx(c, rel=1e-9)
    both = plan.best_model_for(days=30, usd=1.0)  # the tighter budget binds
    assert both["FLOPs"] < best["FLOPs"]


def test_sweep_rows_match_single_plans() -> None:
    base = Plan("gpt2-xl", gpu="a100-sxm4-80gb", gpus=8, tokens=1e10, region="us")
    frame = base.sweep(
        gpu=["a100-sxm4-80gb", "h100-sxm5-80gb"],
        micro_batch_size=[1, 4],
        gpus=[8, 64],
        region=["us", "france"],
    )
    assert len(frame) == 2 * 2 * 2 * 2
    row = frame[
        (frame.gpu == "h100-sxm5-80gb")
        & (frame.micro_batch_size == 4)
        & (frame.gpus == 64)
        & (frame.region == "france")
    ].iloc[0]
    single = Plan(
        "gpt2-xl",
        gpu="h100-sxm5-80gb",
        gpus=64,
        tokens=1e10,
        region="france",
        config=TrainingConfig(micro_batch_size=4, sequence_length=2048),
    )
    assert row.step_s == pytest.approx(single.step_time().total.to("s").magnitude, rel=1e-12)
    assert row.energy_kwh == pytest.approx(single.energy()["energy"].to("kWh").magnitude, rel=1e-12)
    assert row.operational_t == pytest.approx(
        single.carbon()["operational"].to("tCO2e").magnitude, rel=1e-12
    )


def test_sweep_rejects_unknown_axes_with_a_suggestion() -> None:
    plan = Plan("gpt2", gpu="h100-sxm5-80gb")
    with pytest.raises(UnknownNameError, match="micro_batch_size"):
        plan.sweep(micro_batch_sizes=[1, 2])
    with pytest.raises(MlcostError, match="empty"):
        plan.sweep(gpus=[])


def test_bad_inputs_are_named() -> None:
    with pytest.raises(MlcostError, match="gpu="):
        Plan("gpt2")
    with pytest.raises(MlcostError, match="pue"):
        Plan("gpt2", gpu="h100-sxm5-80gb", pue=0.5)
    with pytest.raises(MlcostError, match="sustained"):
        Plan("gpt2", gpu="h100-sxm5-80gb", sustained=Q_(5, "GB/s"))
    with pytest.raises(UnknownNameError, match="h100"):
        Plan("gpt2", gpu="h100-sxm9")


@settings(max_examples=25, deadline=None)
@given(
    gpus=st.integers(min_value=1, max_value=4096),
    intensity_region=st.sampled_from(["us", "france", "india", "world"]),
)
def test_carbon_and_cost_scale_with_their_inputs(gpus: int, intensity_region: str) -> None:
    # Operational CO2e is energy x the region's intensity whatever the GPU count, and every
    # figure stays finite and positive from 1 to 4,096 GPUs (communication included).
    plan = Plan("gpt2", gpu="h100-sxm5-80gb", gpus=gpus, tokens=1e10, region=intensity_region)
    carbon = plan.carbon()
    kwh = plan.energy()["energy"].to("kWh").magnitude
    intensity = carbon["grid intensity"].to("gCO2e/kWh").magnitude
    assert carbon["operational"].to("tCO2e").magnitude == pytest.approx(kwh * intensity / 1e6)
    assert carbon["embodied"].magnitude > 0
    assert np.isfinite(kwh) and kwh > 0


def test_multi_gpu_plan_uses_the_parallel_model() -> None:
    # With GPUs > 1 the plan's step is the data-parallel step of mlcost.parallel (ZeRO-1 over
    # all GPUs on the system's links): the same compute and exposed communication.
    from mlcost.parallel import Layout, multi_gpu_step_time

    config = TrainingConfig(micro_batch_size=2, sequence_length=4096)
    plan = Plan("llama-2-7b", system="dgx-h100", gpus=32, tokens=1e11, config=config, zero_stage=1)
    layout = Layout(dp=32, micro_batch_size=2, gradient_accumulation=1, zero_stage=1)
    reference = multi_gpu_step_time(mlcost.model("llama-2-7b"), config, "dgx-h100", layout)
    step = plan.step_time()
    exposed = reference.exposed_communication.to("s").magnitude
    assert step.communication.to("s").magnitude == pytest.approx(exposed, rel=1e-9)
    compute = (reference.compute + reference.bubble).to("s").magnitude
    assert step.compute.to("s").magnitude == pytest.approx(compute, rel=1e-9)
    assert step.mfu == pytest.approx(reference.mfu(), rel=1e-9)
