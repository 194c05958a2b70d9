"""Collective communication time: the alpha-beta model over a system's links.

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

**Bus bandwidth** (NVIDIA nccl-tests, ``doc/PERFORMANCE.md``): ``algbw = S/t`` and
``busbw = algbw x factor`` with factor ``2(n-1)/n`` for all-reduce, ``(n-1)/n`` for all-gather,
reduce-scatter and all-to-all, and 1 for broadcast, reduce and send/receive, so that a run's
``busbw`` can be compared with the link's bandwidth whatever ``n`` is; a ring with no latency
has ``busbw = beta`` exactly.

**Achievable bandwidth.** Collectives never reach line rate. :data:`ACHIEVABLE_FRACTION` holds
the default fraction per link family, each from a public NVIDIA/NCCL statement (see its
comment); :data:`HOP_LATENCY` the default per-step latency, from NCCL's own tuning model. Both are
inputs (:func:`link_model`), and a measured profile replaces them: when the accelerator carries
``measured.collectives`` (``mlcost calibrate``, :func:`mlcost.calibrate.fit_collectives`), the
fitted ``alpha`` and bandwidth of that collective are used for the intra-node link.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
import pandas as pd
import pint

from mlcost.errors import MlcostError
from mlcost.specs import Accelerator, Catalog, Cluster, Link, Node, Spec, default_catalog
from mlcost.specs.hardware import CollectiveFit
from mlcost.units import Q_

Number = Any
Collective = Literal[
    "all-reduce", "reduce-scatter", "all-gather", "all-to-all", "point-to-point", "broadcast"
]
Algorithm = Literal["auto", "ring", "tree", "hierarchical"]

COLLECTIVES: tuple[str, ...] = (
    "all-reduce",
    "reduce-scatter",
    "all-gather",
    "all-to-all",
    "point-to-point",
    "broadcast",
)
ALGORITHMS: tuple[str, ...] = ("auto", "ring", "tree", "hierarchical")

#: Achievable share of a link's per-direction line rate that NCCL collectives reach (bus
#: bandwidth at large messages over line rate). Sources:
#:
#: * ``nvlink`` 370/450 = 0.822: NCCL maintainer (S. Jeaugey) on NVIDIA/nccl-tests issue #212
#:   (2024-05-06): "450GB/s is the line rate. With the protocol overhead (~20%) NCCL can get an
#:   effective NVLink bandwidth of 370GB/s" (H100, NVLink 4, ring algorithm).
#: * ``infiniband`` / ``ethernet`` 47/50 = 0.94: NVIDIA (D. Addison) on NVIDIA/nccl-tests issue
#:   #290 (2025-03-03): "For NDR @ 400Gbps you should see 46-48GB/s per NIC" (midpoint 47 of the
#:   50 GB/s line rate); the same ratio holds for 200 Gbit/s HDR (24 of 25 GB/s, NVIDIA/nccl
#:   issue #412) and 100 Gbit/s (12.2 of 12.5 GB/s, nccl-tests issue #29).
#: * ``pcie`` 24/31.5 = 0.76: NCCL's topology model counts PCIe Gen4 at 1.5 GB/s per lane after
#:   protocol overhead against 1.97 GB/s line rate (NVIDIA/nccl issue #1206, S. Jeaugey).
#: * ``infinity-fabric`` / ``other`` 0.8: an assumption (no public NCCL/RCCL figure found).
ACHIEVABLE_FRACTION: dict[str, float] = {
    "nvlink": 370 / 450,
    "infiniband": 47 / 50,
    "ethernet": 47 / 50,
    "pcie": 24 / 31.5,
    "infinity-fabric": 0.8,
    "other": 0.8,
}

#: Per-step latency ``alpha`` by link family: NCCL's tuning model, ``hwLat`` table for the Ring
#: algorithm and Simple protocol (NVIDIA/nccl ``src/graph/tuning.cc``, NCCL 2.18-2.23):
#: NVLink 3.4 us, PCI 5.7 us, network 14.0 us per hop. A catalog link's own ``latency`` (an
#: adapter figure that leaves out software) is used when it is larger.
HOP_LATENCY: dict[str, pint.Quantity] = {
    "nvlink": Q_(3.4, "us"),
    "pcie": Q_(5.7, "us"),
    "infiniband": Q_(14.0, "us"),
    "ethernet": Q_(14.0, "us"),
    "infinity-fabric": Q_(3.4, "us"),
    "other": Q_(14.0, "us"),
}

#: Names ``mlcost bench`` gives the collectives it measures (``CollectiveFit.collective``).
#: Default latency of the closed-form functions (a pure bandwidth term).
ZERO_SECONDS = Q_(0, "s")

BENCH_NAMES: dict[str, str] = {
    "all-reduce": "all_reduce",
    "all-gather": "all_gather",
    "reduce-scatter": "reduce_scatter",
    "all-to-all": "all_to_all",
}


# ----- the formulas (plain numbers in SI units: bytes, bytes/s, seconds; arrays welcome) ------
def _steps_log2(n: Number) -> Number:
    return np.ceil(np.log2(np.maximum(np.asarray(n, dtype=np.float64), 1.0)))


def _ring_allreduce_s(size: Number, n: Number, beta: Number, alpha: Number) -> Number:
    n = np.asarray(n, dtype=np.float64)
    return np.where(n > 1, 2 * (n - 1) * alpha + 2 * (n - 1) / n * size / beta, 0.0)


def _ring_half_s(size: Number, n: Number, beta: Number, alpha: Number) -> Number:
    """Reduce-scatter, all-gather and pairwise all-to-all share ``(n-1)·a + (n-1)/n·S/b``."""
    n = np.asarray(n, dtype=np.float64)
    return np.where(n > 1, (n - 1) * alpha + (n - 1) / n * size / beta, 0.0)


def _tree_allreduce_s(size: Number, n: Number, beta: Number, alpha: Number) -> Number:
    return 2 * _steps_log2(n) * (alpha + size / beta)


def _broadcast_s(size: Number, n: Number, beta: Number, alpha: Number) -> Number:
    n = np.asarray(n, dtype=np.float64)
    return np.where(n > 1, (n - 1) * alpha + size / beta, 0.0)


def _p2p_s(size: Number, beta: Number, alpha: Number) -> Number:
    return alpha + size / beta


def _seconds(value: Any, unit: str, what: str) -> Number:
    if not isinstance(value, pint.Quantity):
        raise MlcostError(f"{what}: got {value!r}, expected a quantity in {unit}")
    try:
        return value.to(unit).magnitude
    except pint.DimensionalityError:
        raise MlcostError(
            f"{what}: got {value:~}, expected a quantity in {unit} "
            f"(dimension {Q_(1, unit).dimensionality})"
        ) from None


def _ranks(n: Number, what: str = "ranks") -> Number:
    array = np.asarray(n)
    if np.any(array < 1):
        raise MlcostError(f"{what}: got {n!r}, expected a whole number of ranks >= 1")
    return n


# ----- public formulas: quantities in, quantities out ------------------------------------------
def ring_allreduce_time(
    size: pint.Quantity,
    ranks: Number,
    bandwidth: pint.Quantity,
    latency: pint.Quantity = ZERO_SECONDS,
) -> pint.Quantity:
    """Ring all-reduce ``t = 2(n-1)·alpha + 2(n-1)/n · S/beta``.

    Reduce-scatter then all-gather around a ring, ``n-1`` steps each, every step moving ``S/n``
    bytes per rank (Patarasuk and Yuan 2009, section 3; Thakur et al. 2005, section 4.4).
    ``bandwidth`` is the per-direction bandwidth each rank sends at; ``size`` the bytes each rank
    contributes. Vectorized over every argument.
    """
    s = _seconds(size, "byte", "size")
    b = _seconds(bandwidth, "byte/s", "bandwidth")
    a = _seconds(latency, "s", "latency")
    return Q_(_ring_allreduce_s(s, _ranks(ranks), b, a), "s")


def tree_allreduce_time(
    size: pint.Quantity,
    ranks: Number,
    bandwidth: pint.Quantity,
    latency: pint.Quantity = ZERO_SECONDS,
) -> pint.Quantity:
    """Binomial-tree all-reduce (reduce then broadcast) ``t = 2·ceil(log2 n)·(alpha + S/beta)``.

    Thakur et al. 2005, section 4 (reduce and broadcast by binomial tree, ``log2 p`` steps each,
    whole message per step; the chapter's footnote form). Latency-optimal, so it wins for small
    messages; NCCL's pipelined double binary tree does better on large ones, which the ring
    bounds.
    """
    s = _seconds(size, "byte", "size")
    b = _seconds(bandwidth, "byte/s", "bandwidth")
    a = _seconds(latency, "s", "latency")
    return Q_(_tree_allreduce_s(s, _ranks(ranks), b, a), "s")


def ring_reduce_scatter_time(
    size: pint.Quantity,
    ranks: Number,
    bandwidth: pint.Quantity,
    latency: pint.Quantity = ZERO_SECONDS,
) -> pint.Quantity:
    """Ring reduce-scatter ``t = (n-1)·alpha + (n-1)/n · S/beta``, ``S`` the whole array (each
    rank ends with ``S/n`` reduced). Thakur et al. 2005, section 4 (ring / pairwise exchange for
    long messages); nccl-tests PERFORMANCE.md uses the same ``S``."""
    s = _seconds(size, "byte", "size")
    b = _seconds(bandwidth, "byte/s", "bandwidth")
    a = _seconds(latency, "s", "latency")
    return Q_(_ring_half_s(s, _ranks(ranks), b, a), "s")


def ring_allgather_time(
    size: pint.Quantity,
    ranks: Number,
    bandwidth: pint.Quantity,
    latency: pint.Quantity = ZERO_SECONDS,
) -> pint.Quantity:
    """Ring all-gather ``t = (n-1)·alpha + (n-1)/n · S/beta``, ``S`` the gathered array (each
    rank contributes ``S/n``). Thakur et al. 2005, section 3 (ring algorithm for all-gather)."""
    s = _seconds(size, "byte", "size")
    b = _seconds(bandwidth, "byte/s", "bandwidth")
    a = _seconds(latency, "s", "latency")
    return Q_(_ring_half_s(s, _ranks(ranks), b, a), "s")


def alltoall_time(
    size: pint.Quantity,
    ranks: Number,
    bandwidth: pint.Quantity,
    latency: pint.Quantity = ZERO_SECONDS,
) -> pint.Quantity:
    """Pairwise-exchange all-to-all ``t = (n-1)·alpha + (n-1)/n · S/beta``: each rank holds
    ``S`` bytes, sends ``S/n`` to each of the ``n-1`` others, one peer per step (Thakur et al.
    2005, section 3, all-to-all for long messages)."""
    s = _seconds(size, "byte", "size")
    b = _seconds(bandwidth, "byte/s", "bandwidth")
    a = _seconds(latency, "s", "latency")
    return Q_(_ring_half_s(s, _ranks(ranks), b, a), "s")


def point_to_point_time(
    size: pint.Quantity, bandwidth: pint.Quantity, latency: pint.Quantity = ZERO_SECONDS
) -> pint.Quantity:
    """One message ``t = alpha + S/beta`` (Hockney 1994)."""
    s = _seconds(size, "byte", "size")
    b = _seconds(bandwidth, "byte/s", "bandwidth")
    a = _seconds(latency, "s", "latency")
    return Q_(_p2p_s(s, b, a), "s")


def broadcast_time(
    size: pint.Quantity,
    ranks: Number,
    bandwidth: pint.Quantity,
    latency: pint.Quantity = ZERO_SECONDS,
) -> pint.Quantity:
    """Pipelined (chain) broadcast ``t = (n-1)·alpha + S/beta`` for large messages: all data
    leaves the root once (nccl-tests PERFORMANCE.md, "Broadcast": ``t = S/B``)."""
    s = _seconds(size, "byte", "size")
    b = _seconds(bandwidth, "byte/s", "bandwidth")
    a = _seconds(latency, "s", "latency")
    return Q_(_broadcast_s(s, _ranks(ranks), b, a), "s")


def hierarchical_allreduce_time(
    size: pint.Quantity,
    nodes: Number,
    gpus_per_node: Number,
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
    s = _seconds(size, "byte", "size")
    k = np.asarray(_ranks(gpus_per_node, "gpus_per_node"), dtype=np.float64)
    n = _ranks(nodes, "nodes")
    b1 = _seconds(intra_bandwidth, "byte/s", "intra_bandwidth")
    b2 = _seconds(inter_bandwidth, "byte/s", "inter_bandwidth")
    a1 = _seconds(intra_latency, "s", "intra_latency")
    a2 = _seconds(inter_latency, "s", "inter_latency")
    local = 2 * _ring_half_s(s, k, b1, a1)
    return Q_(local + _ring_allreduce_s(s / k, n, b2, a2), "s")


def hierarchical_reduce_scatter_time(
    size: pint.Quantity,
    nodes: Number,
    gpus_per_node: Number,
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
    s = _seconds(size, "byte", "size")
    k = np.asarray(_ranks(gpus_per_node, "gpus_per_node"), dtype=np.float64)
    n = _ranks(nodes, "nodes")
    b1 = _seconds(intra_bandwidth, "byte/s", "intra_bandwidth")
    b2 = _seconds(inter_bandwidth, "byte/s", "inter_bandwidth")
    a1 = _seconds(intra_latency, "s", "intra_latency")
    a2 = _seconds(inter_latency, "s", "inter_latency")
    return Q_(_ring_half_s(s, k, b1, a1) + _ring_half_s(s / k, n, b2, a2), "s")


hierarchical_allgather_time = hierarchical_reduce_scatter_time


# ----- bandwidth as nccl-tests reports it -------------------------------------------------------
def bus_bandwidth_factor(collective: str, ranks: Number) -> Number:
    """nccl-tests' correction from algorithm to bus bandwidth (``doc/PERFORMANCE.md``,
    "Summary"): all-reduce ``2(n-1)/n``; reduce-scatter, all-gather, all-to-all ``(n-1)/n``;
    broadcast, reduce and point-to-point 1."""
    n = np.asarray(_ranks(ranks), dtype=np.float64)
    if collective == "all-reduce":
        factor = 2 * (n - 1) / n
    elif collective in ("reduce-scatter", "all-gather", "all-to-all"):
        factor = (n - 1) / n
    elif collective in ("broadcast", "reduce", "point-to-point"):
        factor = np.ones_like(n)
    else:
        raise MlcostError(
            f"collective: got {collective!r}, expected one of {', '.join(COLLECTIVES)}"
        )
    return factor.item() if factor.ndim == 0 else factor


def algorithm_bandwidth(size: pint.Quantity, time: pint.Quantity) -> pint.Quantity:
    """``algbw = S / t`` (nccl-tests PERFORMANCE.md), in GB/s."""
    return (size / time).to("GB/s")


def bus_bandwidth(
    size: pint.Quantity, time: pint.Quantity, collective: str, ranks: Number
) -> pint.Quantity:
    """``busbw = algbw x factor`` (:func:`bus_bandwidth_factor`), comparable with link peaks."""
    return (algorithm_bandwidth(size, time) * bus_bandwidth_factor(collective, ranks)).to("GB/s")


# ----- links and systems ------------------------------------------------------------------------
@dataclass(frozen=True)
class LinkModel:
    """One tier of the network in the alpha-beta model: per-direction peak, achievable share,
    per-step latency, and where each came from."""

    name: str
    family: str
    peak: pint.Quantity  # per direction, one port / one GPU's links
    efficiency: float
    latency: pint.Quantity
    source: str = ""

    @property
    def bandwidth(self) -> pint.Quantity:
        """Achievable per-direction bandwidth ``peak x efficiency``."""
        return (self.peak * self.efficiency).to("GB/s")


def link_model(
    link: Link,
    *,
    efficiency: float | None = None,
    latency: pint.Quantity | None = None,
) -> LinkModel:
    """The alpha-beta parameters of a catalog link: per-direction bandwidth (never the
    both-directions figure), :data:`ACHIEVABLE_FRACTION` and :data:`HOP_LATENCY` by family unless
    given (a catalog latency larger than the default wins)."""
    family = link.family
    if efficiency is None:
        efficiency = ACHIEVABLE_FRACTION.get(family, ACHIEVABLE_FRACTION["other"])
        source = f"achievable {efficiency:.3f} of line rate for {family} (ACHIEVABLE_FRACTION)"
    else:
        source = "achievable fraction given"
    if not 0 < efficiency <= 1:
        raise MlcostError(f"efficiency: got {efficiency!r}, expected a fraction in (0, 1]")
    if latency is None:
        latency = HOP_LATENCY.get(family, HOP_LATENCY["other"])
        if link.latency is not None and link.latency > latency:
            latency = link.latency
    return LinkModel(
        name=link.name,
        family=family,
        peak=link.per_direction.to("GB/s"),
        efficiency=float(efficiency),
        latency=latency.to("us"),
        source=source,
    )


@dataclass(frozen=True)
class Topology:
    """A system of ``nodes`` x ``gpus_per_node`` GPUs and the links a collective can use.

    ``intra`` joins the GPUs of a node (one GPU's per-direction NVLink/PCIe bandwidth); ``inter``
    is one NIC (per direction) and ``nics_per_node`` how many a node has, so a node's GPUs share
    ``nics_per_node x inter`` when they all send across nodes at once.
    """

    name: str
    accelerator: Accelerator
    gpus_per_node: int
    nodes: int
    intra: LinkModel | None
    inter: LinkModel | None
    nics_per_node: int = 1
    fits: tuple[CollectiveFit, ...] = field(default_factory=tuple)

    @property
    def gpus(self) -> int:
        return self.gpus_per_node * self.nodes

    @property
    def node_network_bandwidth(self) -> pint.Quantity:
        """Achievable per-direction bandwidth of all of a node's NICs together."""
        if self.inter is None:
            return Q_(0, "GB/s")
        return (self.inter.bandwidth * self.nics_per_node).to("GB/s")

    def describe(self) -> str:
        intra = (
            f"{self.intra.name} {self.intra.bandwidth.to('GB/s').magnitude:.0f} GB/s"
            if self.intra
            else "none"
        )
        inter = (
            f"{self.nics_per_node} x {self.inter.name} "
            f"{self.inter.bandwidth.to('GB/s').magnitude:.1f} GB/s"
            if self.inter
            else "none"
        )
        return (
            f"{self.name}: {self.nodes} node(s) x {self.gpus_per_node} {self.accelerator.name}; "
            f"intra-node {intra} per GPU; inter-node {inter} per node (achievable, per direction)"
        )

    def with_nodes(self, nodes: int) -> Topology:
        return replace(self, nodes=int(nodes))


def topology(
    system: str | Spec | Topology,
    *,
    nodes: int | None = None,
    catalog: Catalog | None = None,
    intra_efficiency: float | None = None,
    inter_efficiency: float | None = None,
    use_measured: bool = True,
) -> Topology:
    """Resolve a node, a cluster (spec or catalog name) into a :class:`Topology`.

    ``nodes`` defaults to the cluster's node count (1 for a node). The inter-node link is the
    cluster's ``inter_node_link``, or for a node its NICs; the NIC count per node comes from the
    node's ``nics`` (1 when it lists none). With ``use_measured`` the accelerator's fitted
    collectives (``measured.collectives``) replace the intra-node model.
    """
    if isinstance(system, Topology):
        return system if nodes is None else system.with_nodes(nodes)
    catalog = catalog or default_catalog()
    spec = catalog.get(system) if isinstance(system, str) else system
    cluster_nodes = 1
    inter_name: str | None = None
    if isinstance(spec, Cluster):
        cluster_nodes = spec.nodes
        inter_name = spec.inter_node_link
        node = catalog.node(spec.node)
    elif isinstance(spec, Node):
        node = spec
    else:
        raise MlcostError(
            f"system: {getattr(spec, 'name', spec)!r} is a {getattr(spec, 'KIND', type(spec))}, "
            "expected a node (e.g. dgx-h100) or a cluster (e.g. dgx-h100-superpod-su)"
        )
    nodes = cluster_nodes if nodes is None else nodes
    if int(nodes) < 1:
        raise MlcostError(f"nodes: got {nodes!r}, expected a whole number >= 1")
    nic_links = [nic for nic in node.nics if nic.link is not None]
    if inter_name is None and nic_links:
        inter_name = nic_links[0].link
    matching = [nic.count for nic in nic_links if nic.link == inter_name]
    nics = sum(matching) if matching else max(1, sum(nic.count for nic in nic_links))
    accelerator = catalog.accelerator(node.accelerator)
    intra = (
        link_model(catalog.link(node.intra_node_link), efficiency=intra_efficiency)
        if node.intra_node_link
        else None
    )
    inter = (
        link_model(catalog.link(inter_name), efficiency=inter_efficiency) if inter_name else None
    )
    if int(nodes) > 1 and inter is None:
        raise MlcostError(
            f"system: {node.name} lists no NIC and no cluster link, so {nodes} nodes cannot be "
            "joined; give a cluster spec with inter_node_link"
        )
    fits: tuple[CollectiveFit, ...] = ()
    if use_measured and accelerator.measured is not None:
        fits = accelerator.measured.collectives
    return Topology(
        name=spec.name,
        accelerator=accelerator,
        gpus_per_node=node.accelerators_per_node,
        nodes=int(nodes),
        intra=intra,
        inter=inter,
        nics_per_node=nics,
        fits=fits,
    )


# ----- a collective on a group of ranks placed on a topology -----------------------------------
@dataclass(frozen=True)
class GroupPlacement:
    """Where a communication group sits: ``ranks`` members, ``per_node`` of them on each node
    (arrays allowed), and the bandwidth each member gets on each tier (bytes/s) and latency (s).
    """

    ranks: Number
    per_node: Number
    nodes: Number
    intra_bandwidth: Number
    inter_bandwidth: Number
    intra_latency: Number
    inter_latency: Number


def placement(
    topo: Topology, ranks: Number, stride: Number = 1, *, gpus_per_node: Number | None = None
) -> GroupPlacement:
    """Place a group of ``ranks`` GPUs whose global ranks are ``stride`` apart (ranks are
    numbered node by node, so a group with ``stride x ranks <= GPUs per node`` stays inside a
    node). ``per_node = min(ranks, max(1, g // stride))``. Across nodes, the ``g / per_node``
    groups of a node share its NICs, so each member gets ``NICs x NIC bandwidth / g``.
    Vectorized over ``ranks``, ``stride`` and ``gpus_per_node`` (the GPUs in use per node)."""
    g = np.asarray(topo.gpus_per_node if gpus_per_node is None else gpus_per_node, dtype=float)
    n = np.asarray(ranks, dtype=np.float64)
    stride = np.asarray(stride, dtype=np.float64)
    per_node = np.minimum(n, np.maximum(1.0, np.floor(g / stride)))
    nodes = np.ceil(n / per_node)
    intra_b = topo.intra.bandwidth.to("byte/s").magnitude if topo.intra else np.inf
    intra_a = topo.intra.latency.to("s").magnitude if topo.intra else 0.0
    if topo.inter is not None:
        nic = topo.inter.bandwidth.to("byte/s").magnitude * topo.nics_per_node
        inter_b = nic / g
        inter_a = topo.inter.latency.to("s").magnitude
    else:
        inter_b = np.full_like(g, np.inf)
        inter_a = 0.0
    if np.any((nodes > 1) & ~np.isfinite(inter_b)):
        raise MlcostError(f"system: {topo.name} has no inter-node link for a multi-node group")
    return GroupPlacement(n, per_node, nodes, intra_b, inter_b, intra_a, inter_a)


def _fit_for(topo: Topology, collective: str) -> CollectiveFit | None:
    wanted = BENCH_NAMES.get(collective)
    for fit in topo.fits:
        if fit.collective == wanted:
            return fit
    return None


def _collective_seconds(
    topo: Topology,
    collective: str,
    size: Number,
    where: GroupPlacement,
    algorithm: str = "auto",
    fit_world_size: int | None = None,
) -> Number:
    """Seconds for one collective of ``size`` bytes (per rank; whole array for reduce-scatter and
    all-gather) on the group ``where`` (all plain arrays)."""
    if collective not in COLLECTIVES:
        raise MlcostError(
            f"collective: got {collective!r}, expected one of {', '.join(COLLECTIVES)}"
        )
    if algorithm not in ALGORITHMS:
        raise MlcostError(f"algorithm: got {algorithm!r}, expected one of {', '.join(ALGORITHMS)}")
    size = np.asarray(size, dtype=np.float64)
    n, k, nodes = where.ranks, where.per_node, where.nodes
    b1: Any = where.intra_bandwidth
    b2: Any = where.inter_bandwidth
    a1: Any = where.intra_latency
    a2: Any = where.inter_latency
    fit = _fit_for(topo, collective)
    if fit is not None:
        # Measured alpha and bandwidth (algbw at the measured world size) stand for the intra-node
        # link: beta_bus = B_fit x factor(n_fit), alpha = alpha_fit.
        # Per-step alpha = alpha_fit / ring steps at n_fit, so that a ring at n_fit reproduces
        # the fit t = alpha_fit + S / B_fit exactly.
        n_fit: np.ndarray = np.asarray(fit_world_size or n, dtype=np.float64)
        factor = np.asarray(bus_bandwidth_factor(collective, n_fit), dtype=np.float64)
        b1 = fit.bandwidth.to("byte/s").magnitude * np.where(factor > 0, factor, 1.0)
        steps = 2 * (n_fit - 1) if collective == "all-reduce" else n_fit - 1
        a1 = fit.alpha.to("s").magnitude / np.maximum(steps, 1.0)
    single = nodes <= 1
    # flat schemes span nodes at the slowest tier: inter bandwidth for the group = the NIC share
    # of its k members per node, k x (NICs x NIC bw / g)
    flat_b = np.where(single, b1, np.minimum(b1, b2 * k))
    flat_a = np.where(single, a1, np.maximum(a1, a2))
    if fit is not None:
        flat_a = np.where(single, a1, flat_a)
    if collective == "point-to-point":
        return np.where(n > 1, _p2p_s(size, np.where(single, b1, b2), flat_a), 0.0)
    if collective == "broadcast":
        return _broadcast_s(size, n, flat_b, flat_a)
    if collective == "all-to-all":
        # intra part (k-1)/n of S over NVLink, inter part (n-k)/n over the member's NIC share
        intra = (k - 1) / n * size / b1
        inter = np.where(single, 0.0, (n - k) / n * size / b2)
        return np.where(n > 1, (n - 1) * flat_a + np.maximum(intra, inter), 0.0)
    ring = {
        "all-reduce": _ring_allreduce_s,
        "reduce-scatter": _ring_half_s,
        "all-gather": _ring_half_s,
    }[collective](size, n, flat_b, flat_a)
    if collective == "all-reduce":
        hier = 2 * _ring_half_s(size, k, b1, a1) + _ring_allreduce_s(size / k, nodes, b2, a2)
        tree = _tree_allreduce_s(size, n, flat_b, flat_a)
    else:
        hier = _ring_half_s(size, k, b1, a1) + _ring_half_s(size / k, nodes, b2, a2)
        tree = np.full_like(np.asarray(ring, dtype=np.float64), np.inf)
    hier = np.where(single, ring, hier)
    if algorithm == "ring":
        return ring
    if algorithm == "hierarchical":
        return hier
    if algorithm == "tree":
        if collective != "all-reduce":
            raise MlcostError(f"algorithm: 'tree' is modeled for all-reduce only, not {collective}")
        return tree
    return np.minimum(np.minimum(ring, hier), tree)  # auto: the fastest, as NCCL's tuner picks


@dataclass(frozen=True)
class CollectiveTime:
    """One collective on a system: time, algorithm and bus bandwidth, and how it was placed."""

    collective: str
    algorithm: str
    size: pint.Quantity
    ranks: Number
    nodes: Number
    time: pint.Quantity
    topology: Topology

    @property
    def algorithm_bandwidth(self) -> pint.Quantity:
        return algorithm_bandwidth(self.size, self.time)

    @property
    def bus_bandwidth(self) -> pint.Quantity:
        return bus_bandwidth(self.size, self.time, self.collective, self.ranks)

    def explain(self) -> str:
        n = self.ranks
        return (
            f"{self.collective} ({self.algorithm}) of {self.size.to('MB').magnitude:,.3f} MB on "
            f"{n} ranks over {self.nodes} node(s): t = {self.time.to('ms').magnitude:.4f} ms; "
            f"algbw = S/t = {self.algorithm_bandwidth.magnitude:.2f} GB/s; busbw = algbw x "
            f"{bus_bandwidth_factor(self.collective, n):.4f} = "
            f"{self.bus_bandwidth.magnitude:.2f} GB/s  [nccl-tests PERFORMANCE.md]\n"
            f"  {self.topology.describe()}"
        )


def collective_time(
    system: str | Spec | Topology,
    collective: str,
    size: pint.Quantity,
    *,
    ranks: Number | None = None,
    stride: Number = 1,
    nodes: int | None = None,
    algorithm: str = "auto",
    fit_world_size: int | None = None,
) -> CollectiveTime:
    """Time of one collective of ``size`` bytes on ``ranks`` GPUs of a system (default: every
    GPU of ``nodes`` nodes), ``stride`` apart in rank order. ``algorithm``: ``ring`` (flat),
    ``tree`` (binomial, all-reduce only), ``hierarchical`` (intra then inter node), or ``auto``
    (the fastest of those). ``size`` may hold an array (a sweep in one call)."""
    topo = topology(system, nodes=nodes)
    n = topo.gpus if ranks is None else ranks
    if np.any(np.asarray(n) * np.asarray(stride) > topo.gpus):
        raise MlcostError(
            f"ranks: {n} ranks {stride} apart need more than the {topo.gpus} GPUs of "
            f"{topo.nodes} x {topo.gpus_per_node}"
        )
    where = placement(topo, n, stride)
    seconds = _collective_seconds(
        topo, collective, _seconds(size, "byte", "size"), where, algorithm, fit_world_size
    )
    nodes_used = where.nodes.item() if np.ndim(where.nodes) == 0 else where.nodes
    return CollectiveTime(
        collective=collective,
        algorithm=algorithm,
        size=size.to("byte"),
        ranks=n,
        nodes=int(nodes_used) if np.ndim(nodes_used) == 0 else nodes_used,
        time=Q_(seconds, "s").to("ms"),
        topology=topo,
    )


def collective_table(
    system: str | Spec | Topology,
    collective: str,
    size: pint.Quantity,
    *,
    ranks: int | None = None,
    nodes: int | None = None,
) -> pd.DataFrame:
    """Every algorithm for one collective, as nccl-tests would print it: time, algbw, busbw."""
    algorithms = ["ring", "hierarchical", "auto"]
    if collective == "all-reduce":
        algorithms.insert(1, "tree")
    if collective in ("point-to-point", "broadcast", "all-to-all"):
        algorithms = ["auto"]
    rows = []
    for algorithm in algorithms:
        result = collective_time(
            system, collective, size, ranks=ranks, nodes=nodes, algorithm=algorithm
        )
        rows.append(
            {
                "collective": collective,
                "algorithm": algorithm,
                "ranks": int(result.ranks),
                "nodes": int(result.nodes),
                "bytes": float(result.size.to("byte").magnitude),
                "time_ms": float(result.time.to("ms").magnitude),
                "algbw_GBps": float(result.algorithm_bandwidth.magnitude),
                "busbw_GBps": float(result.bus_bandwidth.magnitude),
            }
        )
    return pd.DataFrame(rows)
