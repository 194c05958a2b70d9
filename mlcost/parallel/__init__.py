"""Parallel training: what each strategy communicates, the multi-GPU step, scaling curves and
a vectorized search over layouts.

* :mod:`mlcost.parallel.closed_forms`: the papers' and the chapter's formulas (ZeRO volumes,
  pipeline bubble, communication tax, network wall, Narayanan et al.'s end-to-end time);
* :mod:`mlcost.parallel.traffic`: per-strategy communication terms and their exposed part;
* :mod:`mlcost.parallel.step`: :func:`multi_gpu_step_time` (the step of one layout);
* :mod:`mlcost.parallel.scaling`: :func:`scaling_curve`;
* :mod:`mlcost.parallel.search`: :func:`search`, ranked layouts of a system.

The execution strategy is :class:`mlcost.layout.Layout`; the collectives are in
:mod:`mlcost.comms`; the system in :mod:`mlcost.systems`.
"""

from __future__ import annotations

from mlcost.layout import Layout
from mlcost.parallel.closed_forms import (
    NetworkWall,
    communication_tax_speedup,
    data_parallel_traffic,
    end_to_end_training_time,
    gradient_all_reduce_bytes,
    implied_communication_fraction,
    network_wall,
    pipeline_bubble_fraction,
    tensor_parallel_traffic,
    zero_communication_volume,
)
from mlcost.parallel.degrees import CommOptions, CommTerm
from mlcost.parallel.scaling import ScalingCurve, scaling_curve
from mlcost.parallel.search import SearchResult, SearchSpace, search
from mlcost.parallel.step import MultiGpuStep, multi_gpu_step_time

__all__ = [
    "CommOptions",
    "CommTerm",
    "Layout",
    "MultiGpuStep",
    "NetworkWall",
    "ScalingCurve",
    "SearchResult",
    "SearchSpace",
    "communication_tax_speedup",
    "data_parallel_traffic",
    "end_to_end_training_time",
    "gradient_all_reduce_bytes",
    "implied_communication_fraction",
    "multi_gpu_step_time",
    "network_wall",
    "pipeline_bubble_fraction",
    "scaling_curve",
    "search",
    "tensor_parallel_traffic",
    "zero_communication_volume",
]
