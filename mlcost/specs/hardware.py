"""Hardware specs: accelerators, links, storage devices, hosts, nodes and clusters.

Conventions (see ``docs/spec-format.md``):

* Peak throughput is per compute format and engine (tensor cores vs vector units), with dense and
  2:4-structured-sparse figures kept apart. Sparse peaks are never used unless asked for.
* Link bandwidth is stored per direction; the both-directions figure vendors quote for NVLink is
  derived as twice that (full duplex) or checked against it when both are given.
* HBM capacities sold as "80 GB" are binary (GiB); bandwidths are decimal (GB/s, TB/s).
"""

import datetime
from typing import Annotated, ClassVar, Literal

import pint
from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, model_validator

from mlcost.errors import MlcostError
from mlcost.specs.base import (
    BitRate,
    ByteRate,
    Bytes,
    CarbonMass,
    Duration,
    DurationOrZero,
    FlopRate,
    Frequency,
    Money,
    MoneyRate,
    PositiveInt,
    Power,
    Spec,
)
from mlcost.specs.formats import COMPUTE_FORMATS, unknown_format_message
from mlcost.units import Q_


class _Part(BaseModel):
    """A nested part of a spec (validated by its parent, which reports the full path)."""

    # Schemas built on first validation, as :class:`mlcost.specs.base.Model`'s: a command that
    # reads the catalog's parsed specs validates none of these parts.
    model_config = ConfigDict(
        frozen=True, extra="forbid", arbitrary_types_allowed=True, defer_build=True
    )


class PeakThroughput(_Part):
    """Peak arithmetic throughput of one engine in one compute format."""

    format: str
    engine: Literal["tensor", "vector", "matrix"] = "tensor"
    dense: FlopRate
    sparse: FlopRate | None = None

    @model_validator(mode="after")
    def _known_format(self) -> "PeakThroughput":
        if self.format not in COMPUTE_FORMATS:
            raise ValueError(unknown_format_message("format", self.format))
        if self.sparse is not None and self.sparse < self.dense:
            raise ValueError("sparse: the 2:4-sparse peak cannot be below the dense peak")
        return self


class CloudPrice(_Part):
    """A typical cloud price for one GPU, with when and where it was seen."""

    price: MoneyRate
    date: datetime.date
    provider: str | None = None


#: How far a measured ceiling may lie above the datasheet's (GEMM efficiency, bandwidth) before
#: a profile is refused: 5%, the spread of repeated timings of one kernel (p90/p10 of the
#: bench's quick preset) plus datasheet rounding (peaks quoted to 3 digits). A 1.5x "measured"
#: peak is a timer or FLOP-count error, or a profile measured on another GPU.
MEASURED_ABOVE_DATASHEET = 1.05


class GemmPoint(_Part):
    """One point of a measured GEMM efficiency curve: achieved / peak at a GEMM size."""

    flops: float = Field(gt=0)
    efficiency: float = Field(gt=0, le=2.0)


class CollectiveFit(_Part):
    """Alpha-beta fit of one collective: ``t = alpha + bytes / bandwidth``."""

    collective: str
    alpha: DurationOrZero
    bandwidth: ByteRate
    r_squared: float


class TraceOrigin(_Part):
    """The profiled run a profile was fitted from (``mlcost calibrate --trace``): the trace
    file, its SHA-256, what ran (model, micro-batch, sequence, recomputation, software) and
    the step it measured."""

    file: str
    sha256: str
    device: str
    steps: PositiveInt
    model: str
    micro_batch_size: PositiveInt
    sequence_length: PositiveInt
    recompute: str = "none"
    implementation: str | None = None
    step_time: Duration
    step_time_source: str = "the trace's ProfilerStep wall time"


