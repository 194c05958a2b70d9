"""Collective communication time in the alpha-beta model, one closed form per algorithm.

The cost of sending ``S`` bytes over one link is ``alpha + S / beta`` (Hockney 1994, "The
communication challenge for MPP"): a fixed per-message latency ``alpha`` and the link's
achievable **per-direction** bandwidth ``beta`` (a collective's send and receive each see one
direction; NVLink's "900 GB/s" is both directions together, 450 GB/s each way). For ``n`` ranks
and a message of ``S`` bytes per rank:

==========================  ===================================================  ===============
collective                  time                                                  source
==========================  ===================================================  ===============
ring all-reduce             ``2(n-1)·alpha + 2(n-1)/n · S/beta``                  [P&Y 2009, §3]
tree all-reduce (binomial)  ``2·ceil(log2 n)·(alpha + S/beta)``                   [TRG 2005, §4]
ring reduce-scatter         ``(n-1)·alpha + (n-1)/n · S/beta`` (S = whole array)  [TRG 2005, §3]
ring all-gather             ``(n-1)·alpha + (n-1)/n · S/beta`` (S = whole array)  [TRG 2005, §3]
pairwise all-to-all         ``(n-1)·alpha + (n-1)/n · S/beta``                    [TRG 2005, §3]
point-to-point              ``alpha + S/beta``                                    [Hockney 1994]
pipelined broadcast         ``(n-1)·alpha + S/beta``                              [nccl-tests]
==========================  ===================================================  ===============

[TRG 2005] Thakur, Rabenseifner and Gropp, "Optimization of Collective Communication Operations
in MPICH", IJHPCA 19(1), 2005. [P&Y 2009] Patarasuk and Yuan, "Bandwidth optimal all-reduce
algorithms for clusters of workstations", JPDC 69(2), 2009 (the ring is bandwidth-optimal).
Reduction arithmetic (the ``gamma`` term) is left out: on GPUs it runs at HBM speed and hides
behind the transfers.

**Hierarchical** collectives (intra-node then inter-node; NCCL's two-level rings and trees, and
Horovod's hierarchical all-reduce): with ``k`` members of the group on each of ``N`` nodes,
all-reduce = reduce-scatter among the ``k`` local GPUs, all-reduce of the ``S/k`` shard across
the ``N`` nodes (every GPU over its own share of the NICs, all at once), all-gather among the
``k`` local GPUs.

The ``*_seconds`` kernels take plain numbers in SI units (bytes, bytes/s, seconds; arrays
welcome); the ``*_time`` functions take and return quantities.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import numpy as np
import pint

from mlcost.arrays import Real, plain
from mlcost.checks import finite
from mlcost.errors import MlcostError
from mlcost.units import Q_, magnitude_in

#: Default latency of the closed-form functions (a pure bandwidth term).
ZERO_SECONDS = Q_(0, "s")


class Collective(StrEnum):
    """The collectives the model times."""

    ALL_REDUCE = "all-reduce"
    REDUCE_SCATTER = "reduce-scatter"
    ALL_GATHER = "all-gather"
    ALL_TO_ALL = "all-to-all"
    POINT_TO_POINT = "point-to-point"
    BROADCAST = "broadcast"


COLLECTIVES: tuple[str, ...] = tuple(c.value for c in Collective)

#: Names ``mlcost bench`` gives the collectives it measures (``CollectiveFit.collective``).
BENCH_NAMES: dict[str, str] = {
    Collective.ALL_REDUCE: "all_reduce",
    Collective.ALL_GATHER: "all_gather",
    Collective.REDUCE_SCATTER: "reduce_scatter",
    Collective.ALL_TO_ALL: "all_to_all",
}


def collective_name(collective: str) -> Collective:
    """A :class:`Collective` from its name, or :class:`MlcostError` listing the known ones."""
    if isinstance(collective, Collective):
        return collective
    try:
        return Collective(collective)
    except ValueError:
        raise MlcostError(
            f"collective: got {collective!r}, expected one of {', '.join(COLLECTIVES)}"
        ) from None


# ----- the kernels (plain numbers in SI units) -------------------------------------------------
def steps_log2(n: Real) -> Real:
    """``ceil(log2 n)`` steps of a binomial tree."""
    return plain(np.ceil(np.log2(np.maximum(np.asarray(n, dtype=np.float64), 1.0))))


def ring_allreduce_seconds(size: Real, n: Real, beta: Real, alpha: Real) -> Real:
    """``2(n-1)·alpha + 2(n-1)/n · S/beta`` (0 for one rank)."""
    n = np.asarray(n, dtype=np.float64)
    return np.where(n > 1, 2 * (n - 1) * alpha + 2 * (n - 1) / n * size / beta, 0.0)


def ring_half_seconds(size: Real, n: Real, beta: Real, alpha: Real) -> Real:
    """Reduce-scatter, all-gather and pairwise all-to-all: ``(n-1)·alpha + (n-1)/n · S/beta``."""
    n = np.asarray(n, dtype=np.float64)
    return np.where(n > 1, (n - 1) * alpha + (n - 1) / n * size / beta, 0.0)


def tree_allreduce_seconds(size: Real, n: Real, beta: Real, alpha: Real) -> Real:
    """``2·ceil(log2 n)·(alpha + S/beta)``."""
    return 2 * steps_log2(n) * (alpha + size / beta)


def broadcast_seconds(size: Real, n: Real, beta: Real, alpha: Real) -> Real:
    """``(n-1)·alpha + S/beta`` (0 for one rank)."""
    n = np.asarray(n, dtype=np.float64)
    return np.where(n > 1, (n - 1) * alpha + size / beta, 0.0)


def point_to_point_seconds(size: Real, beta: Real, alpha: Real) -> Real:
    """``alpha + S/beta``."""
    return alpha + size / beta


# ----- public formulas: quantities in, quantities out ------------------------------------------
def _si(size: Any, bandwidth: Any, latency: Any) -> tuple[Real, Real, Real]:
    """Size in bytes, bandwidth in bytes/s, latency in seconds (the one unit guard), every
    element finite, the size and latency >= 0 and the bandwidth > 0 (:mod:`mlcost.checks`)."""
    return (
        finite(magnitude_in(size, "byte", "size"), "size", unit="B"),
        finite(
            magnitude_in(bandwidth, "byte/s", "bandwidth"), "bandwidth", strict=True, unit="B/s"
        ),
        finite(magnitude_in(latency, "s", "latency"), "latency", unit="s"),
    )


def check_ranks(n: Real, what: str = "ranks") -> Real:
    """``n`` unchanged when every value is a count >= 1; else :class:`MlcostError`."""
    try:
        array = np.asarray(n, dtype=np.float64)
    except (TypeError, ValueError):
        array = np.asarray([np.nan])
    if (
        array.size == 0
        or not np.all(np.isfinite(array))
        or np.any(array < 1)
        or np.any(array != np.round(array))
    ):
        raise MlcostError(f"{what}: got {n!r}, expected a whole number of ranks >= 1")
    return n


def ring_allreduce_time(
    size: pint.Quantity,
    ranks: Real,
    bandwidth: pint.Quantity,
    latency: pint.Quantity = ZERO_SECONDS,
) -> pint.Quantity:
    """Ring all-reduce ``t = 2(n-1)·alpha + 2(n-1)/n · S/beta``.

    Reduce-scatter then all-gather around a ring, ``n-1`` steps each, every step moving ``S/n``
    bytes per rank (Patarasuk and Yuan 2009, section 3; Thakur et al. 2005, section 4.4).
    ``bandwidth`` is the per-direction bandwidth each rank sends at; ``size`` the bytes each rank
    contributes. Vectorized over every argument.
    """
    s, b, a = _si(size, bandwidth, latency)
    return Q_(ring_allreduce_seconds(s, check_ranks(ranks), b, a), "s")


def tree_allreduce_time(
    size: pint.Quantity,
    ranks: Real,
    bandwidth: pint.Quantity,
    latency: pint.Quantity = ZERO_SECONDS,
) -> pint.Quantity:
    """Binomial-tree all-reduce (reduce then broadcast) ``t = 2·ceil(log2 n)·(alpha + S/beta)``.

    Thakur et al. 2005, section 4 (reduce and broadcast by binomial tree, ``log2 p`` steps each,
    whole message per step; the chapter's footnote form). Latency-optimal, so it wins for small
    messages; NCCL's pipelined double binary tree does better on large ones, which the ring
    bounds.
    """
    s, b, a = _si(size, bandwidth, latency)
    return Q_(tree_allreduce_seconds(s, check_ranks(ranks), b, a), "s")


def ring_reduce_scatter_time(
    size: pint.Quantity,
    ranks: Real,
    bandwidth: pint.Quantity,
    latency: pint.Quantity = ZERO_SECONDS,
) -> pint.Quantity:
    """Ring reduce-scatter ``t = (n-1)·alpha + (n-1)/n · S/beta``, ``S`` the whole array (each
    rank ends with ``S/n`` reduced). Thakur et al. 2005, section 4 (ring / pairwise exchange for
    long messages); nccl-tests PERFORMANCE.md uses the same ``S``."""
    s, b, a = _si(size, bandwidth, latency)
    return Q_(ring_half_seconds(s, check_ranks(ranks), b, a), "s")


def ring_allgather_time(
    size: pint.Quantity,
    ranks: Real,
    bandwidth: pint.Quantity,
    latency: pint.Quantity = ZERO_SECONDS,
) -> pint.Quantity:
    """Ring all-gather ``t = (n-1)·alpha + (n-1)/n · S/beta``, ``S`` the gathered array (each
    rank contributes ``S/n``). Thakur et al. 2005, section 3 (ring algorithm for all-gather)."""
    s, b, a = _si(size, bandwidth, latency)
    return Q_(ring_half_seconds(s, check_ranks(ranks), b, a), "s")


def alltoall_time(
    size: pint.Quantity,
    ranks: Real,
    bandwidth: pint.Quantity,
    latency: pint.Quantity = ZERO_SECONDS,
) -> pint.Quantity:
    """Pairwise-exchange all-to-all ``t = (n-1)·alpha + (n-1)/n · S/beta``: each rank holds
    ``S`` bytes, sends ``S/n`` to each of the ``n-1`` others, one peer per step (Thakur et al.
    2005, section 3, all-to-all for long messages)."""
    s, b, a = _si(size, bandwidth, latency)
    return Q_(ring_half_seconds(s, check_ranks(ranks), b, a), "s")


def point_to_point_time(
    size: pint.Quantity, bandwidth: pint.Quantity, latency: pint.Quantity = ZERO_SECONDS
) -> pint.Quantity:
    """One message ``t = alpha + S/beta`` (Hockney 1994)."""
    s, b, a = _si(size, bandwidth, latency)
    return Q_(point_to_point_seconds(s, b, a), "s")


def broadcast_time(
    size: pint.Quantity,
    ranks: Real,
    bandwidth: pint.Quantity,
    latency: pint.Quantity = ZERO_SECONDS,
) -> pint.Quantity:
    """Pipelined (chain) broadcast ``t = (n-1)·alpha + S/beta`` for large messages: all data
    leaves the root once (nccl-tests PERFORMANCE.md, "Broadcast": ``t = S/B``)."""
    s, b, a = _si(size, bandwidth, latency)
    return Q_(broadcast_seconds(s, check_ranks(ranks), b, a), "s")


def hierarchical_allreduce_time(
    size: pint.Quantity,
    nodes: Real,
    gpus_per_node: Real,
    intra_bandwidth: pint.Quantity,
    inter_bandwidth: pint.Quantity,
    intra_latency: pint.Quantity = ZERO_SECONDS,
    inter_latency: pint.Quantity = ZERO_SECONDS,
) -> pint.Quantity:
    """Two-level all-reduce: intra-node reduce-scatter, inter-node ring all-reduce of the
    ``S/k`` shard, intra-node all-gather (``k`` = GPUs of the group per node)::

        t = 2·[(k-1)·a1 + (k-1)/k · S/b1] + 2(N-1)·a2 + 2(N-1)/N · (S/k)/b2

    ``inter_bandwidth`` is what each GPU gets from the NICs while all ``k`` send at once (NIC
    bandwidth x NICs per node / GPUs per node on a rail-optimized node). Source: the
    composition of Thakur et al. 2005's ring reduce-scatter/all-gather and Patarasuk and Yuan
    2009's ring all-reduce; NCCL and Horovod implement this two-level scheme.
    """
    s, b1, a1 = _si(size, intra_bandwidth, intra_latency)
    _, b2, a2 = _si(size, inter_bandwidth, inter_latency)
    k = np.asarray(check_ranks(gpus_per_node, "gpus_per_node"), dtype=np.float64)
    n = check_ranks(nodes, "nodes")
    return Q_(2 * ring_half_seconds(s, k, b1, a1) + ring_allreduce_seconds(s / k, n, b2, a2), "s")


def hierarchical_reduce_scatter_time(
    size: pint.Quantity,
    nodes: Real,
    gpus_per_node: Real,
    intra_bandwidth: pint.Quantity,
    inter_bandwidth: pint.Quantity,
    intra_latency: pint.Quantity = ZERO_SECONDS,
    inter_latency: pint.Quantity = ZERO_SECONDS,
) -> pint.Quantity:
    """Two-level reduce-scatter (all-gather is its mirror image, same time)::

        t = (k-1)·a1 + (k-1)/k · S/b1 + (N-1)·a2 + (N-1)/N · (S/k)/b2

    Intra-node ring reduce-scatter of the whole array, then an inter-node ring reduce-scatter of
    each GPU's ``S/k`` (Thakur et al. 2005, section 3, composed over two levels).
    """
    s, b1, a1 = _si(size, intra_bandwidth, intra_latency)
    _, b2, a2 = _si(size, inter_bandwidth, inter_latency)
    k = np.asarray(check_ranks(gpus_per_node, "gpus_per_node"), dtype=np.float64)
    n = check_ranks(nodes, "nodes")
    return Q_(ring_half_seconds(s, k, b1, a1) + ring_half_seconds(s / k, n, b2, a2), "s")


hierarchical_allgather_time = hierarchical_reduce_scatter_time
