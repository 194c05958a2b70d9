"""mlcost.Plan end to end: the chapter's worked examples through the whole chain, each expected
value derived by hand in the test from the chapter's inputs and the catalog's exact parameter
counts (the chapter rounds Llama-2-7B to 7e9 and Llama-2-70B to 70e9); layouts given and
searched; runs that do not fit; the same run named by its GPU and by its node."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mlcost
from mlcost.assumptions import Assumptions
from mlcost.errors import MlcostError, UnknownNameError
from mlcost.layout import Layout
from mlcost.memory import memory_breakdown
from mlcost.parallel import multi_gpu_step_time
from mlcost.plan import ComputeOptimalWarning, DoesNotFitError, Plan
from mlcost.plan.chain import Numbers, evaluate_run
from mlcost.specs import Attached, Node
from mlcost.uncertainty import calibration, step_time_band
from mlcost.units import Q_
from mlcost.workload import OperatorTable, TrainingConfig, transformer

CONFIG = TrainingConfig(sequence_length=2048)
#: The chapter's carbon example (W-23): 8 A100 (400 W TDP) per host and 200 W of host power:
#: a node of 8 x 400 + 200 = 3,400 W.
CHAPTER_NODE = Node(
    name="chapter-a100-host",
    accelerator="a100-sxm4-80gb",
    accelerators_per_node=8,
    intra_node_link="nvlink-3",
    nics=(Attached(link="infiniband-hdr", count=8),),
    power=Q_(3400, "W"),
)


def test_w23_carbon_example_through_plan() -> None:
    # Chapter W-23: 6·P·D at 150 TFLOP/s sustained per GPU on 1,024 A100 (400 W) plus 200 W per
    # 8-GPU host, PUE 1 (the chapter applies none), no failures. With P = 7e9 the chapter gets
    # 75.95 h and 33,056 kWh; with Llama-2-7B's exact P the same formulas give:
    n = mlcost.model("llama-2-7b").parameter_count  # 6,738,415,616
    tokens_per_step = 1 * 2048 * 1024
    steps = math.ceil(1e12 / tokens_per_step)  # the plan runs whole steps
    seconds = steps * 6 * n * tokens_per_step / 1024 / 150e12
    kwh = (1024 * 400 + 128 * 200) * seconds / 3600 / 1000
    plan = Plan(
        "llama-2-7b",
        system=CHAPTER_NODE,
        gpus=1024,
        layout=Layout(zero_stage=1),  # ZeRO-1 over the 1,024 GPUs: it fits (pure DP does not)
        tokens=1e12,
        config=CONFIG,
        pue=1.0,
        region="us",
        sustained=Q_(150, "TFLOP/s"),
        flop_count="6ND",
        failures=False,
    )
    train, used = plan.train(), plan.energy()
    # Tolerance 1e-9: the same arithmetic in another order (float rounding only).
    assert train["wall clock"].to("s").magnitude == pytest.approx(seconds, rel=1e-9)
    assert used["IT power"].to("kW").magnitude == pytest.approx(435.2, rel=1e-12)
    assert used["energy"].to("kWh").magnitude == pytest.approx(kwh, rel=1e-9)
    # The chapter's own figure scaled by the parameter ratio (whole steps add 1.7e-6).
    assert used["energy"].to("kWh").magnitude == pytest.approx(33_055.6 * n / 7e9, rel=1e-5)
    us = mlcost.catalog().grid("us").carbon_intensity.to("gCO2e/kWh").magnitude
    assert plan.carbon()["operational CO2e"].to("tCO2e").magnitude == pytest.approx(
        kwh * us / 1e6, rel=1e-9
    )


def test_w12_rent_vs_buy_through_plan() -> None:
    # Chapter W-12: 6·P·D with D = 2e12 on 1,000 H100 at 50% of 989 TFLOP/s, USD 3/GPU-hour,
    # USD 30,000 per GPU: 19.66 days, USD 1.416 M, break-even 21.19 runs for P = 70e9. With the
    # exact Llama-2-70B count the same formulas give (whole steps of 4 x 4096 x 1000 tokens, a
    # layout of those tokens per step that fits):
    n = mlcost.model("llama-2-70b").parameter_count
    tokens_per_step = 4 * 4096 * 1000
    steps = math.ceil(2e12 / tokens_per_step)
    seconds = steps * 6 * n * tokens_per_step / 1000 / (0.5 * 989e12)
    rental = 1000 * seconds / 3600 * 3
    layout = Layout(
        dp=125, tp=8, micro_batch_size=4, gradient_accumulation=8, zero_stage=1, recompute="full"
    )
    plan = Plan(
        "llama-2-70b",
        gpu="h100-sxm5-80gb",
        gpus=1000,
        layout=layout,
        tokens=2e12,
        config=TrainingConfig(sequence_length=4096),
        price=Q_(3, "USD/hour"),
        purchase_price=Q_(30_000, "USD"),
        sustained=Q_(0.5 * 989, "TFLOP/s"),
        flop_count="6ND",
        failures=False,
    )
    cost = plan.cost()
    assert plan.train()["wall clock"].to("day").magnitude == pytest.approx(
        seconds / 86400, rel=1e-9
    )
    assert cost["rental cost"].magnitude == pytest.approx(rental, rel=1e-9)
    assert cost["rent-vs-buy break-even"].magnitude == pytest.approx(30e6 / rental, rel=1e-9)
    # The chapter's figures scaled by 70e9 / P (whole steps add 2e-6): 21.19 runs, 19.66 days.
    assert cost["rent-vs-buy break-even"].magnitude == pytest.approx(
        21.19285714 * 70e9 / n, rel=1e-5
    )
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


def test_figures_follow_from_each_other() -> None:
    # Relations between the stages of the chain (definitions, here derived by hand).
    plan = Plan(
        "llama-2-7b", gpu="h100-sxm5-80gb", gpus=16, tokens=1e11, layout=Layout(zero_stage=3)
    )
    train, used, cost = plan.train(), plan.energy(), plan.cost()
    wall_h = train["wall clock"].to("hour").magnitude
    assert train["GPU-hours"].to("hour").magnitude == pytest.approx(16 * wall_h, rel=1e-12)
    pue = mlcost.catalog().grid("world").pue or Assumptions().fallback_pue
    assert used["energy"].to("kWh").magnitude == pytest.approx(
        used["IT power"].to("kW").magnitude * wall_h * pue, rel=1e-12
    )
    price = plan.run.price
    assert cost["rental cost"].magnitude == pytest.approx(16 * wall_h * price, rel=1e-12)
    assert plan.step_time().communication.magnitude > 0  # two nodes exchange gradients


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
            layout=Layout(micro_batch_size=16, gradient_accumulation=1),
            config=TrainingConfig(sequence_length=1024),
            assumptions=Assumptions(storage_access_factor=factor),
        )
        step = plan.step_time()
        read = step.data_stages["read"].to("s").magnitude
        assert read == pytest.approx(expected_read, rel=1e-12)
        # Compute and communication carry the default implementation's calibration (its one
        # correction factor, mlcost.uncertainty); the input pipeline does not.
        factor = calibration("megatron-core").factor  # type: ignore[union-attr]
        busy = (step.compute + step.communication).to("s").magnitude * factor
        assert step.data_bound == (expected_read > busy)
        assert step.total.to("s").magnitude == pytest.approx(max(expected_read, busy), rel=1e-12)
    assert step.data_bound and step.bound == "data (read)"  # the F_access = 0.01 case


def test_far_from_compute_optimal_warns() -> None:
    # GPT-2 (124M) on 1e12 tokens: C = 6·N·D puts N_opt in the billions, N/N_opt << 1/3.
    plan = Plan("gpt2", gpu="h100-sxm5-80gb", tokens=1e12)
    with pytest.warns(ComputeOptimalWarning, match="larger model"):
        plan.train()
    near = Plan("llama-2-7b", gpu="h100-sxm5-80gb", gpus=8, tokens=20 * 6.738e9)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ComputeOptimalWarning)
        near.train()


def test_best_model_for_a_day_budget_spends_it() -> None:
    # days x GPUs x (MFU x peak) = C, and the answer is Chinchilla-optimal: 6·N·D = C.
    plan = Plan(
        "llama-2-7b", gpu="h100-sxm5-80gb", gpus=64, tokens=1e11, layout=Layout(zero_stage=3)
    )
    rate = plan.train()["MFU"].to("").magnitude * 989.4e12  # the H100 SXM5 dense BF16 peak
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
    assert row.problem == ""
    searched = base.run.layout
    layout = searched.model_copy(
        update={
            "micro_batch_size": 4,
            "dp": 1,
            "global_batch_size": None,
            "gradient_accumulation": searched.micro_batches,
        }
    )
    single = Plan(
        "gpt2-xl", gpu="h100-sxm5-80gb", gpus=64, tokens=1e10, region="france", layout=layout
    )
    assert row.step_s == pytest.approx(single.step_time().total.to("s").magnitude, rel=1e-12)
    assert row.energy_kwh == pytest.approx(single.energy()["energy"].to("kWh").magnitude, rel=1e-12)
    assert row.operational_t == pytest.approx(
        single.carbon()["operational CO2e"].to("tCO2e").magnitude, rel=1e-12
    )


def test_sweep_marks_what_does_not_fit() -> None:
    plan = Plan(
        "llama-2-7b", gpu="a100-sxm4-80gb", gpus=8, layout=Layout(zero_stage=1),
        price=Q_(2, "USD/hour"),
    )  # fmt: skip
    frame = plan.sweep(micro_batch_size=[1, 64])
    small, huge = frame.iloc[0], frame.iloc[1]
    assert small.problem == "" and np.isfinite(small.rental_usd)
    assert huge.problem.startswith("does not fit: needs") and np.isnan(huge.rental_usd)


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
    with pytest.raises(MlcostError, match="layout"):
        Plan("gpt2", gpu="h100-sxm5-80gb", gpus=8, layout=Layout(dp=3))


@settings(max_examples=20, deadline=None)
@given(
    gpus=st.sampled_from([1, 2, 8, 64, 512, 4096]),
    intensity_region=st.sampled_from(["us", "france", "india", "world"]),
)
def test_carbon_and_cost_scale_with_their_inputs(gpus: int, intensity_region: str) -> None:
    # Operational CO2e is energy x the region's intensity whatever the GPU count, and every
    # figure stays finite and positive from 1 to 4,096 GPUs (communication included).
    plan = Plan("gpt2", gpu="h100-sxm5-80gb", gpus=gpus, tokens=1e10, region=intensity_region)
    carbon = plan.carbon()
    kwh = plan.energy()["energy"].to("kWh").magnitude
    intensity = plan.run.grid.carbon_intensity.to("gCO2e/kWh").magnitude
    assert carbon["operational CO2e"].to("tCO2e").magnitude == pytest.approx(
        kwh * intensity / 1e6, rel=1e-9
    )
    assert carbon["embodied CO2e"].magnitude > 0
    assert np.isfinite(kwh) and kwh > 0


# ----- layouts --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "layout",
    [
        Layout(dp=4, micro_batch_size=2, gradient_accumulation=2, zero_stage=1),
        Layout(dp=2, tp=4, micro_batch_size=1, gradient_accumulation=4, sequence_parallel=True),
        Layout(dp=2, tp=2, pp=2, micro_batch_size=1, gradient_accumulation=8, zero_stage=1),
        Layout(dp=2, cp=2, pp=2, virtual_stages=2, micro_batch_size=1, gradient_accumulation=4,
               zero_stage=3),
        Layout(dp=2, tp=2, pp=2, micro_batch_size=1, gradient_accumulation=7, recompute="every-k",
               recompute_every=3),
    ],
)  # fmt: skip
def test_plan_of_a_layout_is_that_layouts_step_and_memory(layout: Layout) -> None:
    config = TrainingConfig(sequence_length=4096)
    plan = Plan("llama-2-7b", system="dgx-h100", layout=layout, config=config, tokens=1e11)
    step = plan.step_time()
    reference = multi_gpu_step_time("llama-2-7b", config, "dgx-h100", layout)
    assert not step.data_bound  # the NVMe input pipeline is far faster than the step
    assert step.total.to("s").magnitude == pytest.approx(
        reference.total.to("s").magnitude, rel=1e-12
    )
    assert step.communication.to("s").magnitude == pytest.approx(
        reference.exposed_communication.to("s").magnitude, rel=1e-12
    )
    assert step.mfu == pytest.approx(reference.mfu(), rel=1e-12)
    assert list(step.detail.terms["exposed"]) == pytest.approx(list(reference.terms["exposed"]))
    memory = memory_breakdown(
        "llama-2-7b", config, "h100-sxm5-80gb", layout, implementation=plan.run.software
    )
    assert plan.memory().total == memory.total
    # The chain's memory (what decides whether the run fits) is the memory model's, to the bit:
    # with one operator table for the step and the memory stages, built once, where the GPU
    # holds the whole sequence (no context parallelism), and each stage's own otherwise.
    # Counted where a transformer's table is built (the name its builder calls).
    tables: list[OperatorTable] = []

    def counted(*args: Any, **kwargs: Any) -> OperatorTable:
        tables.append(OperatorTable(*args, **kwargs))
        return tables[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(transformer, "OperatorTable", counted)
        chain = evaluate_run(plan.run, Numbers.of(plan.run))
    assert chain.time.memory_gib * 2**30 == memory.total.to("byte").magnitude
    assert len(tables) == (1 if layout.cp == 1 else 2)
    assert plan.figures()[0].value.startswith("fits" if memory.fits() else "does not fit")


def test_llama_70b_on_1024_gpus_searches_a_layout_that_fits() -> None:
    plan = Plan("llama-2-70b", gpu="h100-sxm5-80gb", gpus=1024, tokens=2e12)
    assert plan.fits and "fastest" in plan.run.layout_source
    assert plan.summary().index[1] == "layout"  # named, right after the verdict
    layout = plan.run.layout
    reference = multi_gpu_step_time("llama-2-70b", TrainingConfig(), "dgx-h100", layout)
    assert plan.train()["MFU"].to("").magnitude == pytest.approx(reference.mfu(), rel=1e-9)


def test_of_tied_layouts_the_plan_runs_the_one_with_fewest_parallel_dimensions() -> None:
    # Llama-2-7B on one DGX H100: data parallelism over 8 and 4 x 2 context-parallel ranks
    # put the same 8 x 2048 tokens through the same GEMMs, so their steps differ by far less
    # than the model can tell (the step-time band's resolution, Assumptions.
    # layout_tie_tolerance); the plan runs the plain one. With no tolerance it runs the
    # search's first, whatever that is, when it may choose every knob (search_layout_knobs),
    # and otherwise the first at Megatron's defaults for what runs rarely state.
    from mlcost.parallel import search
    from mlcost.parallel.search import unstated_knobs

    plan = Plan("llama-2-7b", system="dgx-h100", gpus=8)
    r = plan.run
    result = search(r.model, r.system, r.layout.global_batch_size, config=r.config, gpus=8,
                    keep_unfit=False, implementation=r.software)  # fmt: skip
    steps = result.frame["step_s"].to_numpy()
    layout = r.layout
    assert (layout.tp, layout.pp, layout.cp, layout.ep, layout.virtual_stages) == (1, 1, 1, 1, 1)
    chosen = multi_gpu_step_time(r.model, r.config, r.system, layout, implementation=r.software)
    assert chosen.total.to("s").magnitude <= steps[0] * (1 + step_time_band().resolution)
    searched = Assumptions(layout_tie_tolerance=0.0, search_layout_knobs=True)
    exact = Plan("llama-2-7b", system="dgx-h100", gpus=8, assumptions=searched)
    assert exact.run.layout == result.layout(0)
    held = Plan("llama-2-7b", system="dgx-h100", gpus=8,
                assumptions=Assumptions(layout_tie_tolerance=0.0))  # fmt: skip
    first = result.layout(int(result.held_at(unstated_knobs(r.software))[0]))
    assert held.run.layout == first
    assert (first.micro_batch_size, first.virtual_stages, first.tp_overlap) == (1, 1, False)
    assert "search_layout_knobs" in r.layout_source  # the plan says what it held


def test_a_plan_that_searched_its_layout_suggests_from_that_search(monkeypatch) -> None:
    # The suggestions' "layouts of the search" are the search's two best: a plan that searched
    # its layout answers from that search (the same question) instead of searching again.
    from mlcost.parallel import search
    from mlcost.plan import fit

    plan = Plan("llama-2-7b", system="dgx-h100", gpus=8)
    r = plan.run
    best = search(r.model, r.system, r.layout.global_batch_size, config=r.config, gpus=8,
                  top=2, implementation=r.software).layouts()  # fmt: skip

    def again(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("searched again")

    monkeypatch.setattr(fit, "search", again)
    found = [s.layout for s in plan.suggestions(limit=10) if "of the search" in s.change]
    assert found == best and len(best) == 2


def test_a_run_that_does_not_fit_is_never_priced() -> None:
    # 69B parameters x 16 B/param on every GPU (plain data parallelism): over 1 TB per GPU.
    plan = Plan("llama-2-70b", gpu="h100-sxm5-80gb", gpus=1024, tokens=2e12, layout=Layout(dp=1024))
    assert not plan.fits
    assert plan.summary().iloc[0]["value"].startswith("does not fit: needs")
    assert "rental cost" not in plan.summary().index
    for answer in (plan.train, plan.energy, plan.cost, plan.carbon):
        with pytest.raises(DoesNotFitError, match="does not fit"):
            answer()
    suggestions = plan.suggestions()
    assert len(suggestions) >= 2
    for suggestion in suggestions:
        tried = Plan(
            "llama-2-70b", gpu="h100-sxm5-80gb", gpus=suggestion.gpus, tokens=2e12,
            layout=suggestion.layout,
        )  # fmt: skip
        assert tried.fits, suggestion.text()


def test_llama_31_405b_tp8_pp16_over_126_layers() -> None:
    # Llama 3 (Dubey et al. 2024, section 3.3.2): 126 layers on 16 stages, one layer fewer on the
    # first and the last (they also run the embedding and the LM head): 7 + 14 x 8 + 7.
    layout = Layout(
        dp=128, tp=8, pp=16, micro_batch_size=1, global_batch_size=2048, zero_stage=1,
        sequence_parallel=True, recompute="full",
    )  # fmt: skip
    assert layout.stage_layer_counts(126) == (7,) + (8,) * 14 + (7,)
    plan = Plan(
        "llama-3.1-405b", gpu="h100-sxm5-80gb", layout=layout, tokens=15.6e12,
        config=TrainingConfig(sequence_length=8192),
    )  # fmt: skip
    assert plan.gpu_count == 16_384
    assert plan.fits
    assert plan.train()["wall clock"].to("day").magnitude > 0


def test_the_same_run_named_by_its_gpu_or_its_node() -> None:
    by_gpu = Plan(
        "llama-2-7b", gpu="h100-sxm5-80gb", gpus=16, tokens=1e11, layout=Layout(zero_stage=1)
    )
    by_node = Plan(
        "llama-2-7b", system="dgx-h100", gpus=16, tokens=1e11, layout=Layout(zero_stage=1)
    )
    assert [f.text() for f in by_gpu.figures()] == [f.text() for f in by_node.figures()]
    # Both compare memory with what the GPU reports: 81,559 MiB = 79.65 GiB (nvidia-smi).
    assert by_gpu.memory().capacity.to("MiB").magnitude == 81_559


def test_the_search_uses_the_plans_gpus_not_the_nodes_they_take() -> None:
    # 75 GPUs take ten 8-GPU nodes (80 GPUs); the layout searched must use exactly 75.
    plan = Plan("llama-2-70b", gpu="h100-sxm5-80gb", gpus=75, tokens=2e12)
    assert plan.run.layout.gpus == 75
    assert plan.fits == bool(plan.memory().fits())
    # 64 GPUs of a 256-GPU SuperPOD unit: the run uses 8 of its 32 nodes.
    part = Plan("llama-2-70b", system="dgx-h100-superpod-su", gpus=64, tokens=2e12)
    assert part.run.layout.gpus == 64 and part.run.system.nodes == 8


def test_without_a_batch_the_plan_steps_4m_tokens_as_llama_2_did() -> None:
    # Touvron et al. 2023 (Llama 2), section 2.2: "a global batch-size of 4M tokens"; at 2048
    # tokens per sequence that is 2048 sequences, 256 per GPU on 8 GPUs.
    plan = Plan("llama-2-7b", gpu="h100-sxm5-80gb", gpus=8, tokens=2e12)
    assert plan.run.layout.global_batch == 2048
    assert plan.run.layout.gpus == 8


def test_each_answer_shows_the_figures_the_whole_plan_shows() -> None:
    """``train()``, ``energy()``, ``cost()`` and ``carbon()`` build only the stages they need,
    and of the stages named lazily (the run's and the step's) only the figures they show;
    their figures equal (value, formula, numbers, source, band) those of the whole plan's
    ``figures()`` (the oracle), whether asked before or after it."""

    def plan() -> Plan:
        return Plan("llama-2-7b", system="dgx-h100", gpus=16, tokens=2e11)

    answers = ("train", "energy", "cost", "carbon")
    first = {name: getattr(plan(), name)().entries for name in answers}
    whole = plan()
    everything = {f.name: f for f in whole.figures()}
    for name in answers:
        for figure in first[name]:
            assert repr(figure) == repr(everything[figure.name]), figure.name
        assert [f.name for f in first[name]] == [f.name for f in getattr(whole, name)().entries], (
            name
        )
    assert len(first["train"]) == 8 and len(first["carbon"]) == 5


def test_an_answer_raises_when_asked() -> None:
    """An answer evaluates its numbers when asked, so what cannot be computed raises then: a
    GPU without a TDP has no energy, cost or CO2e, but a time to train."""
    from mlcost.specs import default_catalog

    h100 = default_catalog().accelerator("h100-sxm5-80gb")
    gpu = h100.model_copy(update={"name": "h100-without-tdp", "tdp": None})
    plan = Plan("gpt2", gpu=gpu, tokens=1e9)
    for answer in (plan.energy, plan.cost, plan.carbon):
        with pytest.raises(MlcostError, match="h100-without-tdp has no tdp"):
            answer()
    train = plan.train()
    assert train["wall clock"] > Q_(0, "s")
    # 1e9 tokens in steps of the plan's global batch x 1024 tokens, whole steps (by hand).
    layout = plan.run.layout
    assert train["steps"] == Q_(math.ceil(1e9 / (layout.global_batch * 1024)), "dimensionless")


def test_the_default_price_is_the_newest_on_demand_offer_dated_in_utc_days() -> None:
    # Oracle: the catalog's price files read with yaml, the newest on-demand offer for the GPU
    # chosen by hand, and its age counted from today's date in UTC.
    import datetime
    from pathlib import Path

    import yaml

    folder = Path(mlcost.__file__).resolve().parent.parent / "specs" / "prices"
    offers = [yaml.safe_load(f.read_text()) for f in sorted(folder.glob("*.yaml"))]
    h100 = [o for o in offers if o["accelerator"] == "h100-sxm5-80gb"]
    newest = max((o for o in h100 if o["offer_type"] == "on-demand"), key=lambda o: o["date"])
    plan = Plan("gpt2", gpu="h100-sxm5-80gb", gpus=1, tokens=1e9)
    before = datetime.datetime.now(datetime.UTC).date()
    figure = plan.cost()["rental cost"]
    after = datetime.datetime.now(datetime.UTC).date()
    assert plan.run.price == float(newest["price_per_gpu_hour"].split()[0])
    source = plan.run.price_source
    assert source.startswith(f"{newest['name']}: {newest['provider']} "), source
    ages = {(day - newest["date"]).days for day in (before, after)}  # midnight between the two
    assert any(f"dated {newest['date']} ({age} days old)" in source for age in ages), source
    assert figure.magnitude > 0
