"""The inputs of the vectorized parallel model, as columns: the layout's degrees (one row per
candidate in a search or a sweep, :class:`Degrees`), the model's dimensions
(:class:`ModelDims`), one GPU's compute per micro-batch and stage (:class:`ShardCompute`), how
communication overlaps compute (:class:`CommOptions`, with the experts of a mixture-of-experts
model), and one communication term of a step (:class:`CommTerm`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pint

from mlcost.arrays import Real
from mlcost.comms import Collective, bus_bandwidth_factor
from mlcost.implementation import Software
from mlcost.layout import Layout
from mlcost.memory import DEFAULT_OVERHEADS
from mlcost.records import Record, replace
from mlcost.units import Q_

#: The share of the compute a collective takes while it hides behind compute, over NVLink (a
#: group inside a node, or across nodes with several GPUs per node) and over the inter-node
#: network alone: Calculon's ``processor_usage`` of its A100 system (Isaev et al. 2023,
#: "Calculon: a Methodology and Tool for High-Level Codesign of Systems and Large Language
#: Models", SC'23, section 3; calculon-ai/calculon at commit caa4b11, systems/a100_80e.json:
#: 0.15 for NVLink, 0.02 for InfiniBand). NCCL runs collectives as kernels on the SMs.
COLLECTIVE_COMPUTE_SHARE = (0.15, 0.02)


class CommOptions(Record, frozen=True):
    """How communication overlaps compute: ``overlap=False`` exposes all of it (the no-overlap
    upper bound); ``bucket`` the DDP gradient bucket (all but the last hide behind backward;
    :class:`mlcost.memory.Overheads` is its one home). What the software overlaps comes from
    its implementation profile (:meth:`for_software`): gradient reduction behind the last
    backward (``overlap_grad_reduce``), ZeRO's parameter all-gather behind the next forward
    (``overlap_param_gather``), the expert-parallel all-to-all behind the other micro-batch's
    compute (``overlap_expert_alltoall``), the sequence-parallel all-gather redone in backward
    (``sequence_parallel_regather``), pipeline sends exposed every micro-batch
    (``pipeline_sends_exposed``) and the compute a hidden collective takes from the GPU
    (``collective_compute_share``, intra- and inter-node); tensor-parallel overlap is a layout
    option (``Layout.tp_overlap``), and so is the expert-parallel one where the software does
    not overlap it by default (``Layout.ep_overlap``)."""

    overlap: bool = True
    bucket: pint.Quantity = DEFAULT_OVERHEADS.communication_bucket
    overlap_grad_reduce: bool = True
    overlap_param_gather: bool = False
    backward_prefetch: str = "pre"
    overlap_expert_alltoall: bool = False
    sequence_parallel_regather: bool = False
    pipeline_sends_exposed: bool = False
    collective_compute_share: tuple[float, float] = (0.0, 0.0)

    def for_software(self, software: Software) -> CommOptions:
        """These options with the overlaps ``software`` implements."""
        spec = software.spec
        return replace(
            self,
            overlap_grad_reduce=spec.overlap_grad_reduce,
            overlap_param_gather=spec.overlap_param_gather,
            backward_prefetch=spec.fsdp_backward_prefetch,
            overlap_expert_alltoall=spec.overlap_moe_alltoall,
            sequence_parallel_regather=spec.sequence_parallel_regather,
            pipeline_sends_exposed=spec.pipeline_sends_exposed,
            collective_compute_share=(
                COLLECTIVE_COMPUTE_SHARE if spec.collectives_take_compute else (0.0, 0.0)
            ),
        )


def stage_layer_profile(layers: int, layout: Layout) -> tuple[int, int, int]:
    """Layers on the first stage, on the last stage, and on the most loaded middle stage (0
    without middle stages) of ``layout``'s pipeline (:meth:`mlcost.layout.Layout.
    stage_layer_counts`)."""
    counts = layout.stage_layer_counts(layers)
    middle = max(counts[1:-1]) if len(counts) > 2 else 0
    return counts[0], counts[-1], middle


#: A column of :class:`Degrees`: one value per candidate (integers, flags or fractions).
Column = npt.NDArray[Any]


class Degrees(Record, frozen=True):
    """Layout parameters as numpy arrays (one element per candidate; broadcastable; one layout:
    arrays of one), with the pipeline's layer split: layers of the first, last and most loaded
    middle stage."""

    dp: Column
    tp: Column
    pp: Column
    cp: Column
    ep: Column
    micro_batch: Column
    micro_batches: Column
    zero: Column
    sequence_parallel: Column
    virtual: Column
    recompute_fraction: Column  # share of layers fully recomputed (0..1)
    first_layers: Column
    last_layers: Column
    middle_layers: Column
    tp_overlap: Column  # TP communication overlapped with the layer GEMMs
    ep_overlap: Column  # EP all-to-all hidden behind another micro-batch's compute

    @classmethod
    def from_layouts(cls, layouts: Sequence[Layout], layers: int) -> Degrees:
        """The degrees of several layouts of a model of ``layers`` layers, one column each."""
        values = [_layout_values(lay, layers) for lay in layouts]
        return cls(**{name: np.asarray([v[name] for v in values]) for name in _FIELDS})

    def at(self, index: Any) -> Degrees:
        """The candidates at ``index`` (a mask or indices into the columns)."""
        return Degrees(**{name: getattr(self, name)[index] for name in self.__struct_fields__})

    def broadcast_to(self, shape: tuple[int, ...], **columns: Any) -> Degrees:
        """Every column broadcast to ``shape``, with ``columns`` replacing some."""
        values = {name: getattr(self, name) for name in self.__struct_fields__}
        values.update(columns)
        return Degrees(**{k: _broadcast_copy(v, shape) for k, v in values.items()})

    @property
    def gpus(self) -> Column:
        return self.dp * self.tp * self.pp * self.cp

    @property
    def stage_layers(self) -> Column:
        """Layers on the most loaded pipeline stage."""
        return np.maximum(np.maximum(self.first_layers, self.last_layers), self.middle_layers)


#: The :class:`Degrees` fields, in order, and the :class:`~mlcost.layout.Layout` attribute each
#: of the first twelve reads (the rest are the recomputed share and the pipeline's layer split).
_FROM_LAYOUT = {
    "dp": "dp",
    "tp": "tp",
    "pp": "pp",
    "cp": "cp",
    "ep": "ep",
    "micro_batch": "micro_batch_size",
    "micro_batches": "micro_batches",
    "zero": "zero_stage",
    "sequence_parallel": "sequence_parallel",
    "virtual": "virtual_stages",
    "tp_overlap": "tp_overlap",
    "ep_overlap": "ep_overlap",
}
_FIELDS = (*_FROM_LAYOUT, "recompute_fraction", "first_layers", "last_layers", "middle_layers")


def _layout_values(layout: Layout, layers: int) -> dict[str, Any]:
    """One layout's degrees, by :class:`Degrees` field."""
    values: dict[str, Any] = {name: getattr(layout, attr) for name, attr in _FROM_LAYOUT.items()}
    first, last, middle = stage_layer_profile(layers, layout)
    values.update(
        recompute_fraction=float(layout.recompute_fraction(layers)),
        first_layers=first,
        last_layers=last,
        middle_layers=middle,
    )
    return values


def _broadcast_copy(value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``np.broadcast_to(value, shape).copy()``: a fresh array of ``shape``."""
    return np.broadcast_to(np.asarray(value), shape).copy()


class ShardCompute(Record, frozen=True):
    """Compute seconds on one GPU (arrays over candidates): one micro-batch
    on the slowest pipeline stage, its forward and backward parts, its attention kernels, the
    sum over all stages of one micro-batch (for the bubble), and the optimizer update per
    step."""

    micro_batch: Real
    forward: Real
    backward: Real
    attention: Real
    all_stages: Real
    optimizer: Real
    layer_gemm: Real = 0.0


#: The links a group's collective crosses, by code (the last: an inactive term).
LINK_NAMES = np.asarray(["intra-node", "inter-node", "intra+inter", "none"], dtype=object)


class CommTerm(Record, frozen=True):
    """One communication term of a step, per GPU: what is sent, how often, over which link,
    how long it takes in all, and how much of that is exposed (not hidden behind compute).

    Stored as plain magnitudes (bytes and seconds; arrays in a search) so the evaluator adds
    them without unit conversions; ``message``, ``time``, ``exposed`` and the derived
    quantities are pint quantities built when asked."""

    strategy: str
    collective: Collective
    label: str  # how the collective is shown, e.g. "all-reduce (reduce-scatter + ... with SP)"
    message_bytes: Real  # bytes per call (whole array for reduce-scatter/all-gather)
    calls: Real  # per optimizer step
    ranks: Real
    link_code: Any  # index into LINK_NAMES (array in sweeps); ``link`` names it
    time_seconds: Real  # all calls of a step
    exposed_seconds: Real
    formula: str
    source: str

    @property
    def link(self) -> Any:
        """The links the collective crosses: "intra-node", "inter-node", "intra+inter", or
        "none" for an inactive term (:data:`LINK_NAMES`; an array in sweeps), named on demand
        (a search's million candidates never need the names)."""
        return LINK_NAMES[np.asarray(self.link_code)]

    @property
    def message(self) -> pint.Quantity:
        """Bytes per call (the whole array for reduce-scatter and all-gather)."""
        return Q_(self.message_bytes, "byte")

    @property
    def time(self) -> pint.Quantity:
        """Seconds of all the term's calls in one step."""
        return Q_(self.time_seconds, "s")

    @property
    def exposed(self) -> pint.Quantity:
        """Seconds of ``time`` not hidden behind compute."""
        return Q_(self.exposed_seconds, "s")

    @property
    def hidden(self) -> pint.Quantity:
        return Q_(self.time_seconds - self.exposed_seconds, "s")

    @property
    def bytes(self) -> pint.Quantity:
        """Bytes moved by the calls of one step (message x calls)."""
        return Q_(self.message_bytes * self.calls, "byte")

    @property
    def sent(self) -> pint.Quantity:
        """Bytes each GPU sends per step: message x calls x the nccl-tests bus factor (what a
        ring puts on each GPU's link)."""
        factor = bus_bandwidth_factor(self.collective, np.maximum(np.asarray(self.ranks), 1))
        return Q_(self.message_bytes * self.calls * factor, "byte")


class ModelDims(Record, frozen=True):
    """The model numbers the traffic depends on."""

    parameters: float
    layers: int
    hidden: int
    kv_width: int  # kv heads x head size
    sequence: int
    activation_bytes: float
    gradient_bytes: float
    weight_bytes: float
    moe_layers: int = 0  # layers holding experts
    num_experts: int = 0  # routed experts per MoE layer
    experts_per_token: int = 0  # top-k
    expert_parameters: float = 0.0  # routed experts' parameters, sharded by ep
