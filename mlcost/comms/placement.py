"""A collective on a group of ranks placed on a :class:`mlcost.systems.System`, and the
algorithms that carry it (a registry: a new algorithm is one :func:`register_algorithm` call).

Ranks are numbered node by node, so a group whose members are ``stride`` apart keeps
``per_node = min(ranks, max(1, g // stride))`` of them on each node. Inside a node a member sends
at the intra-node link's achievable bandwidth; across nodes the ``g / per_node`` groups of a node
share its NICs, so each member gets ``NICs x NIC bandwidth / g``. A flat algorithm spanning nodes
runs at the slowest tier; the hierarchical one uses each tier for its own part. ``auto`` takes
the fastest algorithm that carries the collective, as NCCL's tuner picks.

A measured profile replaces the intra-node model: when the accelerator carries
``measured.collectives`` (``mlcost calibrate``, :func:`mlcost.calibrate.fit_collectives`), the
fitted ``alpha`` and bandwidth of that collective stand for the intra-node link.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pint

from mlcost.arrays import Flags, Real, plain
from mlcost.checks import finite
from mlcost.comms.bandwidth import algorithm_bandwidth, bus_bandwidth, bus_bandwidth_factor
from mlcost.comms.collectives import (
    BENCH_NAMES,
    Collective,
    broadcast_seconds,
    check_ranks,
    collective_name,
    point_to_point_seconds,
    ring_allreduce_seconds,
    ring_half_seconds,
    tree_allreduce_seconds,
)
from mlcost.errors import MlcostError
from mlcost.records import Record
from mlcost.results import Figure, Result
from mlcost.specs.hardware import CollectiveFit
from mlcost.systems import System, SystemLike, system
from mlcost.units import Q_, in_unit, magnitude_in

if TYPE_CHECKING:
    import pandas as pd


class GroupPlacement(Record, frozen=True):
    """Where a communication group sits: ``ranks`` members, ``per_node`` of them on each node
    (arrays allowed), and the bandwidth each member gets on each tier (bytes/s) and latency (s).
    """

    ranks: Real
    per_node: Real
    nodes: Real
    intra_bandwidth: Real
    inter_bandwidth: Real
    intra_latency: Real
    inter_latency: Real


def placement(
    system: System, ranks: Real, stride: Real = 1, *, gpus_per_node: Real | None = None
) -> GroupPlacement:
    """Place a group of ``ranks`` GPUs whose global ranks are ``stride`` apart (module
    docstring). Vectorized over ``ranks``, ``stride`` and ``gpus_per_node`` (the GPUs in use per
    node)."""
    g = np.asarray(
        system.gpus_per_node if gpus_per_node is None else gpus_per_node, dtype=np.float64
    )
    n = np.asarray(ranks, dtype=np.float64)
    stride = np.asarray(stride, dtype=np.float64)
    per_node = np.minimum(n, np.maximum(1.0, np.floor(g / stride)))
    nodes = np.ceil(n / per_node)
    intra_b = system.intra.bandwidth_bytes if system.intra else np.inf
    intra_a = system.intra.latency_seconds if system.intra else 0.0
    if system.inter is not None:
        nic = system.inter.bandwidth_bytes * system.nics_per_node
        inter_b = nic / g
        inter_a = system.inter.latency_seconds
    else:
        inter_b = np.full_like(g, np.inf)
        inter_a = 0.0
    if np.any((nodes > 1) & ~np.isfinite(inter_b)):
        raise MlcostError(f"system: {system.name} has no inter-node link for a multi-node group")
    return GroupPlacement(
        ranks=n,
        per_node=per_node,
        nodes=nodes,
        intra_bandwidth=intra_b,
        inter_bandwidth=inter_b,
        intra_latency=intra_a,
        inter_latency=inter_a,
    )


class GroupLinks(Record, frozen=True):
    """The numbers every algorithm needs for one collective on one group (plain arrays): ranks
    ``n``, members per node ``k``, ``nodes``, whether it stays in one node, each tier's
    bandwidth and latency, and those of a flat scheme spanning both tiers."""

    n: Real
    k: Real
    nodes: Real
    single: Flags
    b1: Real
    a1: Real
    b2: Real
    a2: Real
    flat_b: Real
    flat_a: Real
    nvls_b: Real = 0.0  # NVLS switch-port rate per GPU and direction (0: none)
    nvls_min: int = 2


def _fit_for(system: System, collective: Collective) -> CollectiveFit | None:
    wanted = BENCH_NAMES.get(collective)
    for fit in system.fits:
        if fit.collective == wanted:
            return fit
    return None


def group_links(
    system: System, collective: Collective, where: GroupPlacement, fit_world_size: int | None
) -> GroupLinks:
    """:class:`GroupLinks` of a placed group; a measured fit of ``collective`` replaces the
    intra-node tier: ``beta_bus = B_fit x factor(n_fit)`` and a per-step ``alpha`` such that a
    ring at ``n_fit`` reproduces the fit ``t = alpha_fit + S / B_fit`` exactly."""
    n, k, nodes = where.ranks, where.per_node, where.nodes
    b1: Any = where.intra_bandwidth
    a1: Any = where.intra_latency
    b2, a2 = where.inter_bandwidth, where.inter_latency
    fit = _fit_for(system, collective)
    if fit is not None:
        n_fit = np.asarray(fit_world_size or n, dtype=np.float64)
        factor = np.asarray(bus_bandwidth_factor(collective, n_fit), dtype=np.float64)
        b1 = in_unit(fit.bandwidth, "byte/s") * np.where(factor > 0, factor, 1.0)
        steps = 2 * (n_fit - 1) if collective == Collective.ALL_REDUCE else n_fit - 1
        a1 = in_unit(fit.alpha, "s") / np.maximum(steps, 1.0)
    single = nodes <= 1
    # flat schemes span nodes at the slowest tier: inter bandwidth for the group = the NIC share
    # of its k members per node, k x (NICs x NIC bw / g)
    flat_b = np.where(single, b1, np.minimum(b1, b2 * k))
    flat_a = np.where(single, a1, np.maximum(a1, a2))
    if fit is not None:
        flat_a = np.where(single, a1, flat_a)
    intra = system.intra
    nvls_b = 0.0
    if intra is not None and intra.reduction_efficiency is not None:
        nvls_b = intra.peak_bytes * intra.reduction_efficiency
    nvls_min = intra.reduction_min_ranks if intra is not None else 2
    return GroupLinks(
        n=n,
        k=k,
        nodes=nodes,
        single=single,
        b1=b1,
        a1=a1,
        b2=b2,
        a2=a2,
        flat_b=flat_b,
        flat_a=flat_a,
        nvls_b=nvls_b,
        nvls_min=nvls_min,
    )


# ----- the algorithms ---------------------------------------------------------------------------
Seconds = Callable[[Collective, Any, GroupLinks], Any]


class Algorithm(Record, frozen=True):
    """A way to carry collectives: the ones it carries, its time, and where it comes from."""

    name: str
    collectives: frozenset[Collective]
    seconds: Seconds
    source: str


ALGORITHMS: dict[str, Algorithm] = {}


def register_algorithm(algorithm: Algorithm) -> Algorithm:
    """Add an algorithm to :data:`ALGORITHMS` (``auto`` then considers it)."""
    ALGORITHMS[algorithm.name] = algorithm
    return algorithm


def _ring(collective: Collective, size: Any, g: GroupLinks) -> Any:
    if collective == Collective.ALL_REDUCE:
        return ring_allreduce_seconds(size, g.n, g.flat_b, g.flat_a)
    return ring_half_seconds(size, g.n, g.flat_b, g.flat_a)


def _tree(collective: Collective, size: Any, g: GroupLinks) -> Any:
    return tree_allreduce_seconds(size, g.n, g.flat_b, g.flat_a)


def _hierarchical(collective: Collective, size: Any, g: GroupLinks) -> Any:
    """Two tiers where the group spans nodes, the flat ring where it stays in one (so groups
    that all stay in one node are the ring, without evaluating the two-level scheme)."""
    if not np.any(~np.asarray(g.single, dtype=bool)):
        ring = _ring(collective, size, g)
        if np.shape(ring) == np.broadcast_shapes(np.shape(g.single), np.shape(ring)):
            return np.where(g.single, ring, 0.0)  # np.where's own result: a fresh float array
    local = ring_half_seconds(size, g.k, g.b1, g.a1)
    if collective == Collective.ALL_REDUCE:
        two_level = 2 * local + ring_allreduce_seconds(size / g.k, g.nodes, g.b2, g.a2)
    else:
        two_level = local + ring_half_seconds(size / g.k, g.nodes, g.b2, g.a2)
    return np.where(g.single, _ring(collective, size, g), two_level)


def _direct(collective: Collective, size: Any, g: GroupLinks) -> Any:
    """Point-to-point (``alpha + S/beta`` on the tier the pair spans), pipelined broadcast, and
    pairwise all-to-all with its intra-node part ``(k-1)/n`` of ``S`` over NVLink and its
    inter-node part ``(n-k)/n`` over the member's NIC share, running at once."""
    if collective == Collective.POINT_TO_POINT:
        beta = np.where(g.single, g.b1, g.b2)
        return np.where(g.n > 1, point_to_point_seconds(size, beta, g.flat_a), 0.0)
    if collective == Collective.BROADCAST:
        return broadcast_seconds(size, g.n, g.flat_b, g.flat_a)
    intra = (g.k - 1) / g.n * size / g.b1
    inter = np.where(g.single, 0.0, (g.n - g.k) / g.n * size / g.b2)
    return np.where(g.n > 1, (g.n - 1) * g.flat_a + np.maximum(intra, inter), 0.0)


