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

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

#: Every public name and the module that defines it, imported on first use (PEP 562): a plan
#: needs only the failure model, and ``mlcost plan`` does not load the placement optimizers.
_LAZY = {
    "chapter_checkpoint_memory": "mlcost.checkpointing.chapter",
    "chapter_optimal_checkpoints": "mlcost.checkpointing.chapter",
    "chapter_recompute_forwards": "mlcost.checkpointing.chapter",
    "chapter_strategy_table": "mlcost.checkpointing.chapter",
    "DALY_RESTART_TIME": "mlcost.checkpointing.failures",
    "LLAMA3_MTBF_PER_GPU": "mlcost.checkpointing.failures",
    "GoodputPlan": "mlcost.checkpointing.failures",
    "checkpoint_bytes": "mlcost.checkpointing.failures",
    "checkpoint_bytes_per_gpu": "mlcost.checkpointing.failures",
    "checkpoint_write_time": "mlcost.checkpointing.failures",
    "daly_interval": "mlcost.checkpointing.failures",
    "expected_failures": "mlcost.checkpointing.failures",
    "expected_wall_time": "mlcost.checkpointing.failures",
    "failure_probability": "mlcost.checkpointing.failures",
    "goodput": "mlcost.checkpointing.failures",
    "goodput_plan": "mlcost.checkpointing.failures",
    "lambert_w0": "mlcost.checkpointing.failures",
    "optimal_interval": "mlcost.checkpointing.failures",
    "storage_write_bandwidth": "mlcost.checkpointing.failures",
    "system_mtbf": "mlcost.checkpointing.failures",
    "waste_breakdown": "mlcost.checkpointing.failures",
    "waste_fraction": "mlcost.checkpointing.failures",
    "young_interval": "mlcost.checkpointing.failures",
    "TradeoffCurve": "mlcost.checkpointing.optimize",
    "optimal_placement": "mlcost.checkpointing.optimize",
    "tradeoff_curve": "mlcost.checkpointing.optimize",
    "LayerChain": "mlcost.checkpointing.placement",
    "Placement": "mlcost.checkpointing.placement",
    "PlacementCost": "mlcost.checkpointing.placement",
    "layer_chain": "mlcost.checkpointing.placement",
    "no_recompute_placement": "mlcost.checkpointing.placement",
    "placement_cost": "mlcost.checkpointing.placement",
    "selective_placement": "mlcost.checkpointing.placement",
    "sqrt_placement": "mlcost.checkpointing.placement",
    "uniform_chain": "mlcost.checkpointing.placement",
    "uniform_placement": "mlcost.checkpointing.placement",
    "SELECTIVE_PRESETS": "mlcost.checkpointing.recompute",
    "RecomputePlan": "mlcost.checkpointing.recompute",
    "cheapest_recompute": "mlcost.checkpointing.recompute",
    "transformer_layer_chain": "mlcost.checkpointing.recompute",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # found directly from now on
        return value
    raise AttributeError(f"module 'mlcost.checkpointing' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names too before their first use (tab completion lists them)."""
    return sorted(set(globals()) | set(__all__))


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
