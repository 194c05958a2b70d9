"""The chapter's worked examples and the papers' closed forms, each derived by hand here."""

from __future__ import annotations

import numpy as np
import pytest

import mlcost
from mlcost.parallel import (
    Layout,
    communication_tax_speedup,
    end_to_end_training_time,
    implied_communication_fraction,
    multi_gpu_step_time,
    network_wall,
    pipeline_bubble_fraction,
    tensor_parallel_traffic,
    zero_communication_volume,
)
from mlcost.units import Q_
from mlcost.workload import TrainingConfig

EXACT = 1e-12  # float64 rounding only


# ----- W-09, the network wall (seed catalog §1.7 F-59 and W-09) --------------------------------
def test_network_wall_chapter_convention() -> None:
    # 7e9 params x 2 B (FP16) = 14 GB; x 2 (the chapter's ALLREDUCE_FACTOR) = 28 GB;
    # 28 GB / 12.5 GB/s (100 Gbit/s) = 2.24 s; with 1 s of compute the network is the bottleneck
    wall = network_wall(Q_(7e9, "param"), 2, Q_(100, "Gbit/s"), compute_time=Q_(1, "s"))
    assert wall.gradient_bytes.to("GB").magnitude == pytest.approx(14, rel=EXACT)
    assert wall.moved_bytes.to("GB").magnitude == pytest.approx(28, rel=EXACT)
    assert wall.communication_time.to("s").magnitude == pytest.approx(2.24, rel=EXACT)
    assert wall.bottleneck is True


def test_network_wall_ring_for_eight_gpus() -> None:
    # ring: 2(n-1)/n = 2 x 7/8 = 1.75; 1.75 x 14 GB = 24.5 GB; / 12.5 GB/s = 1.96 s
    wall = network_wall(Q_(7e9, "param"), 2, Q_(12.5, "GB/s"), ranks=8)
    assert wall.moved_bytes.to("GB").magnitude == pytest.approx(24.5, rel=EXACT)
    assert wall.communication_time.to("s").magnitude == pytest.approx(1.96, rel=EXACT)


# ----- the communication tax (seed catalog F-43, W-F3, D-24) -----------------------------------
@pytest.mark.parametrize(
    ("r", "n", "expected"),
    [
        # N / (1 + (N-1) r): 8 / (1 + 7 x 0.05) = 8 / 1.35 = 5.926; 256 / (1 + 255 x 0.05) = 18.618
        (0.05, 8, 8 / 1.35),
        (0.05, 256, 256 / 13.75),
        # 8 / (1 + 7 x 0.15) = 8 / 2.05 = 3.902; 256 / (1 + 255 x 0.4) = 256 / 103 = 2.485
        (0.15, 8, 8 / 2.05),
        (0.40, 256, 256 / 103),
        (0.0, 64, 64.0),
    ],
)
def test_communication_tax_curve(r: float, n: int, expected: float) -> None:
    assert communication_tax_speedup(n, r) == pytest.approx(expected, rel=EXACT)


def test_communication_tax_table_values_and_d24() -> None:
    # W-F3's computed table (3 decimals): r = 0.05 -> 5.926 at N=8, 18.618 at N=256
    assert communication_tax_speedup(8, 0.05) == pytest.approx(5.926, abs=5e-4)
    assert communication_tax_speedup(256, 0.05) == pytest.approx(18.618, abs=5e-4)
    # D-24: efficiency at N = 8 is 74%, 49%, 26% (not the alt text's 95/85/60%)
    efficiencies = communication_tax_speedup(8, np.array([0.05, 0.15, 0.40])) / 8
    assert efficiencies == pytest.approx([0.74, 0.49, 0.26], abs=5e-3)


def test_implied_fraction_inverts_the_curve() -> None:
    n = np.array([2, 16, 256])
    speedup = communication_tax_speedup(n, 0.15)
    assert implied_communication_fraction(speedup, n) == pytest.approx([0.15] * 3, rel=1e-12)


# ----- Narayanan et al. 2021 ---------------------------------------------------------------------
def test_narayanan_end_to_end_gpt3() -> None:
    # eq. (4): 8 T P / (n X) = 8 x 300e9 x 175e9 / (1024 x 140e12) s = 4.2e23 / 1.4336e17 s
    # = 2,929,687.5 s = 33.908 days ("about 34 days", section 5.1)
    days = end_to_end_training_time(
        Q_(300e9, "token"), Q_(175e9, "param"), 1024, Q_(140, "TFLOP/s")
    )
    assert days.to("s").magnitude == pytest.approx(2_929_687.5, rel=EXACT)
    assert days.to("day").magnitude == pytest.approx(34, rel=0.01)  # the paper rounds to 34