def _nvls(collective: Collective, size: Any, g: GroupLinks) -> Any:
    """In-network all-reduce inside one node (NVLink SHARP): per GPU and direction the switch
    moves ``S + S/n`` (the whole buffer read for the reduction, the reduced ``1/n`` chunk stored
    to all; :attr:`mlcost.specs.Link.in_network_port_rate`), so ``alpha + S·(n+1)/n / B_port``,
    ``B_port`` the switch-port rate derived from the link's measured algorithm bandwidth; from
    ``nvls_min`` GPUs on, as NCCL selects it (infinite elsewhere, so ``auto`` keeps the ring)."""
    usable = g.single & (g.n >= g.nvls_min) & (g.nvls_b > 0)
    rate = g.nvls_b if g.nvls_b > 0 else 1.0
    n = np.maximum(g.n, 1)
    return np.where(usable, g.a1 + size * (n + 1) / n / rate, np.inf)


_REDUCTIONS = frozenset({Collective.ALL_REDUCE, Collective.REDUCE_SCATTER, Collective.ALL_GATHER})
register_algorithm(
    Algorithm("ring", _REDUCTIONS, _ring, "Patarasuk and Yuan 2009; Thakur et al. 2005")
)
register_algorithm(
    Algorithm("tree", frozenset({Collective.ALL_REDUCE}), _tree, "Thakur et al. 2005, section 4")
)
register_algorithm(
    Algorithm(
        "hierarchical",
        _REDUCTIONS,
        _hierarchical,
        "two-level rings (NCCL, Horovod): Thakur et al. 2005 composed over two tiers",
    )
)
register_algorithm(
    Algorithm(
        "nvls",
        frozenset({Collective.ALL_REDUCE}),
        _nvls,
        "NVLink SHARP in-network reduction (NCCL NVLS, src/device/all_reduce.h): S + S/n per GPU "
        "and direction; nccl-tests issue #212 (8x H100, algbw 275 GB/s)",
    )
)
register_algorithm(
    Algorithm(
        "direct",
        frozenset({Collective.POINT_TO_POINT, Collective.BROADCAST, Collective.ALL_TO_ALL}),
        _direct,
        "Hockney 1994; nccl-tests PERFORMANCE.md; Thakur et al. 2005, section 3",
    )
)


