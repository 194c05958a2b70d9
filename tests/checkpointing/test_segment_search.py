"""The branch-and-bound placement search (mlcost.checkpointing.segment_search) against
exhaustive search written here (every placement of a small chain evaluated with the module
docstring's formula), and against the previous optimizer on chains too long to enumerate."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mlcost.checkpointing import LayerChain, optimal_placement, placement_cost, tradeoff_curve
from mlcost.checkpointing.optimize import _pareto_costs
from mlcost.units import Q_
from tests.checkpointing.reference_dp import reference_frontier
from tests.checkpointing.test_activations import all_placement_codes, placement_memory_and_cost

KINDS = 4  # layer kinds of the structured chains (local/global attention, uneven stages)


def brute_force(chain: LayerChain, selective: bool) -> tuple[np.ndarray, np.ndarray]:
    """Memory and cost of every placement (the exhaustive oracle of test_activations)."""
    return placement_memory_and_cost(chain, all_placement_codes(chain.layers, selective))


def frontier(memory: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """For each distinct cost (costs within a relative 1e-12 of a group's cheapest are one: the
    same forwards summed in another order), its least memory, kept when below every cheaper
    point's memory."""
    order = np.argsort(cost, kind="stable")
    points: list[tuple[float, float]] = []
    start = 0
    while start < order.size:
        stop = start
        while stop < order.size and cost[order[stop]] <= cost[order[start]] * (1 + 1e-12):
            stop += 1
        group = order[start:stop]
        least = float(memory[group].min())
        if not points or least < points[-1][0] * (1 - 1e-12):
            points.append((least, float(cost[order[start]])))
        start = stop
    return np.array(points)


def make_chain(
    seed: int, layers: int, selective: bool, kinds: int | None, small: bool = False
) -> LayerChain:
    """Random layer costs; with ``kinds``, every layer one of that many random kinds (the
    repeated values of real chains, where ties between placements are common); ``small``: small
    integers with zeros (layers that save nothing, free checkpoints and forwards, exact ties)."""
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, kinds, layers) if kinds else np.arange(layers)
    size = kinds or layers

    def draw(low: float, high: float) -> np.ndarray:
        if small:
            values = rng.integers(0, 4, size).astype(float)
            return np.asarray(values[pick])
        return np.asarray(rng.uniform(low, high, size)[pick])

    saved = draw(1, 10)
    fraction = rng.choice([0.5, 1.0], layers) if small else rng.uniform(0.2, 0.9, size)[pick]
    return LayerChain(
        saved=saved,
        boundary=draw(0.1, 3),
        forward_flops=draw(1, 10),
        selective_saved=saved * fraction if selective else None,
        selective_flops=draw(0.1, 3) if selective else None,
        in_flight=int(rng.integers(1, 4)),
    )


chains = st.builds(
    make_chain,
    seed=st.integers(0, 2**31),
    layers=st.integers(1, 8),
    selective=st.booleans(),
    kinds=st.sampled_from([None, 1, 2, KINDS]),
    small=st.booleans(),
)


@settings(max_examples=60, deadline=None)
@given(chain=chains)
def test_curve_equals_brute_force(chain: LayerChain) -> None:
    selective = chain.selective_saved is not None
    expected = frontier(*brute_force(chain, selective))
    points = tradeoff_curve(chain, method="dynamic-program").points
    found = np.array([(p.memory.magnitude, p.recompute_flops.magnitude) for p in points])
    assert found.shape == expected.shape
    np.testing.assert_allclose(found, expected, rtol=1e-9, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(chain=chains, where=st.floats(0.0, 1.2))
# Found by hypothesis in CI: a placement tying the least cost with less memory was pruned
# by a cost limit compared without tolerance.
@example(
    chain=make_chain(seed=462079, layers=8, selective=False, kinds=2, small=False), where=0.9375
)
def test_budget_equals_brute_force(chain: LayerChain, where: float) -> None:
    # A budget anywhere from nothing fits (0) to everything kept fits (the largest memory).
    memory, cost = brute_force(chain, chain.selective_saved is not None)
    budget = float(memory.max()) * where
    fits = memory <= budget * (1 + 1e-12)
    if fits.any():
        # The least cost that fits, then the least memory among placements of that cost.
        least = cost[fits].min()
        tied = fits & (cost <= least * (1 + 1e-12) + 1e-300)
        want_cost, want_memory = least, memory[tied].min()
    else:
        # Nothing fits: the least memory, then the least cost among those.
        lowest = memory.min()
        tied = memory <= lowest * (1 + 1e-12)
        want_cost, want_memory = cost[tied].min(), lowest
    best = optimal_placement(chain, Q_(budget, "byte"))
    assert best.recompute_flops.magnitude == pytest.approx(want_cost, rel=1e-9, abs=1e-12)
    assert best.memory.magnitude == pytest.approx(want_memory, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(
    ("layers", "selective", "kinds", "seed"),
    [(18, True, None, 0), (20, False, 2, 1), (16, True, KINDS, 2)],
)
def test_curve_equals_previous_optimizer(
    layers: int, selective: bool, kinds: int | None, seed: int
) -> None:
    # Beyond exhaustive search: the optimizer of commit b6fda51 (one program per cap).
    chain = make_chain(seed, layers, selective, kinds)
    before = _pareto_costs(chain, [placement_cost(chain, p) for p in reference_frontier(chain)])
    after = tradeoff_curve(chain).points
    assert len(after) == len(before)
    for new, old in zip(after, before, strict=True):
        assert new.memory.magnitude == pytest.approx(old.memory.magnitude, rel=1e-9)
        assert new.recompute_flops.magnitude == pytest.approx(
            old.recompute_flops.magnitude, rel=1e-9
        )
    # And every budget on that curve gives the curve's point.
    for point in before[:: max(1, len(before) // 8)]:
        best = optimal_placement(chain, point.memory)
        assert best.recompute_flops.magnitude == pytest.approx(
            point.recompute_flops.magnitude, rel=1e-9
        )
        assert best.memory <= point.memory * (1 + 1e-12)


def test_gemma2_chain_equals_brute_force() -> None:
    # A real chain of differing layers: Gemma-2-9B's first 8 layers (local and global attention
    # alternating, forward times from the roofline differ), on an H100 at sequence 8192.
    from mlcost.checkpointing import transformer_layer_chain
    from mlcost.workload import TrainingConfig

    full = transformer_layer_chain("gemma-2-9b", TrainingConfig(sequence_length=8192), "h100-sxm")
    cut = slice(0, 8)
    chain = LayerChain(
        saved=full.saved[cut],
        boundary=full.boundary[cut],
        forward_flops=full.forward_flops[cut],
        selective_saved=None if full.selective_saved is None else full.selective_saved[cut],
        selective_flops=None if full.selective_flops is None else full.selective_flops[cut],
        in_flight=full.in_flight,
    )
    assert not chain.is_uniform()
    memory, cost = brute_force(chain, chain.selective_saved is not None)
    expected = frontier(memory, cost)
    points = tradeoff_curve(chain).points
    found = np.array([(p.memory.magnitude, p.recompute_flops.magnitude) for p in points])
    np.testing.assert_allclose(found, expected, rtol=1e-9)
    for budget, want in zip(expected[:, 0], expected[:, 1], strict=True):
        best = optimal_placement(chain, Q_(budget, "byte"))
        assert best.recompute_flops.magnitude == pytest.approx(want, rel=1e-9, abs=1e-6)