@pytest.mark.parametrize(
    ("p", "m", "v", "expected"),
    [(8, 32, 1, 7 / 32), (8, 32, 2, 7 / 64), (4, 4, 1, 0.75), (1, 16, 1, 0.0)],
)
def test_pipeline_bubble(p: int, m: int, v: int, expected: float) -> None:
    # section 2.2.1: (p-1)/m; section 2.2.2 (interleaved): (p-1)/(v·m)
    assert pipeline_bubble_fraction(p, m, v) == pytest.approx(expected, rel=EXACT)


def test_step_bubble_is_the_formula_times_ideal_compute() -> None:
    model_config = TrainingConfig(sequence_length=1024)
    model = mlcost.model("gpt2-xl")
    layout = Layout(dp=1, pp=4, micro_batch_size=1, gradient_accumulation=8)
    step = multi_gpu_step_time(model, model_config, "dgx-h100", layout)
    # bubble = (p-1)/m x m x t_stage = 3 x t_stage
    assert step.bubble.to("s").magnitude == pytest.approx(
        3 * step.stage_time.to("s").magnitude, rel=EXACT
    )
    interleaved = multi_gpu_step_time(
        model, model_config, "dgx-h100", layout.model_copy(update={"virtual_stages": 2})
    )
    assert interleaved.bubble.to("s").magnitude == pytest.approx(
        1.5 * step.stage_time.to("s").magnitude, rel=EXACT
    )


# ----- Rajbhandari et al. 2020, section 7 --------------------------------------------------------
@pytest.mark.parametrize(("stage", "units"), [(0, 2), (1, 2), (2, 2), (3, 3)])
def test_zero_volumes_in_model_sizes(stage: int, units: int) -> None:
    psi = Q_(7.5e9, "param")
    assert zero_communication_volume(psi, stage).to("param").magnitude == pytest.approx(
        units * 7.5e9, rel=EXACT
    )
    # with the ring's (n-1)/n for n = 64
    assert zero_communication_volume(psi, stage, 64).magnitude == pytest.approx(
        units * 7.5e9 * 63 / 64, rel=EXACT
    )
    ratio = zero_communication_volume(psi, 3) / zero_communication_volume(psi, 2)
    assert ratio.magnitude == pytest.approx(1.5, rel=EXACT)


@pytest.mark.parametrize(("stage", "units"), [(0, 2), (1, 2), (2, 2), (3, 3)])
def test_step_terms_send_the_zero_volumes(stage: int, units: int) -> None:
    model = mlcost.model("gpt2-xl")
    config = TrainingConfig(sequence_length=1024)  # bf16-mixed: 2-byte gradients and weights
    layout = Layout(dp=8, micro_batch_size=1, gradient_accumulation=1, zero_stage=stage)
    # DeepSpeed, the ZeRO paper's implementation, reduces gradients in the training dtype.
    step = multi_gpu_step_time(model, config, "dgx-h100", layout, implementation="deepspeed")
    sent = sum(t.sent.to("byte").magnitude for t in step.communication)
    # each GPU sends units x (n-1)/n x Psi x 2 bytes, n = 8
    assert sent == pytest.approx(units * 7 / 8 * model.parameter_count * 2, rel=1e-9)


# ----- Shoeybi et al. 2019 -----------------------------------------------------------------------
def test_tensor_parallel_traffic_hand_derivation() -> None:
    model = mlcost.model("llama-2-7b")  # L = 32, h = 4096, 32 heads (GPT-2 XL's 25 heads allow
    # only t = 1 or 5)
    # 4 all-reduces per layer and micro-batch of b·s·h·2 bytes: 4 x 32 x 1 x 1024 x 4096 x 2
    expected = 4 * 32 * 1024 * 4096 * 2
    assert tensor_parallel_traffic(1, 1024, 4096, 32).to("byte").magnitude == expected
    step = multi_gpu_step_time(
        model,
        TrainingConfig(sequence_length=1024),
        "dgx-h100",
        Layout(dp=1, tp=2, micro_batch_size=1, gradient_accumulation=1),
    )
    terms = step.terms.set_index("strategy")
    assert terms.loc["tensor parallel", "bytes"] == pytest.approx(expected, rel=EXACT)
    # full recomputation repeats the forward pair: 6 per layer
    full = tensor_parallel_traffic(1, 1024, 4096, 32, full_recompute=True)
    assert full.to("byte").magnitude == 6 * 32 * 1024 * 4096 * 2