def algorithms_for(collective: str) -> list[str]:
    """The registered algorithms that carry ``collective``."""
    wanted = collective_name(collective)
    return [name for name, a in ALGORITHMS.items() if wanted in a.collectives]


def collective_seconds(
    system: System,
    collective: str,
    size: Real,
    where: GroupPlacement,
    algorithm: str = "auto",
    fit_world_size: int | None = None,
) -> Real:
    """Seconds of one collective of ``size`` bytes (per rank; the whole array for
    reduce-scatter and all-gather) on the group ``where``, plain arrays in and out; ``auto``
    is the fastest registered algorithm that carries it."""
    wanted = collective_name(collective)
    links = group_links(system, wanted, where, fit_world_size)
    return _seconds_on(links, wanted, np.asarray(size, dtype=np.float64), algorithm)


def collective_seconds_by_size(
    system: System, collective: str, sizes: Sequence[Real], where: GroupPlacement
) -> list[Real]:
    """:func:`collective_seconds` (``auto``) of several message ``sizes`` on the same group,
    its links worked out once."""
    wanted = collective_name(collective)
    links = group_links(system, wanted, where, None)
    names = algorithms_for(wanted)
    return [
        _seconds_on(links, wanted, np.asarray(size, dtype=np.float64), "auto", names)
        for size in sizes
    ]


