"""The mechanisms of issue 61, each against an outside oracle: Megatron-LM's code (what it sends
and when), Korthikanti et al. 2022 (Figure 1's memory), the measurements of one H100 under its
power limit (benchmarks/data/h100-2026-11-25) and Calculon's published parameters, and the
calibration and band by hand on small examples."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import mlcost
from mlcost.implementation import Software
from mlcost.implementation import implementation as implementation_of
from mlcost.layout import Layout
from mlcost.memory import MemoryTerm, memory_breakdown
from mlcost.memory.terms import MODEL_STATES
from mlcost.parallel import multi_gpu_step_time
from mlcost.published import (
    korthikanti_run,
    megatron_gpt,
    published_cases,
    training_ratios,
    validate_published,
)
from mlcost.roofline import Ceilings
from mlcost.specs import default_catalog
from mlcost.specs.hardware import TraceOrigin
from mlcost.uncertainty import (
    POOLED,
    calibration_factor,
    calibrations,
    corrected_ratios,
    leave_one_family_out,
    step_calibration,
)
from mlcost.workload import TrainingConfig

ROOT = Path(__file__).resolve().parents[1]
CONFIG = TrainingConfig(sequence_length=2048)


def _megatron(**update: object) -> Software:
    """Megatron-Core's profile with some fields changed."""
    software = implementation_of("megatron-core")
    return Software(spec=software.spec.model_copy(update=update), kernels=software.kernels)


def _collective(name: str, size: float, ranks: int = 8) -> float:
    return float(
        mlcost.collective_time("dgx-a100", name, mlcost.Q_(size, "byte"), ranks=ranks)
        .time.to("s")
        .magnitude
    )


def test_sequence_parallel_all_gather_is_redone_in_backward() -> None:
    # Megatron-LM (megatron/core/tensor_parallel/layers.py, LinearWithGradAccumulationAnd-
    # AsyncCommunication): per layer and micro-batch, forward all-gathers before the QKV and
    # first MLP GEMMs and reduce-scatters after the output and second MLP GEMMs; backward the
    # conjugates, plus the two all-gathers again for the weight gradients: 4 reduce-scatters
    # and 6 all-gathers of b·s·h·2 bytes over the 8 ranks, none overlapped without TP overlap
    # but the redone ones, behind the input-gradient GEMMs.
    model = megatron_gpt(6144, 4, 64, 51200, 2048)
    layout = Layout(tp=8, micro_batch_size=1, gradient_accumulation=1, sequence_parallel=True)
    step = multi_gpu_step_time(
        model, CONFIG, "dgx-a100", layout,
        implementation=_megatron(collectives_take_compute=False),
    )  # fmt: skip
    term = step.terms.set_index("strategy").loc["tensor parallel"]
    size = 2048 * 6144 * 2
    per_layer = 4 * _collective("reduce-scatter", size) + 6 * _collective("all-gather", size)
    assert term["time"] == pytest.approx(4 * per_layer, rel=1e-9)
    plain = multi_gpu_step_time(
        model, CONFIG, "dgx-a100", layout,
        implementation=_megatron(collectives_take_compute=False, sequence_parallel_regather=False),
    )  # fmt: skip
    before = plain.terms.set_index("strategy").loc["tensor parallel"]
    redone = 4 * 2 * _collective("all-gather", size)  # 4 layers, 2 all-gathers each
    assert before["time"] == pytest.approx(term["time"] - redone, rel=1e-9)
    assert before["exposed"] == pytest.approx(before["time"], rel=1e-12)
    # The redone all-gathers hide behind the input-gradient GEMMs (7/36 of the layer's GEMM
    # time) and expose what outlasts them.
    assert before["exposed"] <= term["exposed"] <= before["exposed"] + redone


