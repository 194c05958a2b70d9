"""Activation checkpoint placement against the chapter (T-14, section 1.6), exhaustive search,
Chen et al. 2016's sqrt(L) placement, and the workload/memory models it plugs into."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlcost.checkpointing import (
    LayerChain,
    Placement,
    chapter_checkpoint_memory,
    chapter_optimal_checkpoints,
    chapter_recompute_forwards,
    chapter_strategy_table,
    cheapest_recompute,
    no_recompute_placement,
    optimal_placement,
    placement_cost,
    selective_placement,
    sqrt_placement,
    tradeoff_curve,
    transformer_layer_chain,
    uniform_chain,
    uniform_placement,
)
from mlcost.errors import MlcostError
from mlcost.layout import Layout
from mlcost.memory import memory_breakdown
from mlcost.specs import default_catalog
from mlcost.units import Q_
from mlcost.workload import TrainingConfig, transformer_operators

CATALOG = default_catalog()
GPT2_XL = CATALOG.transformer("gpt2-xl")
V100 = CATALOG.accelerator("v100-sxm2-32gb")
# The chapter's walkthrough setting on a V100 (no FlashAttention on Volta): FP16 mixed, eager.
CONFIG = TrainingConfig(sequence_length=1024, precision="fp16-mixed", attention="eager")
LAYOUT = Layout(micro_batch_size=4)


# ----- the chapter (seed catalog T-14, F-55, W-P17) ------------------------------------------
def test_chapter_gpt2_xl_sqrt_placement() -> None:
    # L = 48: k = round(sqrt(48)) = round(6.93) = 7. Memory 7A + (48/7)A = 7A + 6.857A = 13.857A,
    # "about 14 x A"; saving 1 - 13.857/48 = 0.7113, "71%"; recompute L - k = 41 forwards.
    layers = 48
    k = chapter_optimal_checkpoints(layers)
    assert k == 7
    memory = chapter_checkpoint_memory(layers, k, 1.0)
    assert memory == pytest.approx(7 + 48 / 7, rel=1e-15)
    assert round(memory) == 14
    assert round(100 * (1 - memory / layers)) == 71
    assert chapter_recompute_forwards(layers, k) == 41


def test_chapter_formula_keeps_units() -> None:
    a = Q_(849, "MB")  # any per-layer activation; the formula is linear in A
    memory = chapter_checkpoint_memory(48, 7, a)
    assert memory.to("MB").magnitude == pytest.approx(849 * (7 + 48 / 7), rel=1e-12)


def test_chapter_strategy_table_rows() -> None:
    # T-14 literally: none L x A and 0; every layer A and L - 1; k checkpoints kA + (L/k)A, L - k.
    table = chapter_strategy_table(48)
    assert list(table["memory / A"]) == pytest.approx([48, 1, 7 + 48 / 7], rel=1e-12)
    assert list(table["recomputed forwards"]) == [0, 47, 41]
    assert table["saving"].iloc[2] == pytest.approx(1 - (7 + 48 / 7) / 48, rel=1e-12)


def test_evaluator_reproduces_14a_when_a_checkpoint_costs_a_layer() -> None:
    # Pricing a checkpoint at a whole layer's A, as the chapter does: 7 checkpoints = 7A, and the
    # largest of the segments 7,7,7,7,7,7,6 (np.array_split of 48 into 7) rematerializes 7A:
    # 14A in all. (The chapter's 13.86A uses L/k = 6.86 unrounded.)
    chain = uniform_chain(48, Q_(1, "GB"), boundary=Q_(1, "GB"))
    cost = placement_cost(chain, sqrt_placement(48))
    assert cost.memory.to("GB").magnitude == pytest.approx(14, rel=1e-12)
    assert cost.stored.to("GB").magnitude == pytest.approx(7, rel=1e-12)
    # Chen et al. 2016 recompute every layer once (the chapter's L - k keeps the k checkpointed
    # layers' activations instead): 48 forwards at 1 FLOP each.
    assert cost.recompute_flops.to("flop").magnitude == 48


# ----- exhaustive search -----------------------------------------------------------------------
def all_placement_codes(layers: int, selective: bool) -> np.ndarray:
    """Every valid placement as rows of state codes (0 keep, 1 selective, 2 checkpoint,
    3 recompute): all 3^L (or 4^L) combinations, less those with a recompute that follows
    neither a checkpoint nor a recompute."""
    states = np.array([0, 2, 3] + ([1] if selective else []))
    grid = np.indices((len(states),) * layers).reshape(layers, -1).T
    codes = states[grid]
    follows = np.concatenate([np.zeros((len(codes), 1), bool), codes[:, :-1] >= 2], axis=1)
    valid = np.all((codes != 3) | follows, axis=1)
    return codes[valid]


def placement_memory_and_cost(
    chain: LayerChain, codes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Memory and recomputation cost of every placement (rows of state codes), evaluated here
    independently of the optimizer (the module docstring's formula: stored + max(segment sums,
    selective deltas); cost = recomputed forwards + selective parts)."""
    keep, sel, ckpt, rec = (codes == 0), (codes == 1), (codes == 2), (codes == 3)
    a, c = chain.saved, chain.boundary
    a_sel = chain.selective_saved if chain.selective_saved is not None else a
    t, t_sel = chain.cost(), chain.selective_cost()
    stored = chain.in_flight * (keep @ a + sel @ a_sel + ckpt @ c)
    transient = np.zeros(len(codes))
    running = np.zeros(len(codes))
    for i in range(chain.layers):
        running = np.where(ckpt[:, i], a[i], np.where(rec[:, i], running + a[i], 0.0))
        transient = np.maximum(transient, running)
        transient = np.maximum(transient, np.where(sel[:, i], a[i] - a_sel[i], 0.0))
    return stored + transient, (ckpt | rec) @ t + sel @ t_sel