def _seconds_on(
    links: GroupLinks,
    wanted: Collective,
    size: Real,
    algorithm: str,
    names: list[str] | None = None,
) -> Real:
    """Seconds of one collective of ``size`` bytes on a group's ``links`` (see
    :func:`collective_seconds`); ``names``: :func:`algorithms_for` ``wanted``, when known."""
    if algorithm == "auto":
        names = algorithms_for(wanted) if names is None else names
        times = [ALGORITHMS[name].seconds(wanted, size, links) for name in names]
        return np.minimum.reduce(np.broadcast_arrays(*times)) if len(times) > 1 else times[0]
    if algorithm not in ALGORITHMS:
        raise MlcostError(
            f"algorithm: got {algorithm!r}, expected auto or one of {', '.join(ALGORITHMS)}"
        )
    chosen = ALGORITHMS[algorithm]
    if wanted not in chosen.collectives:
        raise MlcostError(
            f"algorithm: {algorithm!r} carries {', '.join(sorted(chosen.collectives))}, not "
            f"{wanted}; use one of {', '.join(algorithms_for(wanted))} or auto"
        )
    return chosen.seconds(wanted, size, links)


class CollectiveTime(Record, Result, frozen=True):
    """One collective on a system: time, algorithm and bus bandwidth, and how it was placed."""

    collective: str
    algorithm: str
    size: pint.Quantity
    ranks: Real
    nodes: Real
    time: pint.Quantity
    system: System

    @property
    def algorithm_bandwidth(self) -> pint.Quantity:
        return algorithm_bandwidth(self.size, self.time)

    @property
    def bus_bandwidth(self) -> pint.Quantity:
        return bus_bandwidth(self.size, self.time, self.collective, self.ranks)

    def title(self) -> str:
        return f"{self.collective} ({self.algorithm}) on {self.system.describe()}"

    def figures(self) -> list[Figure]:
        factor = bus_bandwidth_factor(self.collective, self.ranks)
        source = "alpha-beta model (Hockney 1994); " + (
            ALGORITHMS[self.algorithm].source if self.algorithm in ALGORITHMS else "fastest"
        )
        return [
            Figure(
                "time",
                self.time,
                f"{self.collective} by {self.algorithm}",
                f"{np.max(self.size.to('MB').magnitude):,.3f} MB on {self.ranks} ranks over "
                f"{self.nodes} node(s)",
                source,
            ),
            Figure("algbw", self.algorithm_bandwidth, "S / t", "", "nccl-tests PERFORMANCE.md"),
            Figure(
                "busbw",
                self.bus_bandwidth,
                "algbw x factor",
                f"factor {np.max(factor):.4f}",
                "nccl-tests PERFORMANCE.md",
            ),
        ]