class Measured(_Part):
    """Ceilings measured by ``mlcost bench`` and fitted by ``mlcost calibrate`` (or, for a catalog
    accelerator, published measurements); ``based_on`` names the catalog accelerator the profile
    was measured on (its standard node, links and datasheet peaks apply).

    ``gemm_best_shape`` marks a format whose ``gemm_efficiency`` is one point at the best shape
    of a shape sweep (``M x N x K``, the maximum achievable matmul throughput): shape effects
    (tile and wave quantization) then apply relative to that shape, never above it. A curve of
    several points is a size curve measured over a sweep that already holds them."""

    measured_on: str
    based_on: str | None = None
    date: datetime.date
    torch: str | None = None
    preset: str | None = None
    gemm_efficiency: dict[str, tuple[GemmPoint, ...]] = Field(default_factory=dict)
    gemm_best_shape: dict[str, tuple[PositiveInt, PositiveInt, PositiveInt]] = Field(
        default_factory=dict
    )
    attention_efficiency: dict[str, tuple[GemmPoint, ...]] = Field(default_factory=dict)
    #: Per format and operand layout (keys as ``gemm_efficiency``'s: ``bf16``, ``bf16/nt``,
    #: ``bf16/tn``): an unaligned GEMM's throughput over an aligned one's of the same size, where
    #: a feature dimension (``n`` or ``k``, a leading dimension of the operands) is not a
    #: multiple of 16 bytes (:meth:`mlcost.roofline.Ceilings.gemm_alignment_efficiency`).
    #: Positive: it divides a GEMM's time (FP32, without tensor cores, measures about 1).
    gemm_unaligned: dict[str, PositiveFloat] = Field(default_factory=dict)
    optimizer_efficiency: tuple[GemmPoint, ...] = ()
    #: Per format: a GEMM's throughput at the clock the GPU sustains under a training step's
    #: load (its power limit) over the burst throughput ``gemm_efficiency`` was measured at,
    #: by GEMM FLOPs (``efficiency`` holds the ratio; interpolated in log FLOPs, flat beyond).
    gemm_sustained: dict[str, tuple[GemmPoint, ...]] = Field(default_factory=dict)
    memory_bandwidth: ByteRate | None = None
    #: A pure read stream's bandwidth (a kernel that reads and writes almost nothing: a GEMV's
    #: weights, decode attention's KV cache); HBM reads faster than a STREAM triad's two reads
    #: and one write (:meth:`mlcost.roofline.Ceilings.stream_seconds`). None: the triad's.
    memory_read_bandwidth: ByteRate | None = None
    #: Per kernel class (``matmul``, ``norm``, ``attention``): the time a kernel of that class
    #: takes beyond its bytes at the stream bandwidth and beyond a plain element-wise kernel's
    #: launch (the ramp, the tail, a split-K reduction: a GEMV costs microseconds more than its
    #: bytes). Added once per launch to a memory-bound operator's time.
    kernel_latency: dict[str, Duration] = Field(default_factory=dict)
    #: The exponent ``p`` of a kernel's time ``(t_compute^p + t_memory^p)^(1/p)`` near the
    #: ridge point, where a kernel neither streams at full bandwidth nor computes at full rate
    #: (:meth:`mlcost.roofline.Ceilings.combine`); None: the sharp roofline, ``max``.
    roofline_corner: float | None = Field(default=None, gt=1.0)
    launch_overhead: Duration | None = None
    #: A host-executed device (a CPU): the rate at which the host maps fresh pages and writes
    #: them for the first time, beyond a write to pages already mapped (``mlcost bench``'s host
    #: family: a fresh buffer above the allocator's mmap threshold against a reused one); with
    #: ``mmap_threshold``, the allocation size at and above which every allocation is mapped
    #: afresh and unmapped on free (:meth:`mlcost.roofline.Ceilings.first_touch_seconds`).
    first_touch_bandwidth: ByteRate | None = None
    mmap_threshold: Bytes | None = None
    vector_efficiency: float | None = Field(default=None, gt=0, le=1.0)
    kind_efficiency: dict[str, float] = Field(default_factory=dict)
    #: Per operator kind that is bound by memory (``norm``, ``activation``, ``elementwise``,
    #: ``loss``, ``optimizer``, ...): the share of the datasheet bandwidth its kernels reached
    #: in a profiled run, in (0, 1] (:func:`mlcost.trace_fit.calibrate_from_trace`).
    kind_memory_efficiency: dict[str, Annotated[float, Field(gt=0.0, le=1.0)]] = Field(
        default_factory=dict
    )
    #: The caching allocator's reserved-but-unallocated share at the peak of a profiled run
    #: (``peak reserved / peak allocated - 1``), in [0, 1): it replaces the assumed 5%.
    allocator_fragmentation: float | None = Field(default=None, ge=0.0, lt=1.0)
    #: The run a profile was fitted from, where it was fitted from a profiler trace.
    trace: TraceOrigin | None = None
    collectives: tuple[CollectiveFit, ...] = ()
    fit_quality: dict[str, float] = Field(default_factory=dict)


