"""Parallel training: what each strategy communicates, the multi-GPU step, scaling curves and
a vectorized search over configurations.

* :mod:`mlcost.parallel.strategies`: :class:`Layout`, per-strategy traffic and its exposed part;
* :mod:`mlcost.parallel.step`: :func:`multi_gpu_step_time`, time to train, scaling curves, the
  chapter's communication tax and network wall, Narayanan et al.'s end-to-end estimate;
* :mod:`mlcost.parallel.search`: :func:`search`, ranked configurations of a cluster.

The collectives themselves are in :mod:`mlcost.comms`.
"""

from __future__ import annotations

from mlcost.parallel.search import search
from mlcost.parallel.step import (
    MultiGpuStep,
    NetworkWall,
    communication_tax_speedup,
    end_to_end_training_time,
    implied_communication_fraction,
    layout_memory,
    multi_gpu_step_time,
    network_wall,
    scaling_curve,
)
from mlcost.parallel.strategies import (
    CommTerm,
    Layout,
    MixtureOfExperts,
    data_parallel_traffic,
    pipeline_bubble_fraction,
    tensor_parallel_traffic,
    zero_communication_volume,
)

__all__ = [
    "CommTerm",
    "Layout",
    "MixtureOfExperts",
    "MultiGpuStep",
    "NetworkWall",
    "communication_tax_speedup",
    "data_parallel_traffic",
    "end_to_end_training_time",
    "implied_communication_fraction",
    "layout_memory",
    "multi_gpu_step_time",
    "network_wall",
    "pipeline_bubble_fraction",
    "scaling_curve",
    "search",
    "tensor_parallel_traffic",
    "zero_communication_volume",
]