def exhaustive_frontier(chain: LayerChain, codes: np.ndarray) -> np.ndarray:
    """(memory, cost) Pareto frontier of every placement (:func:`placement_memory_and_cost`)."""
    memory, cost = placement_memory_and_cost(chain, codes)
    order = np.lexsort((memory, cost))
    frontier = []
    best = np.inf
    for row in order:
        if memory[row] < best * (1 - 1e-12):
            frontier.append((memory[row], cost[row]))
            best = memory[row]
    return np.array(frontier)


def random_chain(rng: np.random.Generator, layers: int, selective: bool) -> LayerChain:
    saved = rng.uniform(1, 10, layers)
    return LayerChain(
        saved=saved,
        boundary=rng.uniform(0.1, 3, layers),
        forward_flops=rng.uniform(1, 10, layers),
        selective_saved=saved * rng.uniform(0.2, 0.9, layers) if selective else None,
        selective_flops=rng.uniform(0.1, 3, layers) if selective else None,
        in_flight=int(rng.integers(1, 3)),
    )


@pytest.mark.parametrize(
    ("layers", "selective", "seed"),
    [(12, False, 0), (12, False, 1), (10, False, 2), (8, True, 3), (6, True, 4)],
)
def test_optimizer_equals_exhaustive_search(layers: int, selective: bool, seed: int) -> None:
    chain = random_chain(np.random.default_rng(seed), layers, selective)
    expected = exhaustive_frontier(chain, all_placement_codes(layers, selective))
    points = tradeoff_curve(chain).points
    found = np.array([(p.memory.magnitude, p.recompute_flops.magnitude) for p in points])
    # The same Pareto frontier: every memory level and its least recomputation. Tolerance 1e-9
    # relative: the same floats summed in a different order.
    assert found.shape == expected.shape
    np.testing.assert_allclose(found, expected, rtol=1e-9, atol=1e-12)


def test_uniform_fast_path_equals_dynamic_program() -> None:
    chain = transformer_layer_chain(GPT2_XL, CONFIG, V100, LAYOUT)
    assert chain.is_uniform()
    short = LayerChain(
        saved=chain.saved[:16],
        boundary=chain.boundary[:16],
        forward_flops=chain.forward_flops[:16],
        forward_time=chain.forward_time[:16] if chain.forward_time is not None else None,
        selective_saved=chain.selective_saved[:16] if chain.selective_saved is not None else None,
        selective_flops=chain.selective_flops[:16] if chain.selective_flops is not None else None,
        selective_time=chain.selective_time[:16] if chain.selective_time is not None else None,
    )
    fast_points = tradeoff_curve(short, method="enumeration").points
    slow_points = tradeoff_curve(short, method="dynamic-program").points
    assert len(fast_points) == len(slow_points)
    for f, s in zip(fast_points, slow_points, strict=True):
        assert f.memory.magnitude == pytest.approx(s.memory.magnitude, rel=1e-12)
        assert f.recompute_time is not None and s.recompute_time is not None
        assert f.recompute_time.magnitude == pytest.approx(s.recompute_time.magnitude, rel=1e-12)