class Accelerator(Spec):
    """A GPU or other accelerator, as its datasheet describes it."""

    KIND: ClassVar[str] = "accelerator"
    kind: Literal["accelerator"] = "accelerator"
    vendor: str
    architecture: str | None = None
    form_factor: str | None = None
    release_year: int | None = Field(default=None, ge=1990, le=2100)
    memory_type: str | None = None
    memory_capacity: Bytes
    memory_visible: Bytes | None = None
    memory_bandwidth: ByteRate
    compute_units: PositiveInt | None = None
    compute_unit_name: str = "SM"
    l2_cache: Bytes | None = None
    boost_clock: Frequency | None = None
    tdp: Power | None = None
    interconnect: str | None = None
    host_interface: str | None = None
    list_price: Money | None = None
    embodied_carbon: CarbonMass | None = None
    cloud_price: CloudPrice | None = None
    peak_compute: tuple[PeakThroughput, ...]
    measured: Measured | None = None

    @model_validator(mode="after")
    def _peaks_unique(self) -> "Accelerator":
        seen = set()
        for entry in self.peak_compute:
            key = (entry.format, entry.engine)
            if key in seen:
                raise ValueError(f"peak_compute: {entry.format}/{entry.engine} is listed twice")
            seen.add(key)
        if not self.peak_compute:
            raise ValueError("peak_compute: at least one entry is required")
        return self

    @model_validator(mode="after")
    def _within_the_datasheet(self) -> "Accelerator":
        """Physics and the spec's own figures agree: the memory a program sees is at most the
        memory there is, and a measured ceiling (GEMM or attention efficiency = achieved /
        datasheet peak, measured bandwidth) is at most the datasheet's, within
        :data:`MEASURED_ABOVE_DATASHEET`."""
        visible = self.memory_visible
        if visible is not None and visible > self.memory_capacity:
            raise ValueError(
                f"memory_visible: got {visible:~P}, above memory_capacity "
                f"{self.memory_capacity:~P}; expected at most the memory there is (what "
                "torch.cuda.get_device_properties reports); fix one of the two"
            )
        measured = self.measured
        if measured is None:
            return self
        limit = MEASURED_ABOVE_DATASHEET
        for field in ("gemm_efficiency", "attention_efficiency"):
            for fmt, points in getattr(measured, field).items():
                worst = max((p.efficiency for p in points), default=0.0)
                if worst > limit:
                    raise ValueError(
                        f"measured.{field}.{fmt}: got {worst:.3g} x the datasheet peak; "
                        f"expected at most {limit:g} (no GEMM runs faster than the chip's peak: "
                        "a timer, FLOP count or wrong base GPU); re-measure, or calibrate with "
                        "--base set to the GPU it ran on"
                    )
        bandwidth = measured.memory_bandwidth
        if bandwidth is not None and bandwidth > limit * self.memory_bandwidth:
            raise ValueError(
                f"measured.memory_bandwidth: got {bandwidth.to('GB/s'):.4g~P}, above "
                f"{limit:g} x the datasheet's {self.memory_bandwidth.to('GB/s'):.4g~P}; expected "
                "at most the datasheet bandwidth; re-measure, or fix the base GPU"
            )
        return self

    @property
    def memory_available(self) -> pint.Quantity:
        """Memory a program can allocate: what the GPU reports (``memory_visible``, e.g.
        81,559 MiB = 79.65 GiB on an "80 GB" H100), else the datasheet capacity. Every fit check
        compares with this."""
        visible = self.memory_visible  # compared with None: a quantity's truth value is slow
        return self.memory_capacity if visible is None else visible

    @property
    def formats(self) -> tuple[str, ...]:
        """Compute formats with a peak figure, in catalog order."""
        return tuple(dict.fromkeys(entry.format for entry in self.peak_compute))

    def peak(
        self, format: str, *, sparse: bool = False, engine: str | None = None
    ) -> pint.Quantity:
        """Peak throughput in FLOP/s for ``format``.

        Without ``engine`` the tensor/matrix engine is preferred over vector units (that is
        what a GEMM in that format runs on). ``sparse=True`` returns the 2:4 structured
        sparsity figure, which only applies to sparse weights.
        """
        candidates = [e for e in self.peak_compute if e.format == format]
        if engine is not None:
            candidates = [e for e in candidates if e.engine == engine]
        if not candidates:
            known = ", ".join(self.formats)
            wanted = f"{format}/{engine}" if engine else format
            raise MlcostError(
                f"peak: {self.name} has no {wanted} throughput in its datasheet; "
                f"known formats: {known}"
            )
        candidates.sort(key=lambda e: e.engine == "vector")
        entry = candidates[0]
        if sparse:
            if entry.sparse is None:
                raise MlcostError(f"peak: {self.name} lists no 2:4-sparse figure for {format}")
            return entry.sparse.to("TFLOP/s")
        return entry.dense.to("TFLOP/s")

    def ridge_point(self, format: str = "bf16", *, sparse: bool = False) -> pint.Quantity:
        """Roofline ridge point ``peak / memory bandwidth`` in FLOP/byte (Williams et al. 2009).

        An operator whose arithmetic intensity is below this is memory-bound on this device.
        """
        return (self.peak(format, sparse=sparse) / self.memory_bandwidth).to("flop/byte")

    def ridge_points(self) -> dict[str, pint.Quantity]:
        """Dense ridge point for every format with a peak figure."""
        return {fmt: self.ridge_point(fmt) for fmt in self.formats}


