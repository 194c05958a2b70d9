"""The multi-GPU step: the interface the plan relies on, consistency with the single-GPU model,
uneven pipeline stages, layout validation, and the search."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mlcost
from mlcost.errors import MlcostError
from mlcost.memory import memory_breakdown
from mlcost.parallel import (
    CommOptions,
    Layout,
    MultiGpuStep,
    SearchSpace,
    multi_gpu_step_time,
    scaling_curve,
    search,
)
from mlcost.specs.models import MixtureOfExperts
from mlcost.timing import step_time
from mlcost.workload import TrainingConfig

EXACT = 1e-9  # same arithmetic on two paths; float64 rounding only

CONFIG = TrainingConfig(sequence_length=1024)


@pytest.fixture(scope="module")
def gpt2xl():
    return mlcost.model("gpt2-xl")


def test_interface() -> None:
    layout = Layout(dp=8, tp=2, pp=2, micro_batch_size=2, global_batch_size=64, zero_stage=1)
    step = multi_gpu_step_time("llama-2-7b", CONFIG, "dgx-h100", layout, nodes=4)
    assert isinstance(step, MultiGpuStep)
    for quantity in (step.total, step.compute, step.bubble, step.exposed_communication):
        assert quantity.check("[time]")
    assert isinstance(step.terms, pd.DataFrame)
    assert {"strategy", "collective", "bytes", "link", "time", "exposed", "hidden"} <= set(
        step.terms.columns
    )
    assert 0 < step.mfu() <= 1
    assert step.tokens_per_step == 64 * 1024
    text = step.explain()
    for needle in ("compute =", "bubble =", "Narayanan", "MFU", "tensor parallel"):
        assert needle in text
    # steps = ceil(1e9 / 65536) = 15259
    assert step.time_to_train(mlcost.Q_(1e9, "token")).steps == 15259


def test_one_gpu_equals_the_single_gpu_model(gpt2xl) -> None:
    layout = Layout(dp=1, micro_batch_size=4, gradient_accumulation=3)
    step = multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", layout)
    single = step_time(gpt2xl, CONFIG, mlcost.accelerator("h100-sxm5-80gb"), layout)
    # no communication, no bubble; compute = 3 micro-batches + 1 optimizer update, as the
    # single-GPU model counts them
    assert step.exposed_communication.magnitude == 0
    assert step.bubble.magnitude == 0
    assert step.uncorrected_total.to("s").magnitude == pytest.approx(
        single.total.to("s").magnitude, rel=EXACT
    )
    # The multi-GPU step carries the implementation's calibration, the operator model does not.
    factor = step.total / step.uncorrected_total
    assert step.mfu() * factor == pytest.approx(float(single.mfu()), rel=EXACT)


def test_context_parallel_and_zero_shard_memory_as_the_layout_says() -> None:
    # cp = 2 holds s/2 tokens per GPU: the same activations as 512-token sequences without
    # context parallelism; ZeRO-3 shards the weights over the dp x cp = 4 ranks holding them.
    llama = mlcost.model("llama-2-7b")
    gpu = mlcost.accelerator("h100-sxm5-80gb")
    split = memory_breakdown(llama, CONFIG, gpu, Layout(dp=2, cp=2, zero_stage=3))
    half = memory_breakdown(
        llama, TrainingConfig(sequence_length=512), gpu, Layout(dp=4, zero_stage=3)
    )
    assert split.term("activations") == half.term("activations")
    assert split.term("weights").to("byte").magnitude == pytest.approx(
        2 * llama.parameter_count / 4, rel=1e-12
    )


def test_overlap_off_exposes_everything(gpt2xl) -> None:
    layout = Layout(dp=16, micro_batch_size=4, global_batch_size=64)
    hidden = multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", layout, nodes=2)
    exposed = multi_gpu_step_time(
        gpt2xl, CONFIG, "dgx-h100", layout, nodes=2, options=CommOptions(overlap=False)
    )
    assert exposed.exposed_communication == exposed.total_communication
    assert hidden.exposed_communication < hidden.total_communication
    assert hidden.total < exposed.total


def test_expert_parallel_needs_moe_and_adds_all_to_all(gpt2xl) -> None:
    layout = Layout(dp=8, ep=8, micro_batch_size=1, gradient_accumulation=1)
    with pytest.raises(MlcostError, match="ep"):
        multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", layout)
    # The experts now come from the model spec: GPT-2 XL with 8 experts of its FFN, top-2.
    moe = gpt2xl.model_copy(
        update={"moe": MixtureOfExperts(num_experts=8, experts_per_token=2, expert_ffn_size=6400)}
    )
    step = multi_gpu_step_time(moe, CONFIG, "dgx-h100", layout)
    row = step.terms.set_index("strategy").loc["expert parallel"]
    # 48 MoE layers x 4 all-to-alls x (1 x 1024 tokens x top-2 x 1600 x 2 bytes)
    assert row["bytes"] == pytest.approx(48 * 4 * 1024 * 2 * 1600 * 2, rel=EXACT)
    assert row["exposed"] == pytest.approx(row["time"], rel=EXACT)


def test_uneven_pipeline_stages_cost_the_slowest(gpt2xl) -> None:
    # 48 layers on 5 stages: ceil(48/5) = 10 per stage less 2, taken from the two ends:
    # 9, 10, 10, 10, 9 (the layout module's rule, as Llama 3's 126 layers on 16 stages).
    layout = Layout(pp=5, micro_batch_size=1, gradient_accumulation=10)
    assert layout.stage_layer_counts(48) == (9, 10, 10, 10, 9)
    uneven = multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", layout)
    # A middle stage (10 layers, neither embedding nor head) is the slowest unless the 9-layer
    # last stage's head outweighs one layer; either way t_stage >= 10 layers' share of the
    # one-GPU step's layers.
    one = multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", Layout(micro_batch_size=1))
    layers_only = one.stage_time.to("s").magnitude
    assert uneven.stage_time.to("s").magnitude >= 10 / 48 * layers_only * (1 - 0.05)
    explicit = layout.model_copy(update={"stage_layers": (8, 10, 10, 10, 10)})
    assert explicit.stage_layer_counts(48) == (8, 10, 10, 10, 10)
    with pytest.raises(MlcostError, match="stage_layers"):
        multi_gpu_step_time(
            gpt2xl, CONFIG, "dgx-h100", layout.model_copy(update={"stage_layers": (9,) * 5})
        )


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"dp": 3, "micro_batch_size": 2, "global_batch_size": 8}, "global_batch_size"),
        ({"virtual_stages": 2}, "virtual_stages"),
        ({"dp": 4, "ep": 3}, "ep"),
        ({"dp": 0}, "dp"),
        ({"zero_stage": 4}, "zero_stage"),
        ({"recompute": "every-k"}, "recompute_every"),
        ({"pp": 2, "stage_layers": (1, 2, 3)}, "stage_layers"),
    ],
)
def test_layout_validation(fields: dict, match: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(MlcostError, match=match):
        Layout(**fields)


def test_layout_must_fit_model_and_system(gpt2xl) -> None:
    with pytest.raises(MlcostError, match="pp"):
        multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", Layout(pp=49))  # 48 layers
    with pytest.raises(MlcostError, match="tp"):
        multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", Layout(tp=16), nodes=2)
    with pytest.raises(MlcostError, match="GPUs"):
        multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", Layout(dp=64), nodes=2)


def test_nodes_default_to_what_the_layout_needs(gpt2xl) -> None:
    step = multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", Layout(dp=32, global_batch_size=64))
    assert step.system.nodes == 4
    assert step.terms.set_index("strategy").loc["data parallel", "link"] == "intra+inter"


def test_scaling_curve_strong_and_weak(gpt2xl) -> None:
    gpus = [1, 2, 4, 8, 16, 32, 64]
    strong = scaling_curve(
        gpt2xl, CONFIG, "dgx-h100", gpus, layout=Layout(micro_batch_size=1, global_batch_size=64)
    ).frame
    assert list(strong["gpus"]) == gpus
    assert strong["efficiency"].iloc[0] == pytest.approx(1.0, rel=EXACT)  # N = N0
    assert ((strong["efficiency"] > 0) & (strong["efficiency"] <= 1 + 1e-12)).all()
    weak = scaling_curve(
        gpt2xl, CONFIG, "dgx-h100", gpus, kind="weak",
        layout=Layout(micro_batch_size=4, gradient_accumulation=1),
    ).frame  # fmt: skip
    assert ((weak["efficiency"] > 0) & (weak["efficiency"] <= 1 + 1e-12)).all()
    # weak scaling is the chapter's curve with r = implied_r: N / (1 + (N-1) r) = speedup
    n = weak["gpus"].to_numpy()
    rebuilt = n / (1 + (n - 1) * weak["implied_r"].to_numpy())
    assert rebuilt == pytest.approx(weak["speedup"].to_numpy(), rel=1e-9)


# ----- search -----------------------------------------------------------------------------------
def test_search_agrees_with_the_one_layout_path(gpt2xl) -> None:
    result = search(gpt2xl, "dgx-h100", 64, config=CONFIG, nodes=2, keep_unfit=True)
    assert result.candidates == len(result.frame)
    rng = np.random.default_rng(0)
    gpu = mlcost.accelerator("h100-sxm5-80gb")
    # Two rows of each ZeRO stage: the search evaluates each data-parallel strategy only for
    # the candidates of its stages, the one-layout path for its one layout.
    zero = result.frame["zero"].to_numpy()
    chosen = [rng.choice(np.flatnonzero(zero == stage), 2, replace=False) for stage in range(4)]
    for index in np.concatenate(chosen):
        row = result.frame.iloc[int(index)]
        layout = result.layout(int(index))
        # The layout read from the columns is the one the frame's row (pandas) names.
        assert (layout.dp, layout.tp, layout.pp, layout.zero_stage, layout.micro_batch_size,
                layout.recompute, layout.sequence_parallel) == (
            row.dp, row.tp, row.pp, row.zero, row.micro_batch, row.recompute,
            row.sequence_parallel)  # fmt: skip
        step = multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", layout, nodes=2)
        assert row.step_s == pytest.approx(step.total.to("s").magnitude, rel=EXACT)
        exposed = step.exposed_communication.to("s").magnitude
        assert row.exposed_comm_s == pytest.approx(exposed, rel=EXACT, abs=1e-15)
        total = step.total_communication.to("s").magnitude
        assert row.total_comm_s == pytest.approx(total, rel=EXACT, abs=1e-15)
        # A data-parallel strategy of another ZeRO stage sends nothing and takes no time.
        stages = {"data parallel": (0,), "ZeRO-1/2 gradients": (1, 2),
                  "ZeRO-1/2 parameters": (1, 2), "ZeRO-3 parameters": (3,),
                  "ZeRO-3 gradients": (3,)}  # fmt: skip
        for term in step.communication:
            if layout.zero_stage not in stages.get(term.strategy, (layout.zero_stage,)):
                assert term.time.magnitude == 0 and term.exposed.magnitude == 0, term
                assert term.calls == 0 and term.message.magnitude == 0, term
                assert term.ranks == 1 and term.link == "none", term
        memory = memory_breakdown(gpt2xl, CONFIG, gpu, layout)
        assert row.memory_GiB == pytest.approx(memory.total.to("GiB").magnitude, rel=EXACT)


def test_search_agrees_with_the_one_layout_path_at_every_tensor_and_context_degree() -> None:
    # The search times each (tp, cp) pair's GEMMs at its shard's shapes from one operator table
    # per recomputation mode; the one-layout path builds its own. Llama-3-8B (32 heads) on two
    # DGX H100 nodes: tp 1-8 and cp 1-4; one row of each pair and each recomputation mode.
    model, config = mlcost.model("llama-3-8b"), TrainingConfig(sequence_length=2048)
    result = search(model, "dgx-h100", 64, config=config, nodes=2, keep_unfit=True)
    frame = result.frame
    keys = frame[["tp", "cp"]].to_numpy()
    modes = frame["recompute"].to_numpy()
    pairs = np.unique(keys, axis=0)
    assert {int(t) for t, _ in pairs} >= {1, 2, 4, 8} and {int(c) for _, c in pairs} >= {1, 2}
    for pair in pairs:
        for mode in np.unique(modes):
            rows = np.flatnonzero((keys == pair).all(axis=1) & (modes == mode))
            if rows.size == 0:
                continue
            index = int(rows[0])
            step = multi_gpu_step_time(model, config, "dgx-h100", result.layout(index), nodes=2)
            expected = step.total.to("s").magnitude
            assert frame.iloc[index].step_s == pytest.approx(expected, rel=EXACT), (pair, mode)


def test_search_memory_agrees_with_the_breakdown_in_every_pipeline_split() -> None:
    # The search composes the memory of all candidates of one pipeline split (p, v) at once,
    # each with the saved activations of its own recomputation and context-parallel degree:
    # every (p, v, recompute, cp) cell, at its largest and smallest micro-batch, equals the
    # breakdown of that one layout (Llama-3-8B on two DGX H100 nodes, cp 1-4, v 1-2; the
    # activations of each recomputation come from one table over every cp's sequence length).
    model, config = mlcost.model("llama-3-8b"), TrainingConfig(sequence_length=2048)
    space = SearchSpace(context_parallel=(1, 2, 4), virtual_stages=(1, 2))
    result = search(model, "dgx-h100", 64, config=config, nodes=2, keep_unfit=True, space=space)
    frame = result.frame.reset_index(drop=True)
    cells = frame.groupby(["pp", "v", "recompute", "cp"])
    assert cells.ngroups >= 60 and frame.v.max() == 2 and frame.cp.max() == 4
    for _, cell in cells:
        for index in {int(cell.micro_batch.idxmax()), int(cell.micro_batch.idxmin())}:
            memory = memory_breakdown(model, config, "h100-sxm5-80gb", result.layout(index))
            expected = memory.total.to("GiB").magnitude
            assert frame.memory_GiB[index] == pytest.approx(expected, rel=EXACT), index


def test_search_of_the_layouts_that_fit_times_only_them_and_ranks_them_alike() -> None:
    # Without keep_unfit the search times only the candidates that fit (their memory comes
    # first); keeping every candidate times them all. Llama-2-70B on two DGX H100 nodes, where
    # about a third fit: the same rows, in the same order, with the same numbers, and the
    # columns of the first search hold only layouts that fit.
    model, config = mlcost.model("llama-2-70b"), TrainingConfig(sequence_length=4096)
    fitting = search(model, "dgx-h100", 64, config=config, nodes=2)
    every = search(model, "dgx-h100", 64, config=config, nodes=2, keep_unfit=True)
    assert 0 < fitting.fitting < fitting.candidates == every.candidates
    assert fitting.fitting == every.fitting == len(fitting.frame)
    assert fitting.columns["fits"].all() and fitting.columns["fits"].size == fitting.fitting
    expected = every.frame[every.frame.fits].reset_index(drop=True)
    pd.testing.assert_frame_equal(fitting.frame.reset_index(drop=True), expected)
    # Where none fits (Llama-2-70B's weights alone are 128 GiB in BF16: not on one H100 at
    # any layout of one GPU), one candidate is timed and none kept.
    alone = search(model, "dgx-h100", 64, config=config, gpus=1)
    assert alone.empty and alone.fitting == 0 and alone.candidates > 1
    assert alone.columns["fits"].size == 1 and not alone.columns["fits"].any()


def test_search_finds_layouts_at_least_as_good_as_hand_picked_ones(gpt2xl) -> None:
    # Pure data parallelism with ZeRO-1 and micro-batch 1 fits GPT-2 XL on a node; the search's
    # best is no slower, and ranked by cost (smaller runs allowed) no more expensive per token.
    best = search(gpt2xl, "dgx-h100", 64, config=CONFIG, nodes=1)
    simple = Layout(dp=8, micro_batch_size=1, global_batch_size=64, zero_stage=1)
    assert memory_breakdown(gpt2xl, CONFIG, "h100-sxm5-80gb", simple).fits()
    step = multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", simple)
    assert best.frame.step_s.iloc[0] <= step.total.to("s").magnitude * (1 + 1e-12)
    cheapest = search(
        gpt2xl, "dgx-h100", 64, config=CONFIG, nodes=1, rank_by="cost", use_all_gpus=False
    )
    assert cheapest.frame.gpu_s_per_token.iloc[0] <= best.frame.gpu_s_per_token.iloc[0]


def test_search_llama_70b_top_configuration_fits() -> None:
    config = TrainingConfig(sequence_length=4096)
    result = search("llama-2-70b", "dgx-h100", 1024, config=config, nodes=8, top=5)
    memory = memory_breakdown("llama-2-70b", config, "h100-sxm5-80gb", result.layout(0))
    assert bool(memory.fits())


def test_search_rejects_bad_input(gpt2xl) -> None:
    with pytest.raises(MlcostError, match="rank_by"):
        search(gpt2xl, "dgx-h100", 64, rank_by="vibes")
    with pytest.raises(MlcostError, match="recompute"):
        search(gpt2xl, "dgx-h100", 64, space=SearchSpace(recompute=("sometimes",)))
    with pytest.raises(MlcostError, match="model"):
        search(mlcost.model("resnet-50"), "dgx-h100", 64)
    # Nothing left once the rules apply: interleaving without pipeline parallelism, or a
    # micro-batch that divides no replica's share of the batch (was a numpy traceback).
    space = SearchSpace(virtual_stages=(2,), pipeline_parallel=(1,))
    with pytest.raises(MlcostError, match=r"no layout .* satisfies the rules"):
        search(gpt2xl, "dgx-h100", 64, space=space)
    with pytest.raises(MlcostError, match=r"no layout .* satisfies the rules"):
        search(gpt2xl, "dgx-h100", 8, space=SearchSpace(micro_batch_sizes=(3,)))
