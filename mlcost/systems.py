"""A system of GPUs resolved once: the accelerator (datasheet or measured profile), the links
between GPUs inside a node and across nodes as collectives see them, NICs, host power and
storage. Everything below it (collectives, parallel step, checkpoint writes, data pipeline,
energy) takes a :class:`System` and never looks a name up in the catalog.

:func:`system` builds one from a node or cluster spec, a catalog name or a spec file, or from a
GPU alone: then the GPU's standard node in the catalog (the node it is sold in, e.g.
``dgx-h100`` for ``h100-sxm5-80gb``, or a server that takes it) supplies links, drives and host
power, so that a run named by its GPU and the same run named by its node give the same answer.

**Links as collectives see them** (the alpha-beta model, Hockney 1994): a per-direction line
rate (never the both-directions figure vendors quote for NVLink), the share of it NCCL reaches
(:data:`ACHIEVABLE_FRACTION`) and a per-step latency (:data:`HOP_LATENCY`). A node without an
intra-node link joins its GPUs through each GPU's own host interface (PCIe).
"""

from __future__ import annotations

import math
import warnings
from functools import cached_property
from pathlib import Path
from typing import Any

import pint

from mlcost.assumptions import ASSUMPTION_SOURCES, DEFAULT_ASSUMPTIONS, Assumptions
from mlcost.errors import ForeignGpuNote, MlcostError
from mlcost.records import Record, field, replace
from mlcost.roofline import Ceilings
from mlcost.specs import Accelerator, Catalog, Cluster, Link, Node, Spec, Storage, default_catalog
from mlcost.specs.hardware import CollectiveFit
from mlcost.units import Q_, format_quantity, in_unit

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


class LinkModel(Record, frozen=True, dict=True):
    """One tier of the network in the alpha-beta model: per-direction peak, achievable share,
    per-step latency, and where each came from."""

    name: str
    family: str
    peak: pint.Quantity  # per direction, one port / one GPU's links
    efficiency: float
    latency: pint.Quantity
    source: str = ""
    reduction_efficiency: float | None = None  # NVLS switch-port rate / line rate (Link)
    reduction_min_ranks: int = 2

    @property
    def bandwidth(self) -> pint.Quantity:
        """Achievable per-direction bandwidth ``peak x efficiency``."""
        return (self.peak * self.efficiency).to("GB/s")

    @cached_property
    def bandwidth_bytes(self) -> float:
        """:attr:`bandwidth` in byte/s, converted once."""
        return float((self.peak * self.efficiency).to("byte/s").magnitude)

    @cached_property
    def peak_bytes(self) -> float:
        """:attr:`peak` in byte/s, converted once."""
        return float(in_unit(self.peak, "byte/s"))

    @cached_property
    def latency_seconds(self) -> float:
        """:attr:`latency` in seconds, converted once."""
        return float(in_unit(self.latency, "s"))


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
    if efficiency is None and link.collective_bandwidth is not None:
        efficiency = float((link.collective_bandwidth / link.per_direction).to("").magnitude)
        source = (
            f"achievable {efficiency:.3f} of line rate measured on {link.name} "
            f"({link.source_of('collective_bandwidth') or 'spec'})"
        )
    elif efficiency is None:
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
        reduction_efficiency=(
            None
            if link.in_network_port_rate is None
            else float((link.in_network_port_rate / link.per_direction).to("").magnitude)
        ),
        reduction_min_ranks=link.in_network_min_ranks or 2,
    )


