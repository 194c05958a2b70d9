"""Collective communication time: the alpha-beta model over a system's links.

* :mod:`mlcost.comms.collectives`: one closed form per algorithm (ring, tree, hierarchical,
  pairwise, pipelined broadcast, point-to-point);
* :mod:`mlcost.comms.bandwidth`: algorithm and bus bandwidth as nccl-tests reports them;
* :mod:`mlcost.comms.placement`: a group of ranks placed on a :class:`mlcost.systems.System`, the
  registry of algorithms, :func:`collective_time` and :func:`collective_table`.

The links and their achievable bandwidths are :mod:`mlcost.systems`'s.
"""

from __future__ import annotations

from mlcost.comms.bandwidth import algorithm_bandwidth, bus_bandwidth, bus_bandwidth_factor
from mlcost.comms.collectives import (
    BENCH_NAMES,
    COLLECTIVES,
    ZERO_SECONDS,
    Collective,
    alltoall_time,
    broadcast_time,
    hierarchical_allgather_time,
    hierarchical_allreduce_time,
    hierarchical_reduce_scatter_time,
    point_to_point_time,
    ring_allgather_time,
    ring_allreduce_time,
    ring_reduce_scatter_time,
    tree_allreduce_time,
)
from mlcost.comms.placement import (
    ALGORITHMS,
    Algorithm,
    CollectiveTime,
    GroupPlacement,
    algorithms_for,
    collective_seconds,
    collective_table,
    collective_time,
    placement,
    register_algorithm,
)

__all__ = [
    "ALGORITHMS",
    "BENCH_NAMES",
    "COLLECTIVES",
    "ZERO_SECONDS",
    "Algorithm",
    "Collective",
    "CollectiveTime",
    "GroupPlacement",
    "algorithm_bandwidth",
    "algorithms_for",
    "alltoall_time",
    "broadcast_time",
    "bus_bandwidth",
    "bus_bandwidth_factor",
    "collective_seconds",
    "collective_table",
    "collective_time",
    "hierarchical_allgather_time",
    "hierarchical_allreduce_time",
    "hierarchical_reduce_scatter_time",
    "placement",
    "point_to_point_time",
    "register_algorithm",
    "ring_allgather_time",
    "ring_allreduce_time",
    "ring_reduce_scatter_time",
    "tree_allreduce_time",
]