class Link(Spec):
    """An interconnect: NVLink, PCIe, InfiniBand, Ethernet.

    ``collective_bandwidth``: the bus bandwidth NCCL's ring collectives reach on this link, where
    measured (else its family's share of the line rate). ``in_network_bandwidth``: where the
    switches reduce in the network (NVLink SHARP, "NVLS", on NVSwitch 3 and later), the all-reduce
    algorithm bandwidth measured on ``in_network_ranks`` GPUs, used from ``in_network_min_ranks``
    GPUs on (below them NCCL keeps the ring); :attr:`in_network_port_rate` turns it into the
    rate of a GPU's switch ports, which holds for every GPU count."""

    KIND: ClassVar[str] = "link"
    kind: Literal["link"] = "link"
    family: Literal["nvlink", "pcie", "infiniband", "ethernet", "infinity-fabric", "other"]
    generation: str | None = None
    bandwidth_per_direction: ByteRate | None = None
    bandwidth_both_directions: ByteRate | None = None
    signaling_rate: BitRate | None = None
    latency: Duration | None = None
    scope: str | None = None
    collective_bandwidth: ByteRate | None = None
    in_network_bandwidth: ByteRate | None = None
    in_network_ranks: int | None = Field(default=None, ge=2)
    in_network_min_ranks: int | None = Field(default=None, ge=2)

    @model_validator(mode="after")
    def _bandwidth_given(self) -> "Link":
        one, both = self.bandwidth_per_direction, self.bandwidth_both_directions
        if one is None and both is None:
            raise ValueError(
                "bandwidth_per_direction: give it or bandwidth_both_directions (full duplex)"
            )
        if one is not None and both is not None:
            ratio = float((both / one).to("dimensionless").magnitude)
            if abs(ratio - 2) > 1e-9:
                raise ValueError(
                    "bandwidth_both_directions: expected twice bandwidth_per_direction "
                    f"(full duplex), got {ratio:g} times"
                )
        if self.in_network_bandwidth is not None and self.in_network_ranks is None:
            raise ValueError(
                "in_network_ranks: missing; give the GPU count in_network_bandwidth was measured "
                "on (e.g. 8 for an 8-GPU NVSwitch node)"
            )
        return self

    @property
    def in_network_port_rate(self) -> pint.Quantity | None:
        """Per-direction rate of one GPU's switch ports under in-network all-reduce (NVLS).

        NCCL's NVLS all-reduce in a node (``RunWorkColl<ncclFuncAllReduce, .., NCCL_ALGO_NVLS>``
        in NCCL's ``src/device/all_reduce.h``) copies each GPU's input into its own share of the
        multicast buffer, lets the head of each ``1/n`` chunk load it reduced from all ``n`` GPUs
        through the switch (``multimem.ld_reduce``) and store the result to all of them
        (``multimem.st``), then copies it out locally. Per GPU and direction that is
        ``S + S/n``: its whole buffer read by the switch plus its reduced chunk stored (out), its
        reduced chunk plus every GPU's stored chunk (in). So ``algbw(n) = B_port·n/(n+1)``, and
        the measured ``algbw(m)`` on ``m = in_network_ranks`` GPUs gives
        ``B_port = algbw(m)·(m+1)/m``. (Our reading of the kernel; the measured 8×H200 sweep,
        ml-engineering's SHARP table, implies a ``B_port`` flat within 1 % over 5 to 8 GPUs.)
        """
        if self.in_network_bandwidth is None or self.in_network_ranks is None:
            return None
        m = self.in_network_ranks
        return (self.in_network_bandwidth * (m + 1) / m).to("GB/s")

    @property
    def per_direction(self) -> pint.Quantity:
        """Bandwidth in one direction: what a collective's send or receive sees."""
        if self.bandwidth_per_direction is not None:
            return self.bandwidth_per_direction
        both = self.bandwidth_both_directions
        if both is None:  # unreachable: the validator requires one of the two
            raise MlcostError(f"{self.name}: no bandwidth given")
        return both / 2

    @property
    def both_directions(self) -> pint.Quantity:
        """Both directions together, as NVLink datasheets quote it."""
        if self.bandwidth_both_directions is not None:
            return self.bandwidth_both_directions
        return self.per_direction * 2


