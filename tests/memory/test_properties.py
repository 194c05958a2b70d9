"""Invariants of the memory model (hypothesis), the solvers, and pipeline stages."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mlcost
from mlcost.errors import MlcostError
from mlcost.layout import Layout
from mlcost.memory import (
    DEFAULT_OVERHEADS,
    ActivationParts,
    MemoryTerm,
    activation_parts,
    max_micro_batch_size,
    max_sequence_length,
    memory_breakdown,
    min_gpus,
    per_gpu_memory,
    smallest_gpu,
)
from mlcost.workload import TrainingConfig, operators

MODELS = ["gpt2", "llama-2-7b", "mistral-7b", "gemma-2-9b", "bert-base"]
configs = st.builds(
    TrainingConfig,
    sequence_length=st.integers(16, 4096),
    precision=st.sampled_from(["fp32", "bf16-mixed", "bf16", "fp8"]),
    attention=st.sampled_from(["eager", "flash"]),
    optimizer=st.sampled_from(["adamw", "sgd", "adam-8bit", "lion"]),
)
layouts = st.builds(
    Layout,
    micro_batch_size=st.integers(1, 16),
    recompute=st.sampled_from(["none", "selective", "full"]),
)


@given(
    name=st.sampled_from(MODELS),
    config=configs,
    layout=layouts,
    profile=st.sampled_from(["pytorch", "megatron"]),
)
@settings(max_examples=60, deadline=None)
def test_memory_never_decreases_with_batch_or_sequence(
    name: str, config: TrainingConfig, layout: Layout, profile: str
) -> None:
    model = mlcost.model(name)
    batches = np.arange(1, 33)
    by_batch = memory_breakdown(
        model,
        config,
        None,
        layout,
        profile=profile,
        micro_batch_size=batches,  # type: ignore[arg-type]
    ).total.magnitude
    assert np.all(np.diff(by_batch) >= 0)
    seqs = np.arange(16, 4097, 16)
    by_seq = memory_breakdown(
        model,
        config,
        None,
        layout,
        profile=profile,
        sequence_length=seqs,  # type: ignore[arg-type]
    ).total.magnitude
    assert np.all(np.diff(by_seq) >= 0)


@given(name=st.sampled_from(MODELS), config=configs, dp=st.integers(1, 512), offload=st.booleans())
@settings(max_examples=60, deadline=None)
def test_zero_stages_are_ordered(name: str, config: TrainingConfig, dp: int, offload: bool) -> None:
    model = mlcost.model(name)
    totals = [
        memory_breakdown(
            model, config, None, Layout(dp=dp, zero_stage=stage, offload=offload)
        ).total.magnitude
        for stage in (0, 1, 2, 3)
    ]
    # Stage 0 -> 1 can add DDP buckets only when N_d = 1 is not the case; compare states.
    assert totals[3] <= totals[2] <= totals[1] + 1e-9
    assert totals[1] <= totals[0] + 1e-9 or dp == 1


@given(name=st.sampled_from(MODELS[1:4]), t=st.sampled_from([1, 2, 4]), sp=st.booleans())
@settings(max_examples=20, deadline=None)
def test_more_tensor_parallel_never_more_weights(name: str, t: int, sp: bool) -> None:
    model = mlcost.model(name)
    one = memory_breakdown(model, TrainingConfig(), None, Layout(tp=t, sequence_parallel=sp))
    two = memory_breakdown(model, TrainingConfig(), None, Layout(tp=2 * t, sequence_parallel=sp))
    assert two.term("weights") <= one.term("weights")
    assert two.term("activations") <= one.term("activations")


def test_sequence_parallelism_splits_what_tensor_parallelism_replicates() -> None:
    # Korthikanti et al. 2022, Table 2: with t-way tensor parallelism a layer keeps
    # s·b·h·(10 + 24/t + 5as/(ht)); with sequence parallelism all of it / t. For t = 8 and the
    # megatron profile with FlashAttention (no 5as/h term): (10 + 3) against 34/8 per s·b·h.
    model, config = mlcost.model("llama-2-7b"), TrainingConfig(sequence_length=2048)
    plain = memory_breakdown(model, config, None, Layout(tp=8), profile="megatron")
    split = memory_breakdown(
        model, config, None, Layout(tp=8, sequence_parallel=True), profile="megatron"
    )
    sbh_layers = 2048 * 1 * 4096 * 32
    assert plain.term(MemoryTerm.ACTIVATIONS).to("byte").magnitude == pytest.approx(
        sbh_layers * (10 + 24 / 8), rel=1e-12
    )
    assert split.term(MemoryTerm.ACTIVATIONS).to("byte").magnitude == pytest.approx(
        sbh_layers * 34 / 8, rel=1e-12
    )


def test_capacity_is_compared_in_bytes() -> None:
    gpu = mlcost.accelerator("h100-sxm5-80gb")
    breakdown = memory_breakdown(mlcost.model("gpt2"), TrainingConfig(), gpu)
    # The visible 81,559 MiB (nvidia-smi), not "80 GB" read as 80e9 bytes.
    assert breakdown.capacity.to("byte").magnitude == 81559 * 2**20  # type: ignore[union-attr]
    assert breakdown.headroom.dimensionality == mlcost.Q_("1 byte").dimensionality


def test_solvers_are_consistent() -> None:
    gpu = mlcost.accelerator("h100-sxm5-80gb")
    model = mlcost.model("llama-3-8b")
    config = TrainingConfig(sequence_length=4096)
    full = Layout(recompute="full")
    # One GPU: AdamW mixed precision needs 16 B/param = 128 GB of states, so nothing fits.
    assert max_micro_batch_size(model, config, gpu, full) == 0
    zero = Layout(dp=8, zero_stage=3, recompute="full")
    best = max_micro_batch_size(model, config, gpu, zero)
    assert best > 0
    fits_at_best = memory_breakdown(model, config, gpu, zero, micro_batch_size=best)
    fails_after = memory_breakdown(model, config, gpu, zero, micro_batch_size=best + 1)
    assert fits_at_best.fits() and not fails_after.fits()
    longest = max_sequence_length(model, config, gpu, zero)
    assert longest % 128 == 0 and longest >= 4096
    assert memory_breakdown(model, config, gpu, zero, sequence_length=longest).fits()
    assert not memory_breakdown(model, config, gpu, zero, sequence_length=longest + 128).fits()
    # Llama-3-8B states (16 B/param with AdamW mixed precision = 128 GB) need ZeRO to fit 80 GB.
    fewest = min_gpus(model, config, gpu, Layout(zero_stage=3, recompute="full"))
    assert fewest >= 2
    sharded = Layout(dp=fewest, zero_stage=3, recompute="full")
    assert memory_breakdown(model, config, gpu, sharded).fits()
    fewer = Layout(dp=fewest - 1, zero_stage=3, recompute="full")
    assert not memory_breakdown(model, config, gpu, fewer).fits()


def test_smallest_gpu_for_gpt2() -> None:
    gpus = mlcost.catalog().items("accelerators")
    config, layout = TrainingConfig(sequence_length=1024), Layout(micro_batch_size=8)
    chosen = smallest_gpu("gpt2", config, gpus, layout)  # type: ignore[arg-type]
    assert chosen is not None
    assert "bf16" in chosen.formats  # the run's precision (bf16-mixed)
    assert chosen.vendor == "NVIDIA"  # not a TPU v5e (16 GB, XLA's memory, not CUDA's)
    for gpu in gpus:
        # Among the GPUs the memory model (PyTorch on CUDA) describes: NVIDIA's.
        if (gpu.memory_available < chosen.memory_available and "bf16" in gpu.formats  # type: ignore[attr-defined]
                and gpu.vendor == "NVIDIA"):  # type: ignore[attr-defined]  # fmt: skip
            assert not memory_breakdown("gpt2", config, gpu, layout).fits()  # type: ignore[arg-type]


def test_explain_names_the_sources_and_the_verdict() -> None:
    breakdown = memory_breakdown("llama-2-7b", TrainingConfig(), "a100-sxm4-40gb")
    text = breakdown.explain()
    assert "Rajbhandari" in text and "Korthikanti" not in text  # pytorch profile
    # 6,738,415,616 x 16 B (AdamW, bf16 mixed) = 100 GiB of states on a 40 GB card.
    assert "does not fit: needs" in text and "40.00 GiB per GPU" in text


def test_the_total_is_the_sum_of_the_terms_and_a_breakdown_pickles() -> None:
    """The total equals the sum of the terms (6,738,415,616 params x 2 B of BF16 weights is one
    of them, written out here), and a breakdown survives a pickle round trip whole."""
    breakdown = memory_breakdown("llama-2-7b", TrainingConfig(), "h100-sxm5-80gb")
    total = float(breakdown.total.to("byte").magnitude)
    terms = {t.key: float(t.value.to("byte").magnitude) for t in breakdown.terms}
    assert total == pytest.approx(sum(terms.values()), rel=1e-12)
    assert terms[MemoryTerm.WEIGHTS.value] == 6_738_415_616 * 2
    again = pickle.loads(pickle.dumps(breakdown))
    assert again.terms == breakdown.terms and again.total == breakdown.total


def gib(breakdown: object, term: str) -> float:
    return float(breakdown.term(term).to("GiB").magnitude)  # type: ignore[attr-defined]


def test_pipeline_first_stage_holds_p_micro_batches() -> None:
    model = mlcost.model("llama-2-7b")
    config = TrainingConfig(sequence_length=2048)
    one = memory_breakdown(model, config, None, Layout(gradient_accumulation=8))
    four = memory_breakdown(model, config, None, Layout(pp=4, gradient_accumulation=8))
    # L/4 layers x 4 micro-batches in flight = the activations of all L layers (1F1B).
    assert gib(four, "activations") == pytest.approx(gib(one, "activations"), rel=1e-12)
    assert gib(four, "weights") == pytest.approx(gib(one, "weights") / 4, rel=1e-12)
    few = memory_breakdown(model, config, None, Layout(pp=4, gradient_accumulation=2))
    assert gib(few, "activations") == pytest.approx(gib(one, "activations") / 2, rel=1e-12)
    # The interleaved schedule holds 1 + (p-1)/(p·v) times more: 1 + 3/8 for p = 4, v = 2.
    interleaved = memory_breakdown(
        model, config, None, Layout(pp=4, virtual_stages=2, gradient_accumulation=8)
    )
    assert gib(interleaved, "activations") == pytest.approx(
        gib(one, "activations") * (1 + 3 / 8), rel=1e-12
    )


def test_uneven_stages_report_the_most_loaded_one() -> None:
    # 126 layers on 16 stages: 7, 8 x 14, 7. Stage i holds min(16 - i, m) micro-batches of its
    # layers: stage 0 has 16 x 7 = 112 layer-micro-batches, stage 1 has 15 x 8 = 120, the most.
    config = TrainingConfig(sequence_length=1024)
    layout = Layout(pp=16, tp=8, sequence_parallel=True, gradient_accumulation=16)
    breakdown = memory_breakdown("llama-3.1-405b", config, None, layout)
    assert breakdown.details["stage"] == 1 and breakdown.details["in_flight"] == 15
    even = memory_breakdown(
        "llama-3.1-405b", config, None, layout.model_copy(update={"pp": 1, "dp": 1})
    )
    # All 126 layers' activations of one micro-batch, scaled to 15 x 8 of them.
    assert gib(breakdown, "activations") == pytest.approx(
        gib(even, "activations") * 15 * 8 / 126, rel=1e-12
    )


def test_learned_positions_cap_the_sequence() -> None:
    gpu = mlcost.accelerator("a100-sxm4-80gb")
    assert max_sequence_length(mlcost.model("gpt2"), TrainingConfig(), gpu) == 1024


parts_st = st.builds(
    ActivationParts,
    layers_split=st.floats(0, 1e12),
    layers_replicated=st.floats(0, 1e11),
    embedding=st.floats(0, 1e10),
    head_split=st.floats(0, 1e10),
    head_replicated=st.floats(0, 1e10),
    logits=st.floats(0, 1e11),
    formula=st.just(""),
    source=st.just(""),
)


@given(
    parts=parts_st,
    stage_layers=st.lists(st.integers(1, 12), min_size=1, max_size=6),
    virtual=st.sampled_from([1, 2]),
    t=st.sampled_from([1, 2, 8]),
    replicas=st.integers(1, 64),
    zero=st.integers(0, 3),
    sp=st.booleans(),
    m=st.integers(1, 32),
    offload=st.booleans(),
    dequantized=st.sampled_from([0.0, 3e8]),
    experts=st.sampled_from([0.0, 4e9]),
    ep=st.sampled_from([1, 2, 8]),
)
@settings(max_examples=150, deadline=None)
def test_one_configuration_in_numbers_equals_it_in_arrays(
    parts: ActivationParts, stage_layers: list[int], virtual: int, t: int, replicas: int,
    zero: int, sp: bool, m: int, offload: bool, dequantized: float, experts: float, ep: int,
) -> None:  # fmt: skip
    # per_gpu_memory composes one configuration given as Python numbers stage by stage on
    # floats, and arrays with numpy: the same bytes, bit for bit, term by term, and the same
    # stage. The arrays path is checked against the hand formulas by the tests above.
    common = {
        "parameters": 7e9 + experts,
        "layers": sum(stage_layers),
        "per_parameter": mlcost.memory.model_state_bytes_per_parameter("bf16-mixed", "adamw"),
        "stage_layers": stage_layers,
        "virtual_stages": virtual,
        "offload": offload,
        "overheads": DEFAULT_OVERHEADS,
        "dequantized_weight": dequantized,
        "expert_parameters": experts,
    }
    numbers = per_gpu_memory(
        parts, tensor_parallel=t, weight_replicas=replicas, zero_stage=zero,
        sequence_parallel=sp, micro_batches=m, expert_parallel=ep, **common,
    )  # fmt: skip
    one = np.ones(1, dtype=np.int64)
    arrays = per_gpu_memory(
        parts, tensor_parallel=t * one, weight_replicas=replicas * one, zero_stage=zero * one,
        sequence_parallel=sp * one.astype(bool), micro_batches=m * one, expert_parallel=ep * one,
        **common,
    )  # fmt: skip
    assert type(numbers.total) is float
    assert numbers.total == arrays.total[0]
    assert int(numbers.stage) == int(arrays.stage[0])
    assert list(numbers.terms) == list(arrays.terms)
    for term, value in numbers.terms.items():
        assert value == arrays.terms[term][0], term
        assert np.array_equal(numbers.by_stage[term], arrays.by_stage[term][:, 0]), term
    assert np.array_equal(numbers.held, arrays.held[:, 0])
    assert numbers.in_flight == arrays.in_flight[0]


@pytest.mark.parametrize("name", ["gemma-2-9b", "llama-2-7b", "mixtral-8x7b"])
@pytest.mark.parametrize("micro_batches", [3, 5, 7, 192])
def test_saved_bytes_per_micro_batch_do_not_depend_on_how_many_micro_batches(
    name: str, micro_batches: int
) -> None:
    # A micro-batch saves what its own operators save: the count of micro-batches per step
    # changes how often it runs, not what it keeps. To the bit, also where every-k recomputation
    # makes a layer's count fractional (a step's count divided back by m rounded before).
    spec = mlcost.model(name)
    config = TrainingConfig(sequence_length=1000)
    one = Layout(micro_batch_size=1, recompute="every-k", recompute_every=3)
    many = one.model_copy(update={"gradient_accumulation": micro_batches})
    assert many.micro_batches == micro_batches
    assert activation_parts(spec, config, many, "pytorch", 1, 1000) == activation_parts(
        spec, config, one, "pytorch", 1, 1000
    )


def test_a_table_of_a_whole_step_is_refused_for_activations() -> None:
    spec = mlcost.model("llama-2-7b")
    config = TrainingConfig(sequence_length=1024)
    layout = Layout(micro_batch_size=1, gradient_accumulation=4)
    step = operators(spec, config, layout)
    with pytest.raises(MlcostError, match=r"table: got the table of 4 micro-batch\(es\)"):
        activation_parts(spec, config, layout, "pytorch", 1, 1024, table=step)
    # The table of one micro-batch gives what activation_parts builds itself.
    one = operators(spec, config, layout.one_micro_batch())
    given = activation_parts(spec, config, layout, "pytorch", 1, 1024, table=one)
    assert given == activation_parts(spec, config, layout, "pytorch", 1, 1024)
