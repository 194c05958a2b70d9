"""How long exact activation-checkpoint placement takes on chains of differing layers (issue 17,
item 5). Target: 128 heterogeneous layers within 2 s; ``cheapest_recompute`` on a 126-layer model
well under 1 s. Prints each time and its ratio to the target, measured in this run (one cold call
each: the optimizer caches nothing between calls). Run:
``.venv/bin/python benchmarks/checkpoint_placement.py [--reference]``.

Chains:

* Gemma-2-9B's layer chain at sequence 8192 on an H100 (local and global attention alternating:
  the same saved bytes under FlashAttention, different forward times), its two layer kinds
  repeated to 128 layers;
* random chains of 128 layers (saved bytes, inputs and FLOPs drawn uniformly, as in
  ``tests/checkpointing``), without and with selective recomputation: every layer differs, the
  hardest case for the Pareto sets;
* ``cheapest_recompute`` on Llama-3.1-405B (126 identical layers, TP 8) and Gemma-2-9B.

Budgets are fractions of the memory of keeping every layer. ``--reference`` also times the
optimizer of commit b6fda51 (``tests/checkpointing/reference_dp.py``) on shorter random chains.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from mlcost.checkpointing import (
    LayerChain,
    cheapest_recompute,
    no_recompute_placement,
    optimal_placement,
    placement_cost,
    tradeoff_curve,
    transformer_layer_chain,
)
from mlcost.layout import Layout
from mlcost.workload import TrainingConfig

TARGET_PLACEMENT = 2.0  # seconds, 128 heterogeneous layers (issue 17 item 5)
TARGET_RECOMPUTE = 1.0  # seconds, cheapest_recompute on a 126-layer model
BUDGETS = (0.5, 0.25, 0.1)
LAYERS = 128


def timed(call: Callable[[], Any]) -> tuple[Any, float]:
    """The result and the wall-clock seconds of one call; also prints the call's CPU seconds
    (less than wall clock when other work shares the machine)."""
    start, cpu = time.perf_counter(), time.process_time()
    result = call()
    seconds = time.perf_counter() - start
    print(f"  [{seconds:.2f} s wall, {time.process_time() - cpu:.2f} s CPU]")
    return result, seconds


def gemma_like(layers: int) -> LayerChain:
    """Gemma-2-9B's first local and global layer, alternating, ``layers`` long."""
    config = TrainingConfig(sequence_length=8192)
    chain = transformer_layer_chain("gemma-2-9b", config, "h100-sxm", Layout(micro_batch_size=1))
    pick = np.arange(layers) % 2

    def take(values: np.ndarray | None) -> np.ndarray | None:
        return None if values is None else values[:2][pick]

    return LayerChain(
        saved=chain.saved[:2][pick],
        boundary=chain.boundary[:2][pick],
        forward_flops=chain.forward_flops[:2][pick],
        forward_time=take(chain.forward_time),
        selective_saved=take(chain.selective_saved),
        selective_flops=take(chain.selective_flops),
        selective_time=take(chain.selective_time),
        description=f"Gemma-2-9B local/global x{layers // 2}",
    )


def random_chain(layers: int, selective: bool, seed: int = 0) -> LayerChain:
    rng = np.random.default_rng(seed)
    saved = rng.uniform(1, 10, layers)
    return LayerChain(
        saved=saved,
        boundary=rng.uniform(0.1, 3, layers),
        forward_flops=rng.uniform(1, 10, layers),
        selective_saved=saved * rng.uniform(0.2, 0.9, layers) if selective else None,
        selective_flops=rng.uniform(0.1, 3, layers) if selective else None,
        description=f"random, {layers} layers" + (", selective" if selective else ""),
    )


def budgets(chain: LayerChain, label: str, target: float = TARGET_PLACEMENT) -> None:
    kept = placement_cost(chain, no_recompute_placement(chain.layers)).memory
    for fraction in BUDGETS:
        best, seconds = timed(partial(optimal_placement, chain, kept * fraction))
        print(
            f"{label}: optimal_placement at {fraction:.0%} of keep-all memory: {seconds:.2f} s "
            f"(ratio to {target:g} s: {seconds / target:.2f}); "
            f"{len(best.placement.segments())} segments, {best.placement.count('keep')} kept"
        )


def curve(chain: LayerChain, label: str) -> None:
    result, seconds = timed(lambda: tradeoff_curve(chain))
    print(f"{label}: tradeoff_curve (whole Pareto curve): {seconds:.2f} s, "
          f"{len(result.points)} points")  # fmt: skip


def main() -> None:
    gemma = gemma_like(LAYERS)
    budgets(gemma, gemma.description)
    curve(gemma, gemma.description)
    for selective in (False, True):
        chain = random_chain(LAYERS, selective)
        budgets(chain, chain.description)
    for selective in (False, True):
        chain = random_chain(LAYERS // 2, selective)
        curve(chain, chain.description)
    cases = (
        ("Llama-3.1-405B (126 layers), TP 8, seq 8192", "llama-3.1-405b", Layout(tp=8)),
        ("Gemma-2-9B (42 layers), seq 8192", "gemma-2-9b", Layout()),
    )
    config = TrainingConfig(sequence_length=8192)
    for label, model, layout in cases:
        plan, seconds = timed(partial(cheapest_recompute, model, config, "h100-sxm", layout))
        print(
            f"cheapest_recompute, {label}: {seconds:.2f} s (ratio to {TARGET_RECOMPUTE:g} s: "
            f"{seconds / TARGET_RECOMPUTE:.2f}); {plan.placement}"
        )
    if "--reference" in sys.argv:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from tests.checkpointing.reference_dp import reference_frontier

        for layers in (16, 24, 32):
            chain = random_chain(layers, True)
            kept = placement_cost(chain, no_recompute_placement(layers)).memory
            _, before = timed(partial(reference_frontier, chain))
            _, after = timed(partial(optimal_placement, chain, kept * 0.25))
            print(f"random, {layers} layers, selective: previous optimizer {before:.2f} s, "
                  f"now {after:.2f} s (25% budget)")  # fmt: skip


if __name__ == "__main__":
    main()