def collective_time(
    target: SystemLike,
    collective: str,
    size: pint.Quantity,
    *,
    ranks: Real | None = None,
    stride: Real = 1,
    nodes: int | None = None,
    algorithm: str = "auto",
    fit_world_size: int | None = None,
    strict: bool = True,
) -> CollectiveTime:
    """Time of one collective of ``size`` bytes on ``ranks`` GPUs of a system (default: every
    GPU of ``nodes`` nodes), ``stride`` apart in rank order. ``algorithm``: ``ring`` (flat),
    ``tree`` (binomial, all-reduce only), ``hierarchical`` (intra then inter node), ``nvls``
    (in-network all-reduce in one node, where the switches offer it), or ``auto`` (the fastest
    of those). ``size`` may hold an array (a sweep in one call). An algorithm that cannot run on
    the group raises, or with ``strict=False`` takes infinitely long. A group of one rank raises
    (it moves nothing: no time, no bandwidth)."""
    resolved = system(target, nodes=nodes)
    n = resolved.gpus if ranks is None else check_ranks(ranks)
    if np.any(np.asarray(n) < 2):  # no data moves: time 0, and S / 0 is no bandwidth
        raise MlcostError(
            f"ranks: got {n!r} on {resolved.name}, expected at least 2 (a collective over one "
            "GPU moves nothing, so it has no time or bandwidth to report); give --ranks 2 or "
            "more, or a system with more GPUs"
        )
    if np.any(np.asarray(n) * np.asarray(stride) > resolved.gpus):
        raise MlcostError(
            f"ranks: {n} ranks {stride} apart need more than the {resolved.gpus} GPUs of "
            f"{resolved.nodes} x {resolved.gpus_per_node}; raise --nodes"
        )
    where = placement(resolved, n, stride)
    size_bytes = finite(magnitude_in(size, "byte", "size"), "size", unit="B")
    seconds = collective_seconds(resolved, collective, size_bytes, where, algorithm, fit_world_size)
    if strict and not np.all(np.isfinite(np.asarray(seconds))):
        raise MlcostError(
            f"algorithm: {algorithm!r} cannot run on {n} GPUs of {resolved.name} (in-network "
            "reduction needs one node whose switches offer it, and enough GPUs); use auto"
        )
    nodes_used = plain(where.nodes)
    return CollectiveTime(
        collective=str(collective_name(collective)),
        algorithm=algorithm,
        size=Q_(size_bytes, "byte"),
        ranks=n,
        nodes=int(nodes_used) if np.ndim(nodes_used) == 0 else nodes_used,
        time=Q_(seconds, "s").to("ms"),
        system=resolved,
    )


def collective_table(
    target: SystemLike,
    collective: str,
    size: pint.Quantity,
    *,
    ranks: int | None = None,
    nodes: int | None = None,
) -> pd.DataFrame:
    """Every algorithm for one collective that can run on this group (an in-network reduction
    needs a switch that offers it), as nccl-tests would print it: time, algbw, busbw."""
    import pandas as pd

    names = algorithms_for(collective)
    algorithms = [*names, "auto"] if len(names) > 1 else ["auto"]
    rows = []
    for algorithm in algorithms:
        result = collective_time(
            target, collective, size, ranks=ranks, nodes=nodes, algorithm=algorithm, strict=False
        )
        if not np.all(np.isfinite(np.asarray(result.time.magnitude))):
            continue
        rows.append(
            {
                "collective": result.collective,
                "algorithm": algorithm,
                "ranks": int(result.ranks),
                "nodes": int(result.nodes),
                "bytes": float(in_unit(result.size, "byte")),
                "time_ms": float(in_unit(result.time, "ms")),
                "algbw_GBps": float(result.algorithm_bandwidth.magnitude),
                "busbw_GBps": float(result.bus_bandwidth.magnitude),
            }
        )
    return pd.DataFrame(rows)