def test_every_micro_batchs_pipeline_sends_are_exposed() -> None:
    # Megatron-LM's 1F1B (schedules.py): send_forward_recv_backward and send_backward_recv_
    # forward block every micro-batch, so the 2·m·v sends of b·s·h·2/t bytes are all exposed
    # (Calculon charges them the same way); without it only the fill and drain's 2(p-1)·v.
    model = megatron_gpt(4096, 8, 32, 51200, 2048)
    layout = Layout(tp=1, pp=4, micro_batch_size=1, gradient_accumulation=16)
    step = multi_gpu_step_time(model, CONFIG, "dgx-a100", layout, implementation="megatron-core")
    term = step.terms.set_index("strategy").loc["pipeline parallel"]
    assert term["calls"] == 2 * 16
    assert term["exposed"] == pytest.approx(term["time"], rel=1e-12)
    fill = multi_gpu_step_time(
        model, CONFIG, "dgx-a100", layout,
        implementation=_megatron(pipeline_sends_exposed=False, collectives_take_compute=False),
    ).terms.set_index("strategy").loc["pipeline parallel"]  # fmt: skip
    assert fill["exposed"] == pytest.approx(fill["time"] * 2 * 3 / (2 * 16), rel=1e-9)


def test_hidden_collectives_take_calculons_share_of_the_compute() -> None:
    # Calculon (Isaev et al. SC'23; systems/a100_80e.json): a collective overlapping compute
    # slows it by its network's processor_usage, 0.15 of its time over NVLink. The ZeRO-1
    # gradient reduce-scatter of 8 data-parallel ranks in one node hides behind backward.
    model = megatron_gpt(2048, 8, 16, 51200, 2048)
    layout = Layout(dp=8, micro_batch_size=1, gradient_accumulation=4, zero_stage=1)
    shared = multi_gpu_step_time(model, CONFIG, "dgx-a100", layout, implementation="megatron-core")
    free = multi_gpu_step_time(
        model, CONFIG, "dgx-a100", layout, implementation=_megatron(collectives_take_compute=False)
    )
    for strategy in ("ZeRO-1/2 gradients", "ZeRO-1/2 parameters"):
        a = shared.terms.set_index("strategy").loc[strategy]
        b = free.terms.set_index("strategy").loc[strategy]
        hidden = b["time"] - b["exposed"]
        assert hidden > 0
        assert a["exposed"] == pytest.approx(b["exposed"] + 0.15 * hidden, rel=1e-9)


def test_h100_gemms_at_the_clock_sustained_under_its_power_limit() -> None:
    # benchmarks/data/h100-2026-11-25/power_duty.json: square BF16 GEMMs at a 75 % duty cycle
    # ran 714 TFLOP/s (n = 4096) and 721 (n = 8192) where the burst ceiling predicts 746 and
    # 780; n = 2048 kept the 1,980 MHz boost clock. The curve is those ratios at 2n^3 FLOPs.
    run = json.loads((ROOT / "benchmarks/data/h100-2026-11-25/power_duty.json").read_text())
    measured = {
        (row["n"], row["duty"]): row["tflops"] for row in run["power_duty"] if row["duty"] == 0.75
    }
    assert measured[(4096, 0.75)] == pytest.approx(714, abs=0.5)
    assert measured[(8192, 0.75)] == pytest.approx(721, abs=0.5)
    ceilings = Ceilings.from_accelerator(mlcost.accelerator("h100-sxm5-80gb"), "bf16")
    for n, ratio in ((2048, 1.0), (4096, 714 / 746), (8192, 721 / 780)):
        assert ceilings.sustained_fraction(2.0 * n**3) == pytest.approx(ratio, abs=1.5e-3)
    a100 = Ceilings.from_accelerator(mlcost.accelerator("a100-sxm4-80gb"), "bf16")
    assert a100.sustained_fraction(2.0 * 8192**3) == 1.0  # not measured: the burst ceiling


