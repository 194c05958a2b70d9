"""Invariants of the memory model (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mlcost
from mlcost.memory import (
    Parallelism,
    max_micro_batch_size,
    max_sequence_length,
    memory_breakdown,
    min_gpus,
    smallest_gpu,
)
from mlcost.workload import TrainingConfig

MODELS = ["gpt2", "llama-2-7b", "mistral-7b", "gemma-2-9b", "bert-base"]
configs = st.builds(
    TrainingConfig,
    micro_batch_size=st.integers(1, 16),
    sequence_length=st.integers(16, 4096),
    precision=st.sampled_from(["fp32", "bf16-mixed", "bf16", "fp8"]),
    attention=st.sampled_from(["eager", "flash"]),
    recompute=st.sampled_from(["none", "selective", "full"]),
    optimizer=st.sampled_from(["adamw", "sgd", "adam-8bit", "lion"]),
)


@given(
    name=st.sampled_from(MODELS), config=configs, profile=st.sampled_from(["pytorch", "megatron"])
)
@settings(max_examples=60, deadline=None)
def test_memory_never_decreases_with_batch_or_sequence(
    name: str, config: TrainingConfig, profile: str
) -> None:
    model = mlcost.model(name)
    batches = np.arange(1, 33)
    by_batch = memory_breakdown(
        model,
        config,
        profile=profile,  # type: ignore[arg-type]
        micro_batch_size=batches,
    ).total.magnitude
    assert np.all(np.diff(by_batch) >= 0)
    seqs = np.arange(16, 4097, 16)
    by_seq = memory_breakdown(
        model,
        config,
        profile=profile,  # type: ignore[arg-type]
        sequence_length=seqs,
    ).total.magnitude
    assert np.all(np.diff(by_seq) >= 0)


@given(name=st.sampled_from(MODELS), config=configs, dp=st.integers(1, 512), offload=st.booleans())
@settings(max_examples=60, deadline=None)
def test_zero_stages_are_ordered(name: str, config: TrainingConfig, dp: int, offload: bool) -> None:
    model = mlcost.model(name)
    totals = [
        memory_breakdown(
            model,
            config,
            parallel=Parallelism(data_parallel=dp, zero_stage=stage, cpu_offload=offload),
        ).total.magnitude
        for stage in (0, 1, 2, 3)
    ]
    # Stage 0 -> 1 can add DDP buckets only when N_d = 1 is not the case; compare states.
    assert totals[3] <= totals[2] <= totals[1] + 1e-9
    assert totals[1] <= totals[0] + 1e-9 or dp == 1


@given(name=st.sampled_from(MODELS), t=st.sampled_from([1, 2, 4, 8]))
@settings(max_examples=20, deadline=None)
def test_more_tensor_parallel_never_more_weights(name: str, t: int) -> None:
    model = mlcost.model(name)
    one = memory_breakdown(model, TrainingConfig(), parallel=Parallelism(tensor_parallel=t))
    two = memory_breakdown(model, TrainingConfig(), parallel=Parallelism(tensor_parallel=2 * t))
    assert two.term("weights") <= one.term("weights")
    assert two.term("activations") <= one.term("activations")


def test_capacity_is_compared_in_bytes() -> None:
    gpu = mlcost.accelerator("h100-sxm5-80gb")
    breakdown = memory_breakdown(mlcost.model("gpt2"), TrainingConfig(), gpu)
    # The visible 81,559 MiB (nvidia-smi), not "80 GB" read as 80e9 bytes.
    assert breakdown.capacity.to("byte").magnitude == 81559 * 2**20  # type: ignore[union-attr]
    assert breakdown.headroom.dimensionality == mlcost.Q_("1 byte").dimensionality


def test_solvers_are_consistent() -> None:
    gpu = mlcost.accelerator("h100-sxm5-80gb")
    model = mlcost.model("llama-3-8b")
    config = TrainingConfig(sequence_length=4096, recompute="full")
    # One GPU: AdamW mixed precision needs 16 B/param = 128 GB of states, so nothing fits.
    assert max_micro_batch_size(model, config, gpu) == 0
    zero = Parallelism(data_parallel=8, zero_stage=3)
    best = max_micro_batch_size(model, config, gpu, parallel=zero)
    assert best > 0
    fits_at_best = memory_breakdown(model, config, gpu, parallel=zero, micro_batch_size=best)
    fails_after = memory_breakdown(model, config, gpu, parallel=zero, micro_batch_size=best + 1)
    assert fits_at_best.fits() and not fails_after.fits()
    one = config.model_copy(update={"micro_batch_size": 1})
    longest = max_sequence_length(model, one, gpu, parallel=zero)
    assert longest % 128 == 0 and longest >= 4096
    assert memory_breakdown(model, one, gpu, parallel=zero, sequence_length=longest).fits()
    assert not memory_breakdown(
        model, one, gpu, parallel=zero, sequence_length=longest + 128
    ).fits()
    # Llama-3-8B states (16 B/param with AdamW mixed precision = 128 GB) need ZeRO to fit 80 GB.
    fewest = min_gpus(model, config, gpu, zero_stage=3)
    assert fewest >= 2
    sharded = memory_breakdown(
        model, config, gpu, parallel=Parallelism(data_parallel=fewest, zero_stage=3)
    )
    assert sharded.fits()
    if fewest > 1:
        assert not memory_breakdown(
            model, config, gpu, parallel=Parallelism(data_parallel=fewest - 1, zero_stage=3)
        ).fits()


def test_smallest_gpu_for_gpt2() -> None:
    gpus = mlcost.catalog().items("accelerators")
    chosen = smallest_gpu(
        mlcost.model("gpt2"), TrainingConfig(micro_batch_size=8, sequence_length=1024), gpus
    )  # type: ignore[arg-type]
    assert chosen is not None
    smaller = [g for g in gpus if g.memory_capacity < chosen.memory_capacity]  # type: ignore[attr-defined]
    for gpu in smaller:
        assert not memory_breakdown(
            mlcost.model("gpt2"), TrainingConfig(micro_batch_size=8, sequence_length=1024), gpu
        ).fits()  # type: ignore[arg-type]


def test_explain_and_frame() -> None:
    breakdown = memory_breakdown(
        mlcost.model("llama-2-7b"), TrainingConfig(), mlcost.accelerator("a100-sxm4-40gb")
    )
    text = breakdown.explain()
    assert "Rajbhandari" in text and "does not fit" in text
    frame = breakdown.to_frame()
    assert frame["GiB"].sum() == pytest.approx(breakdown.total.to("GiB").magnitude)


def gib(breakdown: object, term: str) -> float:
    return float(breakdown.term(term).to("GiB").magnitude)  # type: ignore[attr-defined]


def test_pipeline_first_stage_holds_p_micro_batches() -> None:
    model = mlcost.model("llama-2-7b")
    config = TrainingConfig(sequence_length=2048, gradient_accumulation_steps=8)
    one = memory_breakdown(model, config)
    four = memory_breakdown(model, config, parallel=Parallelism(pipeline_parallel=4))
    # L/4 layers x 4 micro-batches in flight = the activations of all L layers (1F1B).
    assert gib(four, "activations") == pytest.approx(gib(one, "activations"), rel=1e-12)
    assert gib(four, "weights") == pytest.approx(gib(one, "weights") / 4, rel=1e-12)
    few = memory_breakdown(
        model,
        config.model_copy(update={"gradient_accumulation_steps": 2}),
        parallel=Parallelism(pipeline_parallel=4),
    )
    assert gib(few, "activations") == pytest.approx(gib(one, "activations") / 2, rel=1e-12)


def test_learned_positions_cap_the_sequence() -> None:
    gpu = mlcost.accelerator("a100-sxm4-80gb")
    assert max_sequence_length(mlcost.model("gpt2"), TrainingConfig(), gpu) == 1024