# ----- never worse than sqrt(L) uniform ------------------------------------------------------
def test_optimizer_beats_sqrt_placement_on_gpt2_xl() -> None:
    chain = transformer_layer_chain(GPT2_XL, CONFIG, V100, LAYOUT)
    baseline = placement_cost(chain, sqrt_placement(48))
    best = optimal_placement(chain, baseline.memory)
    assert best.memory <= baseline.memory
    assert best.recompute_time is not None and baseline.recompute_time is not None
    assert best.recompute_time <= baseline.recompute_time
    # Strictly better here: selective layers recompute only the attention core (hand check: the
    # sqrt placement recomputes all 48 forwards; the optimum keeps some layers in full).
    assert best.recompute_time < baseline.recompute_time


@settings(max_examples=40, deadline=None)
@given(
    layers=st.integers(min_value=1, max_value=14),
    seed=st.integers(min_value=0, max_value=2**31),
    selective=st.booleans(),
)
def test_optimizer_never_worse_than_sqrt_placement(layers: int, seed: int, selective: bool) -> None:
    chain = random_chain(np.random.default_rng(seed), layers, selective)
    baseline = placement_cost(chain, sqrt_placement(layers))
    best = optimal_placement(chain, baseline.memory)
    assert best.memory.magnitude <= baseline.memory.magnitude * (1 + 1e-12)
    assert best.recompute_flops.magnitude <= baseline.recompute_flops.magnitude * (1 + 1e-12)


@settings(max_examples=30, deadline=None)
@given(layers=st.integers(min_value=1, max_value=12), seed=st.integers(0, 2**31))
def test_curve_is_monotone(layers: int, seed: int) -> None:
    # The curve's ends are the two extremes, derived here independently: keeping everything
    # (no recomputation) and the least memory any placement reaches, which is at most that of
    # recomputing every layer from its own input.
    chain = random_chain(np.random.default_rng(seed), layers, True)
    points = tradeoff_curve(chain).points
    keep_all = placement_cost(chain, no_recompute_placement(layers))
    every_layer = placement_cost(chain, uniform_placement(layers, layers))
    assert points[0].recompute_flops.magnitude == 0
    assert points[0].memory.magnitude == pytest.approx(keep_all.memory.magnitude, rel=1e-12)
    assert points[-1].memory.magnitude <= every_layer.memory.magnitude * (1 + 1e-12)


# ----- from the operator table, into the memory model -----------------------------------------
def test_chain_matches_operator_table_and_memory_model() -> None:
    chain = transformer_layer_chain(GPT2_XL, CONFIG, V100, LAYOUT)
    # Keeping everything equals the memory model's layer activations (pytorch profile).
    breakdown = memory_breakdown(GPT2_XL, CONFIG, V100, LAYOUT)
    kept = placement_cost(chain, no_recompute_placement(48)).memory
    assert kept.to("byte").magnitude == pytest.approx(
        breakdown.term("activations").to("byte").magnitude, rel=1e-12
    )
    # The layer input: b·s·h elements in FP16 = 4·1024·1600·2 = 13,107,200 bytes.
    assert chain.boundary[0] == 4 * 1024 * 1600 * 2
    # Selective every layer = the workload table's own recompute="selective" (attention core).
    table = transformer_operators(
        GPT2_XL, CONFIG, LAYOUT.model_copy(update={"recompute": "selective"})
    )
    layer_saved = sum(
        op.saved_bytes_after_recompute * op.count for op in table.operators if op.block == "layer"
    )
    layer_recompute = sum(
        op.recompute_flops * op.count for op in table.operators if op.block == "layer"
    )
    selective = placement_cost(chain, selective_placement(48))
    assert selective.stored.magnitude == pytest.approx(layer_saved, rel=1e-12)
    assert selective.recompute_flops.magnitude == pytest.approx(layer_recompute, rel=1e-12)
    # Full recompute: every layer forward again = the table's recompute="full" FLOPs.
    full_table = transformer_operators(
        GPT2_XL, CONFIG, LAYOUT.model_copy(update={"recompute": "full"})
    )
    full = placement_cost(chain, uniform_placement(48, 48))
    assert full.recompute_flops.magnitude == pytest.approx(
        full_table.recompute_flops.magnitude, rel=1e-12
    )