class System(Record, frozen=True, dict=True):
    """``nodes`` x ``gpus_per_node`` GPUs and everything a run needs to know about them.

    ``intra`` joins the GPUs of a node (one GPU's per-direction bandwidth); ``inter`` is one NIC
    (per direction) and ``nics_per_node`` how many a node has, so a node's GPUs share
    ``nics_per_node x inter`` when they all send across nodes at once. ``fits`` are collectives
    measured by ``mlcost bench`` (they replace the intra-node model). ``host_power_per_gpu`` is
    the node's power beyond its GPUs, per GPU; ``drive`` x ``drives_per_node`` the node's local
    storage; ``host_link`` each GPU's host interface (the data pipeline's copies).
    """

    name: str
    accelerator: Accelerator
    gpus_per_node: int
    nodes: int
    intra: LinkModel | None
    inter: LinkModel | None
    nics_per_node: int = 1
    fits: tuple[CollectiveFit, ...] = ()
    host_power_per_gpu: pint.Quantity = field(default_factory=lambda: Q_(0, "W"))
    host_power_source: str = ""
    #: Measured whole-node power under training load, per GPU (None: not measured).
    training_power_per_gpu: pint.Quantity | None = None
    training_power_source: str = ""
    drive: Storage | None = None
    drives_per_node: int = 0
    host_link: LinkModel | None = None
    spec: Node | Cluster | None = None
    source: str = ""

    @property
    def gpus(self) -> int:
        return self.gpus_per_node * self.nodes

    @property
    def node_network_bandwidth(self) -> pint.Quantity:
        """Achievable per-direction bandwidth of all of a node's NICs together."""
        if self.inter is None:
            return Q_(0, "GB/s")
        return (self.inter.bandwidth * self.nics_per_node).to("GB/s")

    def with_nodes(self, nodes: int) -> System:
        """The same system with ``nodes`` nodes (this one where it has them already: a system
        is immutable, so an equal copy would only cost its construction)."""
        if int(nodes) == self.nodes:
            return self
        if int(nodes) < 1:
            raise MlcostError(f"nodes: got {nodes!r}, expected a whole number >= 1")
        if int(nodes) > 1 and self.inter is None:
            raise MlcostError(
                f"system: {self.name} lists no NIC and no cluster link, so {nodes} nodes cannot "
                "be joined; give a cluster spec with inter_node_link or a node with nics"
            )
        return replace(self, nodes=int(nodes))

    def for_gpus(self, gpus: int) -> System:
        """The nodes of this system that ``gpus`` GPUs take: ``ceil(gpus / GPUs per node)``
        (more than a cluster spec lists is a larger cluster of the same design)."""
        return self.with_nodes(math.ceil(gpus / self.gpus_per_node))

    def ceilings(self, format: str) -> Ceilings:
        """The accelerator's ceilings for GEMMs in ``format`` (datasheet or measured,
        :meth:`Ceilings.from_accelerator`), built once per system and format."""
        found = self._ceilings.get(format)
        if found is None:
            found = self._ceilings[format] = Ceilings.from_accelerator(self.accelerator, format)
        return found

    @cached_property
    def _ceilings(self) -> dict[str, Ceilings]:
        """:meth:`ceilings` by format, filled on first use (a system is immutable; a copy with
        other fields, :meth:`with_nodes`, starts with none)."""
        return {}

    @cached_property
    def node_write_bandwidth(self) -> pint.Quantity | None:
        """Sequential write bandwidth of one node's drives together (None without drives),
        converted once per system."""
        if self.drive is None or not self.drives_per_node:
            return None
        return (self.drive.sequential_write * self.drives_per_node).to("GB/s")

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


def _host_power(node: Node | None, gpu: Accelerator, assumptions: Assumptions) -> tuple[Any, str]:
    """Power of a node beyond its GPUs, per GPU: the node's maximum power minus its GPUs' TDP
    (an upper bound), else the assumption."""
    if node is not None and node.power is not None and gpu.tdp is not None:
        rest = node.power - gpu.tdp * node.accelerators_per_node
        if rest.magnitude > 0:
            return (rest / node.accelerators_per_node).to("W"), (
                f"{node.name}: node power {format_quantity(node.power)} minus "
                f"{node.accelerators_per_node} x {format_quantity(gpu.tdp)} GPU TDP, per GPU "
                f"({node.source_of('power') or 'node spec'})"
            )
    return assumptions.host_power_per_gpu, ASSUMPTION_SOURCES["host_power_per_gpu"]


def _training_power(node: Node | None) -> dict[str, Any]:
    """The node's measured power under training load, per GPU, with its source (empty when the
    node spec has no measurement)."""
    if node is None or node.training_power is None:
        return {}
    return {
        "training_power_per_gpu": (node.training_power / node.accelerators_per_node).to("W"),
        "training_power_source": (
            f"{node.name}: measured {format_quantity(node.training_power)} per node under "
            f"load / {node.accelerators_per_node} GPUs "
            f"({node.source_of('training_power') or 'node spec'})"
        ),
    }


def _node_links(
    node: Node | None,
    inter_name: str | None,
    gpu: Accelerator,
    catalog: Catalog,
    efficiencies: tuple[float | None, float | None],
) -> tuple[LinkModel | None, LinkModel | None, int]:
    """Intra-node link (the node's, else each GPU's host interface), inter-node link and NICs."""
    intra_efficiency, inter_efficiency = efficiencies
    intra_name = node.intra_node_link if node is not None else None
    intra_name = intra_name or gpu.host_interface
    intra = (
        link_model(catalog.link(intra_name), efficiency=intra_efficiency) if intra_name else None
    )
    nic_links = [nic for nic in node.nics if nic.link is not None] if node is not None else []
    if inter_name is None and nic_links:
        inter_name = nic_links[0].link
    matching = [nic.count for nic in nic_links if nic.link == inter_name]
    nics = sum(matching) if matching else max(1, sum(nic.count for nic in nic_links))
    inter = (
        link_model(catalog.link(inter_name), efficiency=inter_efficiency) if inter_name else None
    )
    return intra, inter, nics


#: What names a system: a catalog name or spec file, a node/cluster/accelerator spec, a System.
SystemLike = str | Path | Spec | System