class Storage(Spec):
    """A storage device or a network file system."""

    KIND: ClassVar[str] = "storage"
    kind: Literal["storage"] = "storage"
    medium: Literal["nvme", "sata-ssd", "hdd", "network-fs"]
    interface: str | None = None
    sequential_read: ByteRate
    sequential_write: ByteRate
    random_read_iops: float | None = Field(default=None, gt=0)
    random_write_iops: float | None = Field(default=None, gt=0)
    random_io_size: Bytes = Q_(4, "KiB")
    latency: Duration | None = None
    capacity: Bytes | None = None

    @property
    def random_read(self) -> pint.Quantity | None:
        """Random-read bandwidth ``IOPS x I/O size``."""
        if self.random_read_iops is None:
            return None
        return (self.random_read_iops * self.random_io_size / Q_(1, "s")).to("MB/s")

    @property
    def random_write(self) -> pint.Quantity | None:
        """Random-write bandwidth ``IOPS x I/O size``."""
        if self.random_write_iops is None:
            return None
        return (self.random_write_iops * self.random_io_size / Q_(1, "s")).to("MB/s")


class Host(Spec):
    """The CPU side of a node."""

    KIND: ClassVar[str] = "host"
    kind: Literal["host"] = "host"
    cpu: str
    sockets: PositiveInt = 1
    cores: PositiveInt
    dram_capacity: Bytes
    dram_bandwidth: ByteRate
    power: Power | None = None


class Attached(_Part):
    """A named part attached ``count`` times (NICs, drives)."""

    link: str | None = None
    device: str | None = None
    count: PositiveInt = 1

    @model_validator(mode="after")
    def _one_name(self) -> "Attached":
        if (self.link is None) == (self.device is None):
            raise ValueError("give exactly one of 'link' (a NIC) or 'device' (a drive)")
        return self

    @property
    def target(self) -> str:
        return self.link or self.device or ""


class Node(Spec):
    """A server: a host, N identical accelerators, the link between them, NICs and drives.

    ``accelerator`` is the GPU the node is sold with; ``compatible_accelerators`` lists other
    GPUs the same server design takes (a generic PCIe server), so that it is the standard node of
    each. Without ``intra_node_link`` GPUs reach each other through their own host interface
    (PCIe through the host's switches), as in a server without NVLink.
    """

    KIND: ClassVar[str] = "node"
    kind: Literal["node"] = "node"
    host: str | None = None
    accelerator: str
    compatible_accelerators: tuple[str, ...] = ()
    accelerators_per_node: PositiveInt
    intra_node_link: str | None = None
    nics: tuple[Attached, ...] = ()
    storage: tuple[Attached, ...] = ()
    power: Power | None = None
    #: Whole-node power measured at the wall while the node trains (GPUs near full use), as
    #: opposed to ``power``, the nameplate maximum.
    training_power: Power | None = None

    def references_to(self) -> list[tuple[str, str]]:
        """(kind, name) of every catalog item this node names."""
        refs = [("accelerator", self.accelerator)]
        refs += [("accelerator", name) for name in self.compatible_accelerators]
        if self.host:
            refs.append(("host", self.host))
        if self.intra_node_link:
            refs.append(("link", self.intra_node_link))
        refs += [("link", nic.target) for nic in self.nics]
        refs += [("storage", drive.target) for drive in self.storage]
        return refs


class Cluster(Spec):
    """Identical nodes joined by an inter-node fabric."""

    KIND: ClassVar[str] = "cluster"
    kind: Literal["cluster"] = "cluster"
    node: str
    nodes: PositiveInt
    inter_node_link: str

    def references_to(self) -> list[tuple[str, str]]:
        return [("node", self.node), ("link", self.inter_node_link)]
