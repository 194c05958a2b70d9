"""The multi-GPU step: the interface the plan relies on, consistency with the single-GPU model,
layout validation, and the search."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mlcost
from mlcost.errors import MlcostError
from mlcost.memory import Parallelism, memory_breakdown
from mlcost.parallel import (
    Layout,
    MixtureOfExperts,
    MultiGpuStep,
    layout_memory,
    multi_gpu_step_time,
    scaling_curve,
    search,
)
from mlcost.timing import step_time
from mlcost.workload import TrainingConfig

EXACT = 1e-9  # same arithmetic on two paths; float64 rounding only

CONFIG = TrainingConfig(sequence_length=1024)


@pytest.fixture(scope="module")
def gpt2xl():
    return mlcost.model("gpt2-xl")


def test_interface() -> None:
    layout = Layout(dp=8, tp=2, pp=2, micro_batch_size=2, global_batch_size=64, zero_stage=1)
    llama = mlcost.model("llama-2-7b")
    step = multi_gpu_step_time(llama, CONFIG, "dgx-h100", layout, nodes=4)
    assert isinstance(step, MultiGpuStep)
    for quantity in (
        step.total,
        step.compute,
        step.bubble,
        step.exposed_communication,
        step.total_communication,
    ):
        assert quantity.check("[time]")
    assert step.total.to("s").magnitude == pytest.approx(
        (step.compute + step.bubble + step.exposed_communication).to("s").magnitude, rel=EXACT
    )
    assert isinstance(step.terms, pd.DataFrame)
    assert {"strategy", "collective", "bytes", "link", "time", "exposed", "hidden"} <= set(
        step.terms.columns
    )
    assert (step.terms["exposed"] <= step.terms["time"] + 1e-15).all()
    assert step.terms["hidden"].to_numpy() == pytest.approx(
        (step.terms["time"] - step.terms["exposed"]).to_numpy(), abs=1e-15
    )
    assert 0 < step.mfu() <= 1
    assert step.tokens_per_step == 64 * 1024
    text = step.explain()
    for needle in ("compute =", "bubble =", "Narayanan", "MFU", "tensor parallel"):
        assert needle in text
    ttt = step.time_to_train(mlcost.Q_(1e9, "token"))
    # steps = ceil(1e9 / 65536) = 15259
    assert ttt["steps"].magnitude == 15259


def test_one_gpu_equals_the_single_gpu_model(gpt2xl) -> None:
    layout = Layout(dp=1, micro_batch_size=4, gradient_accumulation=3)
    step = multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", layout)
    single = step_time(
        gpt2xl,
        CONFIG.model_copy(update={"micro_batch_size": 4, "gradient_accumulation_steps": 3}),
        mlcost.accelerator("h100-sxm5-80gb"),
    )
    # no communication, no bubble; compute = 3 micro-batches + 1 optimizer update, as the
    # single-GPU model counts them
    assert step.exposed_communication.magnitude == 0
    assert step.bubble.magnitude == 0
    assert step.total.to("s").magnitude == pytest.approx(single.total.to("s").magnitude, rel=EXACT)
    assert step.mfu() == pytest.approx(float(single.mfu()), rel=EXACT)


def test_layout_memory_is_memory_breakdown() -> None:
    llama = mlcost.model("llama-2-7b")
    gpu = mlcost.accelerator("h100-sxm5-80gb")
    layout = Layout(
        dp=4,
        tp=2,
        micro_batch_size=2,
        gradient_accumulation=2,
        zero_stage=2,
        sequence_parallel=True,
    )
    direct = memory_breakdown(
        llama,
        CONFIG.model_copy(update={"micro_batch_size": 2, "gradient_accumulation_steps": 2}),
        gpu,
        parallel=Parallelism(
            data_parallel=4, tensor_parallel=2, zero_stage=2, sequence_parallel=True
        ),
        profile="megatron",
    )
    assert layout_memory(llama, CONFIG, gpu, layout).total == direct.total


def test_overlap_off_exposes_everything(gpt2xl) -> None:
    layout = Layout(dp=16, micro_batch_size=4, global_batch_size=64)
    hidden = multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", layout, nodes=2)
    exposed = multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", layout, nodes=2, overlap=False)
    assert exposed.exposed_communication == exposed.total_communication
    assert hidden.exposed_communication < hidden.total_communication
    assert hidden.total < exposed.total


def test_expert_parallel_needs_moe_and_adds_all_to_all(gpt2xl) -> None:
    layout = Layout(dp=8, ep=8, micro_batch_size=1, gradient_accumulation=1)
    with pytest.raises(MlcostError, match="ep"):
        multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", layout)
    step = multi_gpu_step_time(
        gpt2xl, CONFIG, "dgx-h100", layout, moe=MixtureOfExperts(num_experts=8, top_k=2)
    )
    row = step.terms.set_index("strategy").loc["expert parallel"]
    # 48 MoE layers x 4 all-to-alls x (1 x 1024 tokens x top-2 x 1600 x 2 bytes)
    assert row["bytes"] == pytest.approx(48 * 4 * 1024 * 2 * 1600 * 2, rel=EXACT)
    assert row["exposed"] == pytest.approx(row["time"], rel=EXACT)


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"dp": 3, "micro_batch_size": 2, "global_batch_size": 8}, "global_batch_size"),
        ({"virtual_stages": 2}, "virtual_stages"),
        ({"dp": 4, "ep": 3}, "ep"),
        ({"dp": 0}, "dp"),
        ({"zero_stage": 4}, "zero_stage"),
    ],
)
def test_layout_validation(fields: dict, match: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(MlcostError, match=match):
        Layout(**fields)


def test_layout_must_fit_model_and_system(gpt2xl) -> None:
    with pytest.raises(MlcostError, match="pp"):
        multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", Layout(pp=5))  # 48 layers
    with pytest.raises(MlcostError, match="tp"):
        multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", Layout(tp=16), nodes=2)
    with pytest.raises(MlcostError, match="GPUs"):
        multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", Layout(dp=64), nodes=2)


def test_nodes_default_to_what_the_layout_needs(gpt2xl) -> None:
    step = multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", Layout(dp=32, global_batch_size=64))
    assert step.topology.nodes == 4
    assert step.terms.set_index("strategy").loc["data parallel", "link"] == "intra+inter"


def test_scaling_curve_strong_and_weak(gpt2xl) -> None:
    gpus = [1, 2, 4, 8, 16, 32, 64]
    strong = scaling_curve(
        gpt2xl, CONFIG, "dgx-h100", gpus, layout=Layout(micro_batch_size=1, global_batch_size=64)
    )
    assert list(strong["gpus"]) == gpus
    assert strong["efficiency"].iloc[0] == pytest.approx(1.0, rel=EXACT)  # N = N0
    assert ((strong["efficiency"] > 0) & (strong["efficiency"] <= 1 + 1e-12)).all()
    weak = scaling_curve(
        gpt2xl,
        CONFIG,
        "dgx-h100",
        gpus,
        kind="weak",
        layout=Layout(micro_batch_size=4, gradient_accumulation=1),
    )
    assert ((weak["efficiency"] > 0) & (weak["efficiency"] <= 1 + 1e-12)).all()
    # weak scaling is the chapter's curve with r = implied_r: N / (1 + (N-1) r) = speedup
    n = weak["gpus"].to_numpy()
    rebuilt = n / (1 + (n - 1) * weak["implied_r"].to_numpy())
    assert rebuilt == pytest.approx(weak["speedup"].to_numpy(), rel=1e-9)


# ----- search -----------------------------------------------------------------------------------
def test_search_agrees_with_the_one_layout_path(gpt2xl) -> None:
    frame = search(gpt2xl, "dgx-h100", 64, config=CONFIG, nodes=2, keep_unfit=True)
    assert frame.attrs["candidates"] == len(frame)
    rng = np.random.default_rng(0)
    gpu = mlcost.accelerator("h100-sxm5-80gb")
    for index in rng.choice(len(frame), 8, replace=False):
        row = frame.iloc[int(index)]
        layout = Layout(
            dp=int(row.dp),
            tp=int(row.tp),
            pp=int(row.pp),
            cp=int(row.cp),
            virtual_stages=int(row.v),
            micro_batch_size=int(row.micro_batch),
            global_batch_size=64,
            zero_stage=int(row.zero),
            sequence_parallel=bool(row.sequence_parallel),
            recompute=row.recompute,
        )
        step = multi_gpu_step_time(gpt2xl, CONFIG, "dgx-h100", layout, nodes=2)
        assert row.step_s == pytest.approx(step.total.to("s").magnitude, rel=EXACT)
        memory = layout_memory(gpt2xl, CONFIG, gpu, layout)
        assert row.memory_GiB == pytest.approx(memory.total.to("GiB").magnitude, rel=EXACT)


def test_search_ranks_fitting_configurations(gpt2xl) -> None:
    frame = search(gpt2xl, "dgx-h100", 64, config=CONFIG, nodes=1)
    assert frame["fits"].all()
    assert frame["step_s"].is_monotonic_increasing
    cost = search(
        gpt2xl, "dgx-h100", 64, config=CONFIG, nodes=1, rank_by="cost", use_all_gpus=False
    )
    assert cost["gpu_s_per_token"].is_monotonic_increasing
    assert (cost["gpus"] <= 8).all()


def test_search_llama_70b_top_configuration_fits() -> None:
    model = mlcost.model("llama-2-70b")
    config = TrainingConfig(sequence_length=4096)
    frame = search(model, "dgx-h100", 1024, config=config, nodes=8, top=5)
    top = frame.iloc[0]
    layout = Layout(
        dp=int(top.dp),
        tp=int(top.tp),
        pp=int(top.pp),
        cp=int(top.cp),
        virtual_stages=int(top.v),
        micro_batch_size=int(top.micro_batch),
        global_batch_size=1024,
        zero_stage=int(top.zero),
        sequence_parallel=bool(top.sequence_parallel),
        recompute=top.recompute,
    )
    memory = layout_memory(model, config, mlcost.accelerator("h100-sxm5-80gb"), layout)
    assert bool(memory.fits())


def test_search_rejects_bad_input(gpt2xl) -> None:
    with pytest.raises(MlcostError, match="rank_by"):
        search(gpt2xl, "dgx-h100", 64, rank_by="vibes")
    with pytest.raises(MlcostError, match="recompute"):
        search(gpt2xl, "dgx-h100", 64, recompute=("sometimes",))
    with pytest.raises(MlcostError, match="model"):
        search(mlcost.model("resnet-50"), "dgx-h100", 64)