@pytest.mark.parametrize("size", ["22B", "175B", "530B", "1T"])
def test_figure_1_memory_within_3_percent(size: str) -> None:
    # Korthikanti et al. 2022, Figure 1: 18 bytes per parameter (FP16 weights, FP32 main
    # gradients, FP32 master weights, Adam) and the activations of Table 2, 34·s·b·h/t per
    # layer with sequence parallelism and selective recomputation (q, k and v kept).
    for case in published_cases():
        if not case["id"].startswith(f"mem.korthikanti.{size}."):
            continue
        model, config, layout = korthikanti_run(case["conditions"])
        breakdown = memory_breakdown(
            model, config, "a100-sxm4-80gb", layout, implementation="megatron-core"
        )
        states = sum(breakdown.term(t).to("GiB").magnitude for t in MODEL_STATES)
        activations = breakdown.term(MemoryTerm.ACTIVATIONS).to("GiB").magnitude
        value = case["value"]
        assert states == pytest.approx(value["params_grads_optimizer_GiB"], rel=0.03)
        assert activations == pytest.approx(value["activations_GiB"], rel=0.03)


def test_selective_recomputation_keeps_q_k_and_v() -> None:
    # Korthikanti et al. 2022, Table 2: with sequence parallelism and selective recomputation a
    # layer keeps 34·s·b·h/t bytes; by hand for h = 1024, s = 512, b = 2, t = 4 (1-byte masks).
    model = megatron_gpt(1024, 2, 16, 51200, 512)
    layout = Layout(tp=4, micro_batch_size=2, sequence_parallel=True, recompute="selective")
    breakdown = memory_breakdown(
        model, TrainingConfig(sequence_length=512, attention="eager"), None, layout
    )
    # Two layers; PyTorch's layer norms also keep their mean and 1/std in FP32 (two per token
    # of a rank's sequence shard, two norms per layer), which Table 2 leaves out.
    expected = 2 * 34 * 512 * 2 * 1024 / 4 + 2 * 2 * (2 * 512 / 4) * 2 * 4
    assert breakdown.term(MemoryTerm.ACTIVATIONS).to("byte").magnitude == pytest.approx(
        expected, rel=1e-9
    )


def test_calibration_factor_and_leave_one_family_out_by_hand() -> None:
    # Two profiles: "a" with measured/predicted 1.1, 1.2, 1.3 (median 1.2), "b" with 0.9, 1.0.
    ratios = np.array([1.1, 1.2, 1.3, 0.9, 1.0])
    groups = np.array(["a", "a", "a", "b", "b"])
    assert calibration_factor(ratios[:3]) == pytest.approx(1.2)
    assert calibration_factor(np.array([])) == 1.0
    corrected = corrected_ratios(ratios, groups, np.ones(5, dtype=bool))
    assert corrected == pytest.approx([1.1 / 1.2, 1.0, 1.3 / 1.2, 0.9 / 0.95, 1.0 / 0.95])
    # Family x = the first two rows, y = the rest. Leaving x out, "a" is fitted on 1.3 alone and
    # "b" on 0.9, 1.0; the band (0th-100th percentiles) is the others' corrected range
    # [0.9/0.95, 1.0/0.95] = [0.947, 1.053]; x's 1.1/1.3 = 0.846 and 1.2/1.3 = 0.923 fall out.
    inside = leave_one_family_out(ratios, groups, np.array(["x", "x", "y", "y", "y"]), 0.0)
    assert not inside[0] and not inside[1]


def test_a_profile_without_published_runs_takes_the_pooled_factor_by_hand() -> None:
    # Fitted on the "b" rows only, "a" has no rows there: it takes the median of every row
    # fitted on (0.9, 1.0: 0.95), as a profile without published runs takes the pooled factor.
    ratios = np.array([1.1, 1.2, 1.3, 0.9, 1.0])
    groups = np.array(["a", "a", "a", "b", "b"])
    fitted_on = np.array([False, False, False, True, True])
    corrected = corrected_ratios(ratios, groups, fitted_on)
    assert corrected == pytest.approx(ratios / 0.95)


