"""Checkpointing, both kinds.

Activation checkpoint placement (which activations to keep and which to recompute):

* :mod:`mlcost.checkpointing.chapter`: the textbook chapter's ``k·A + (L/k)·A`` abstraction;
* :mod:`mlcost.checkpointing.placement`: the layer chain, placements and their cost;
* :mod:`mlcost.checkpointing.optimize`: the exact Pareto curve and the cheapest placement;
* :mod:`mlcost.checkpointing.recompute`: a transformer's chain from its operator table, and the
  cheapest recomputation that makes a step fit.

Training-state checkpoints against failures (interval, waste, goodput):
:mod:`mlcost.checkpointing.failures`.
"""

from __future__ import annotations

from mlcost.checkpointing.chapter import (
    chapter_checkpoint_memory,
    chapter_optimal_checkpoints,
    chapter_recompute_forwards,
    chapter_strategy_table,
)
from mlcost.checkpointing.failures import (
    DALY_RESTART_TIME,
    LLAMA3_MTBF_PER_GPU,
    GoodputPlan,
    checkpoint_bytes,
    checkpoint_bytes_per_gpu,
    checkpoint_write_time,
    daly_interval,
    expected_failures,
    expected_wall_time,
    failure_probability,
    goodput,
    goodput_plan,
    lambert_w0,
    optimal_interval,
    storage_write_bandwidth,
    system_mtbf,
    waste_breakdown,
    waste_fraction,
    young_interval,
)
from mlcost.checkpointing.optimize import TradeoffCurve, optimal_placement, tradeoff_curve
from mlcost.checkpointing.placement import (
    LayerChain,
    Placement,
    PlacementCost,
    layer_chain,
    no_recompute_placement,
    placement_cost,
    selective_placement,
    sqrt_placement,
    uniform_chain,
    uniform_placement,
)
from mlcost.checkpointing.recompute import (
    SELECTIVE_PRESETS,
    RecomputePlan,
    cheapest_recompute,
    transformer_layer_chain,
)

__all__ = [
    "DALY_RESTART_TIME",
    "LLAMA3_MTBF_PER_GPU",
    "SELECTIVE_PRESETS",
    "GoodputPlan",
    "LayerChain",
    "Placement",
    "PlacementCost",
    "RecomputePlan",
    "TradeoffCurve",
    "chapter_checkpoint_memory",
    "chapter_optimal_checkpoints",
    "chapter_recompute_forwards",
    "chapter_strategy_table",
    "cheapest_recompute",
    "checkpoint_bytes",
    "checkpoint_bytes_per_gpu",
    "checkpoint_write_time",
    "daly_interval",
    "expected_failures",
    "expected_wall_time",
    "failure_probability",
    "goodput",
    "goodput_plan",
    "lambert_w0",
    "layer_chain",
    "no_recompute_placement",
    "optimal_interval",
    "optimal_placement",
    "placement_cost",
    "selective_placement",
    "sqrt_placement",
    "storage_write_bandwidth",
    "system_mtbf",
    "tradeoff_curve",
    "transformer_layer_chain",
    "uniform_chain",
    "uniform_placement",
    "waste_breakdown",
    "waste_fraction",
    "young_interval",
]