def system(
    target: SystemLike,
    *,
    accelerator: Accelerator | str | Path | None = None,
    nodes: int | None = None,
    gpus: int | None = None,
    catalog: Catalog | None = None,
    intra_efficiency: float | None = None,
    inter_efficiency: float | None = None,
    use_measured: bool = True,
    assumptions: Assumptions | None = None,
) -> System:
    """Resolve ``target`` (a node or cluster spec, an accelerator spec or profile, a catalog
    name or a spec file, or a :class:`System`) into a :class:`System`.

    ``accelerator`` replaces the node's GPU (e.g. a calibrated profile on ``dgx-h100``).
    ``nodes`` defaults to the cluster's node count (1 for a node), or to what ``gpus`` need.
    With ``use_measured`` the accelerator's fitted collectives replace the intra-node model.
    """
    if isinstance(target, System):
        resolved = target
    else:
        catalog = catalog if catalog is not None else default_catalog()
        spec = (
            target
            if isinstance(target, Spec)
            else catalog.resolve(target, ("node", "cluster", "accelerator"))
        )
        gpu = (
            None
            if accelerator is None
            else (
                accelerator
                if isinstance(accelerator, Accelerator)
                else catalog.resolve(accelerator, ("accelerator",))
            )
        )
        if isinstance(gpu, Accelerator):
            _note_a_foreign_gpu(spec, gpu, catalog)
        efficiencies = (intra_efficiency, inter_efficiency)
        settled = assumptions or DEFAULT_ASSUMPTIONS
        # Built once per catalog and settings: the node's links and powers converted once.
        resolved = catalog.derived(
            ("system", spec.name),
            (spec, gpu, efficiencies, use_measured, settled),
            lambda: _from_spec(spec, gpu, catalog, efficiencies, use_measured, settled),
        )
    if nodes is not None:
        return resolved.with_nodes(nodes)
    if gpus is not None:
        return resolved.for_gpus(gpus)
    return resolved


def _note_a_foreign_gpu(spec: Spec, gpu: Accelerator, catalog: Catalog) -> None:
    """The stated rule for a GPU put in a node that is not sold with it or does not take it
    (``compatible_accelerators``; a calibrated profile counts as the GPU it was measured as):
    used (a what-if), with a :class:`mlcost.errors.ForeignGpuNote` the user sees, since the
    node's links, host power and prices stay the node's."""
    node = catalog.node(spec.node) if isinstance(spec, Cluster) else spec
    if not isinstance(node, Node):
        return
    names = {gpu.name} | (
        {gpu.measured.based_on} if gpu.measured and gpu.measured.based_on else set()
    )
    takes = {node.accelerator, *node.compatible_accelerators}
    if not names & takes:
        warnings.warn(
            f"{gpu.name} in {spec.name}, which takes {', '.join(sorted(takes))}: the node's "
            "links, host power and storage are kept as they are (a what-if)",
            ForeignGpuNote,
            stacklevel=3,
        )


def _from_spec(
    spec: Spec,
    gpu: Any,
    catalog: Catalog,
    efficiencies: tuple[float | None, float | None],
    use_measured: bool,
    assumptions: Assumptions,
) -> System:
    cluster_nodes, inter_name, source = 1, None, ""
    node: Node | None
    if isinstance(spec, Cluster):
        cluster_nodes, inter_name = spec.nodes, spec.inter_node_link
        node = catalog.node(spec.node)
        source = f"{spec.name} ({spec.nodes} x {node.name})"
    elif isinstance(spec, Node):
        node, source = spec, spec.name
    elif isinstance(spec, Accelerator):
        gpu = gpu or spec
        node = catalog.standard_node(spec)
        source = (
            f"{node.name} (the catalog node with {spec.name}; pass system= to choose another)"
            if node is not None
            else f"no catalog node takes {spec.name}: a host of {assumptions.gpus_per_host} "
            f"joined by their host interface ({spec.host_interface or 'none'}) is assumed"
        )
    else:
        raise MlcostError(
            f"system: {spec.name!r} is a {spec.KIND}, expected a node (e.g. dgx-h100), a cluster "
            "(e.g. dgx-h100-superpod-su) or an accelerator"
        )
    accelerator = gpu if gpu is not None else catalog.accelerator(node.accelerator)  # type: ignore[union-attr]
    intra, inter, nics = _node_links(node, inter_name, accelerator, catalog, efficiencies)
    host_power, host_source = _host_power(node, accelerator, assumptions)
    drive_spec = node.storage[0] if node is not None and node.storage else None
    host_link = accelerator.host_interface
    built = System(
        name=spec.name if not isinstance(spec, Accelerator) else (node.name if node else spec.name),
        accelerator=accelerator,
        gpus_per_node=node.accelerators_per_node if node else assumptions.gpus_per_host,
        nodes=1,
        intra=intra,
        inter=inter,
        nics_per_node=nics,
        fits=accelerator.measured.collectives
        if use_measured and accelerator.measured is not None
        else (),
        host_power_per_gpu=host_power,
        host_power_source=host_source,
        **_training_power(node),
        drive=catalog.storage(drive_spec.target) if drive_spec else None,
        drives_per_node=drive_spec.count if drive_spec else 0,
        host_link=link_model(catalog.link(host_link)) if host_link else None,
        spec=spec if isinstance(spec, (Node, Cluster)) else node,
        source=source,
    )
    return built.with_nodes(cluster_nodes) if cluster_nodes > 1 else built


__all__ = [
    "ACHIEVABLE_FRACTION",
    "HOP_LATENCY",
    "LinkModel",
    "System",
    "link_model",
    "system",
]