def test_the_pooled_factor_is_the_median_of_every_published_run() -> None:
    # 28 runs: the shipped factor is the median of their measured / uncorrected ratios, and a
    # profile without runs (ddp-eager) gets it on a catalog GPU, but not on the user's own
    # profile (mlcost calibrate), nor on one fitted from their profiled run (--trace).
    ratios, profiles, _ = training_ratios(validate_published())
    assert ratios.size == 28 and set(profiles.tolist()) == {"megatron-core", "fsdp"}
    pooled = calibrations()[POOLED]
    assert pooled.factor == pytest.approx(float(np.median(ratios)), rel=1e-5)
    h100 = default_catalog().accelerator("h100-sxm5-80gb")
    assert step_calibration("ddp-eager", h100) == pooled
    assert step_calibration("megatron-core", h100) == calibrations()["megatron-core"]
    assert step_calibration(None, h100) is None
    assert h100.measured is not None
    for field in ("based_on", "torch"):  # calibrate writes both for a GPU, torch for a CPU
        update = {"measured": h100.measured.model_copy(update={field: "x"})}
        own = h100.model_copy(update=update)
        assert step_calibration("ddp-eager", own) is None
        assert step_calibration("megatron-core", own) == calibrations()["megatron-core"]
    origin = TraceOrigin(
        file="step.json", sha256="0" * 64, device="cuda", steps=3, model="gpt2",
        micro_batch_size=8, sequence_length=1024, step_time=mlcost.Q_(100, "ms"),
    )  # fmt: skip
    traced = own.model_copy(
        update={"measured": own.measured.model_copy(update={"trace": origin})}  # type: ignore[union-attr]
    )
    assert step_calibration("megatron-core", traced) is None


def test_expert_parallel_all_to_all_hidden_as_a_layout_option() -> None:
    # Mixtral-8x7B's config.json: 32 layers, h 4096, 8 experts, top-2. Per MoE layer and
    # micro-batch: dispatch and combine forward, their conjugates backward (4 all-to-alls) of
    # the b·s·k routed token copies of h BF16 values, over the 8 expert-parallel ranks of one
    # DGX H100. Exposed without overlap; with Layout.ep_overlap (DualPipe, Megatron-Core's
    # --overlap-moe-expert-parallel-comm) hidden behind the other micro-batch's compute, which
    # then runs slower by Calculon's NVLink processor_usage, 0.15 of the hidden time.
    model = default_catalog().model("mixtral-8x7b")
    config = TrainingConfig(sequence_length=4096)
    message = 4096 * 2 * 4096 * 2
    calls = 4 * 32 * 4  # micro-batches x MoE layers x all-to-alls
    one = mlcost.collective_time("dgx-h100", "all-to-all", mlcost.Q_(message, "byte"), ranks=8)
    total = calls * float(one.time.to("s").magnitude)
    exposed = {}
    for overlap in (False, True):
        layout = Layout(
            dp=8, ep=8, zero_stage=1, micro_batch_size=1, gradient_accumulation=4,
            ep_overlap=overlap,
        )  # fmt: skip
        step = multi_gpu_step_time(
            model, config, "dgx-h100", layout, implementation="megatron-core"
        )
        term = step.terms.set_index("strategy").loc["expert parallel"]
        assert term["message_bytes"] == message
        assert term["time"] == pytest.approx(total, rel=1e-9)
        exposed[overlap] = term["exposed"]
    assert exposed[False] == pytest.approx(total, rel=1e-9)
    assert exposed[True] == pytest.approx(0.15 * total, rel=1e-9)


def test_ep_overlap_needs_expert_parallelism() -> None:
    with pytest.raises(ValueError, match=r"ep_overlap: .* needs ep > 1"):
        Layout(dp=8, ep_overlap=True)