def test_cheapest_recompute_fits_the_v100() -> None:
    # A plain PyTorch run (ddp-eager: FP16 gradients, not Megatron's FP32 main gradients).
    result = cheapest_recompute(GPT2_XL, CONFIG, V100, LAYOUT, implementation="ddp-eager")
    assert result.fits
    # The V100 SXM2 32 GB datasheet capacity (32 GiB).
    assert result.memory <= Q_(32, "GiB")
    # Without recomputation the step does not fit (40 GiB of activations alone).
    assert not memory_breakdown(GPT2_XL, CONFIG, V100, LAYOUT, implementation="ddp-eager").fits()
    # Less recomputation than recomputing every layer (Megatron "full"), which also fits.
    full = LAYOUT.model_copy(update={"recompute": "full"})
    assert memory_breakdown(GPT2_XL, CONFIG, V100, full, implementation="ddp-eager").fits()
    full_flops = transformer_operators(GPT2_XL, CONFIG, full).recompute_flops
    assert result.recompute_flops < full_flops


def test_cheapest_recompute_is_none_when_it_already_fits() -> None:
    small = CONFIG.model_copy(update={"sequence_length": 256})
    result = cheapest_recompute(GPT2_XL, small, V100)
    assert str(result.placement) == "K" * 48
    assert result.recompute_flops.magnitude == 0
    # Then the total is the memory model's own total.
    assert result.memory.to("GiB").magnitude == pytest.approx(
        memory_breakdown(GPT2_XL, small, V100).total.to("GiB").magnitude, rel=1e-9
    )


def test_cheapest_recompute_reports_when_nothing_fits() -> None:
    result = cheapest_recompute(GPT2_XL, CONFIG, V100, LAYOUT, budget=Q_(1, "MiB"))
    assert not result.chain_cost.memory <= Q_(1, "MiB")
    assert (
        result.chain_cost.memory
        == tradeoff_curve(
            transformer_layer_chain(GPT2_XL, CONFIG, V100, LAYOUT)
        ).least_memory.memory
    )


# ----- validation ------------------------------------------------------------------------------
def test_placement_validation_and_round_trip() -> None:
    with pytest.raises(MlcostError, match="recompute"):
        Placement(("keep", "recompute"))
    with pytest.raises(MlcostError, match="placement"):
        Placement.parse("KXC")
    assert str(Placement.parse("kscrr")) == "KSCRR"
    assert Placement.parse("CRRCR").segments() == [(0, 3), (3, 5)]
    with pytest.raises(MlcostError, match="segments"):
        uniform_placement(4, 5)


def test_bad_inputs_raise_mlcost_errors() -> None:
    chain = uniform_chain(4, Q_(1, "GB"))
    with pytest.raises(MlcostError, match="budget"):
        optimal_placement(chain, Q_(1, "s"))
    with pytest.raises(MlcostError, match="placement"):
        placement_cost(chain, no_recompute_placement(3))
    with pytest.raises(MlcostError, match="selective"):
        transformer_layer_chain(GPT2_XL, CONFIG, layout=LAYOUT, selective="bogus")
    with pytest.raises(MlcostError, match="transformer"):
        transformer_layer_chain(CATALOG.model("resnet-50"), CONFIG)


def test_sqrt_placement_segments() -> None:
    # 48 layers in 7 segments: np.array_split gives sizes 7,7,7,7,7,7,6 -> 7 checkpoints.
    placement = sqrt_placement(48)
    assert placement.count("checkpoint") == 7
    assert [stop - start for start, stop in placement.segments()] == [7] * 6 + [6]
    assert math.isclose(placement.recomputed_layers, 48)
