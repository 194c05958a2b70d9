"""Memory per GPU for one training step, term by term, and "will it fit?".

Terms (each in bytes, with its formula and source in :meth:`MemoryBreakdown.explain`):

* **Model states** (:mod:`mlcost.memory.states`): ``Psi`` parameters per GPU, sharded by ZeRO
  over the ``dp·cp`` ranks that hold the same weights. Tensor parallelism divides the parameters
  by ``t``; a pipeline stage of ``n_i`` of the ``L`` layers holds ``n_i/L`` of them (embedding
  and head spread in proportion; under 4% of a 7B model, less for larger ones).
* **Activations** (:mod:`mlcost.memory.activations`) of ``s/cp`` tokens per sequence: the
  layers' share, the embedding (first stage) and the head (last stage). With pipeline parallelism
  and 1F1B, stage ``i`` of ``p`` holds ``min(p-i, m)`` micro-batches in flight (Narayanan et al.
  2021, section 2.2; the first stage ``p``, i.e. the activations of all ``L`` layers when the
  stages are even); the interleaved schedule holds ``1 + (p-1)/(p·v)`` times more (Megatron-LM's
  theoretical memory model, ``theoretical_memory_usage.py``).
* **Logits and loss**: the logits upcast to FP32 for the cross-entropy, ``4·b·s·V/t`` bytes, on
  the last stage, often the largest single tensor.
* **Transient peak in backward**: when the backward pass starts, the dense FP32 gradient of the
  loss with respect to the log-probabilities (``nll_loss`` backward) and the one with respect to
  the logits (``log_softmax`` backward) coexist: ``2·4·b·s·V/t`` bytes.
* **Framework overhead** as explicit inputs (:class:`Overheads`).

Every stage is evaluated and the most loaded one is reported (``details["stage"]``).
"""

import functools
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pint
from pydantic import Field

from mlcost.arrays import Array, Real, plain
from mlcost.checks import argument, counts, finite
from mlcost.errors import MlcostError
from mlcost.finetune import FineTuning, dequantized_weight_bytes
from mlcost.implementation import SoftwareLike
from mlcost.implementation import implementation as implementation_of
from mlcost.layout import Layout
from mlcost.memory.activations import ActivationParts, Profile, activation_parts
from mlcost.memory.states import (
    OFFLOADED,
    ZERO_SHARDS_FROM,
    model_state_bytes_per_parameter,
    state_bytes,
)
from mlcost.memory.terms import MODEL_STATES, MemoryTerm
from mlcost.records import Record, field
from mlcost.results import Figure, Result, json_value, sweep_text
from mlcost.specs import Accelerator, ConvNetSpec, Implementation, ModelSpec, TransformerSpec
from mlcost.specs.base import BytesOrZero, Model
from mlcost.specs.catalog import as_accelerator, as_model
from mlcost.units import Q_, in_unit
from mlcost.workload import TrainingConfig, operators

if TYPE_CHECKING:
    import pandas as pd


class Overheads(Model):
    """Memory that is not model state or activations. Defaults and where they come from:

    * ``cuda_context``: the CUDA context and kernels loaded by PyTorch, not visible to
      ``torch.cuda.memory_allocated``; a few hundred MiB, varying with the driver and the
      libraries loaded (PyTorch "CUDA semantics" notes, memory management). Default 512 MiB is
      an assumption to replace with a measured figure.
    * ``communication_bucket`` and ``buckets_in_flight``: DDP's gradient buckets,
      ``bucket_cap_mb`` = 25 MB by default (PyTorch ``DistributedDataParallel`` docs; Li et al.
      2020, "PyTorch Distributed", VLDB, section 3.2.3), two in flight; counted when the
      data-parallel ranks are more than one and ZeRO stage < 2. The step-time model uses the same
      bucket: all but the last one hides behind backward.
    * ``fragmentation``: the caching allocator's reserved-but-unallocated share, as a fraction of
      everything else; default 5%, an assumption (PyTorch "CUDA semantics": the allocator rounds
      and caches blocks; ``expandable_segments`` reduces it).
    """

    cuda_context: BytesOrZero = Q_(512, "MiB")
    communication_bucket: BytesOrZero = Q_(25, "MB")
    buckets_in_flight: int = Field(default=2, ge=0)
    fragmentation: float = Field(default=0.05, ge=0.0, lt=1.0)

    @functools.cached_property  # a pydantic model keeps functools' (mlcost.records)
    def context_bytes(self) -> float:
        """``cuda_context`` in bytes, converted once per instance (the composition reads it on
        every call)."""
        return float(in_unit(self.cuda_context, "byte"))

    @functools.cached_property  # a pydantic model keeps functools' (mlcost.records)
    def bucket_bytes(self) -> float:
        """The buckets in flight in bytes, ``communication_bucket x buckets_in_flight``,
        converted once per instance."""
        return float(in_unit(self.communication_bucket * self.buckets_in_flight, "byte"))


#: The defaults (an immutable instance, so its converted values are computed once).
DEFAULT_OVERHEADS = Overheads()


def overheads_of(accelerator: Accelerator | None) -> Overheads:
    """The overheads on ``accelerator``: :data:`DEFAULT_OVERHEADS`, with the allocator
    fragmentation measured in a profiled run where its profile has one
    (``Measured.allocator_fragmentation``, ``mlcost calibrate --trace``)."""
    measured = None if accelerator is None else accelerator.measured
    if measured is None or measured.allocator_fragmentation is None:
        return DEFAULT_OVERHEADS
    return Overheads(fragmentation=measured.allocator_fragmentation)


# ----- the composition (plain numbers, vectorized) ---------------------------------------------
class StageMemory(Record, frozen=True, dict=True):
    """Bytes per GPU of every pipeline stage and of the most loaded one, for every candidate:
    each term over ``(stages, *candidates)`` (:attr:`by_stage`), the micro-batches in flight on
    each stage (:attr:`held`), the index of the most loaded stage and its total. A search reads
    only the total; the terms at that stage are picked when asked (:attr:`terms`)."""

    stage_index: npt.NDArray[np.intp]
    total: Real
    by_stage: dict[MemoryTerm, Array]
    held: Array

    @property
    def stage(self) -> Real:
        """The index of the most loaded stage."""
        return plain(self.stage_index)

    @cached_property
    def terms(self) -> dict[MemoryTerm, Real]:
        """Each term at the most loaded stage (their sum is :attr:`total`)."""
        return {term: _at_stage(value, self.stage_index) for term, value in self.by_stage.items()}

    @cached_property
    def in_flight(self) -> Real:
        """Micro-batches whose activations the most loaded stage holds."""
        return _at_stage(self.held, self.stage_index)


def in_flight_micro_batches(stages: int, micro_batches: Real, virtual: int = 1) -> Array:
    """Micro-batches each pipeline stage holds activations for, shape ``(stages, *m.shape)``:
    1F1B keeps ``min(p - i, m)`` on stage ``i`` (Narayanan et al. 2021, section 2.2), the
    interleaved schedule ``1 + (p-1)/(p·v)`` times that; one without pipeline parallelism."""
    counts(stages, "stages")
    counts(virtual, "virtual")
    m = np.asarray(finite(micro_batches, "micro_batches", minimum=1.0), dtype=np.float64)
    if stages == 1:
        return np.ones((1, *m.shape))
    index = np.arange(stages, dtype=np.float64).reshape((stages, *(1,) * m.ndim))
    held = np.minimum(stages - index, m)
    if virtual > 1:
        held = held * (1 + (stages - 1) / (stages * virtual))
    return held


def _stage_terms(
    parts: ActivationParts,
    *,
    n: Real,
    first: Real,
    last: Real,
    held: Real,
    t: Real,
    t_replicated: Real,
    parameters: float,
    layers: int,
    per_parameter: dict[MemoryTerm, float],
    weight_replicas: Real,
    zero_stage: Real,
    offload: bool,
    overheads: Overheads,
    head_term: bool,
    dequantized_weight: float,
    expert_parameters: float,
    expert_parallel: Real,
) -> dict[MemoryTerm, Real]:
    """Every term but fragmentation of a stage of ``n`` layers (``first``/``last`` whether it
    holds the embedding/head, ``held`` its micro-batches in flight), arrays ``(stages,
    *candidates)`` (:func:`per_gpu_memory`)."""
    per_layer = (parts.layers_split / t + parts.layers_replicated / t_replicated) / layers
    logits = np.where(last, parts.logits / t, 0.0)
    terms = state_bytes(
        (parameters - expert_parameters) * n / layers / t,
        per_parameter,
        zero_stage=zero_stage,
        data_parallel=weight_replicas,
        offload=offload,
    )
    if expert_parameters:
        experts = state_bytes(
            expert_parameters / expert_parallel * n / layers / t,
            per_parameter,
            zero_stage=zero_stage,
            data_parallel=np.maximum(weight_replicas / expert_parallel, 1.0),
            offload=offload,
        )
        terms = {term: terms[term] + experts[term] for term in terms}
    terms[MemoryTerm.ACTIVATIONS] = per_layer * n * held
    if head_term:
        head = parts.head_split / t + parts.head_replicated / t_replicated
        terms[MemoryTerm.HEAD_ACTIVATIONS] = np.where(last, head, 0.0) + np.where(
            first, parts.embedding / t_replicated, 0.0
        )
        terms[MemoryTerm.LOGITS] = logits
        terms[MemoryTerm.TRANSIENT] = 2 * logits
    if dequantized_weight:  # QLoRA: one linear's weight in the compute format at a time
        terms[MemoryTerm.DEQUANTIZED] = dequantized_weight / t
    # DDP's buckets: replicated weights whose gradients ZeRO does not shard.
    communicates = (weight_replicas > 1) & (zero_stage < 2)
    terms[MemoryTerm.COMMUNICATION] = np.where(communicates, overheads.bucket_bytes, 0.0)
    terms[MemoryTerm.CUDA_CONTEXT] = overheads.context_bytes
    return terms


def per_gpu_memory(
    parts: ActivationParts,
    *,
    parameters: float,
    layers: int,
    per_parameter: dict[MemoryTerm, float],
    stage_layers: Sequence[int],
    virtual_stages: int = 1,
    tensor_parallel: Real = 1,
    weight_replicas: Real = 1,
    zero_stage: Real = 0,
    sequence_parallel: Real = False,
    micro_batches: Real = 1,
    offload: bool = False,
    overheads: Overheads,
    head_term: bool = True,
    dequantized_weight: float = 0.0,
    expert_parameters: float = 0.0,
    expert_parallel: Real = 1,
) -> StageMemory:
    """Every term of every pipeline stage, and the most loaded stage (module docstring).

    The one composition of the per-GPU total: :func:`memory_breakdown`, the solvers, the
    parallel search and the recomputation planner all call it. ``weight_replicas`` is the number
    of ranks holding the same weights (``dp·cp``), which ZeRO shards over. Of the
    ``parameters``, the ``expert_parameters`` (a mixture-of-experts model's routed experts) are
    split over the ``expert_parallel`` ranks ``e``, and ZeRO shards their states over the
    ``dp·cp/e`` ranks that hold the same experts (Megatron-Core's expert-data-parallel group;
    Rajbhandari et al. 2022, DeepSpeed-MoE, section 5). Everything but the stage split is
    vectorized: the arguments broadcast to one candidate shape. ``dequantized_weight``: the
    bytes of the largest weight QLoRA dequantizes at once
    (:func:`mlcost.finetune.dequantized_weight_bytes`), split by tensor parallelism.

    """
    candidates = np.broadcast_shapes(
        *(
            np.shape(value)
            for value in (
                parts.layers_split,
                parts.layers_replicated,
                parts.embedding,
                parts.head_split,
                parts.head_replicated,
                parts.logits,
                tensor_parallel,
                weight_replicas,
                zero_stage,
                sequence_parallel,
                micro_batches,
                expert_parallel,
            )
        )
    )
    p = len(stage_layers)
    shape = (p, *candidates)
    column = (p,) + (1,) * len(candidates)
    t = np.asarray(tensor_parallel, dtype=np.float64)
    held = np.broadcast_to(
        in_flight_micro_batches(p, np.broadcast_to(micro_batches, candidates), virtual_stages),
        shape,
    )
    terms = _stage_terms(
        parts,
        n=np.asarray(stage_layers, dtype=np.float64).reshape(column),
        first=(np.arange(p) == 0).reshape(column),
        last=(np.arange(p) == p - 1).reshape(column),
        held=held,
        t=t,
        t_replicated=np.where(np.asarray(sequence_parallel, dtype=bool), t, 1.0),
        parameters=parameters,
        layers=layers,
        per_parameter=per_parameter,
        weight_replicas=np.asarray(weight_replicas),
        zero_stage=zero_stage,
        offload=offload,
        overheads=overheads,
        head_term=head_term,
        dequantized_weight=dequantized_weight,
        expert_parameters=expert_parameters,
        expert_parallel=np.asarray(expert_parallel, dtype=np.float64),
    )
    # Each term over (stages, *candidates), as float64 (a view: no copy of the candidates).
    full = {
        term: np.broadcast_to(np.asarray(value, dtype=np.float64), shape)
        for term, value in terms.items()
    }
    subtotal = sum(full.values(), np.zeros(shape))
    full[MemoryTerm.FRAGMENTATION] = subtotal * overheads.fragmentation
    stage = np.argmax(subtotal, axis=0)
    # The same additions in the same order as summing the picked terms (0 + t1 + ... + the
    # fragmentation), so the total equals the sum of ``terms`` exactly.
    total = _at_stage(subtotal + full[MemoryTerm.FRAGMENTATION], stage)
    return StageMemory(stage_index=stage, total=total, by_stage=full, held=held)


def layout_memory(
    parts: ActivationParts,
    spec: ModelSpec,
    config: TrainingConfig,
    layout: Layout,
    layers: int,
    stage_layers: Sequence[int],
    *,
    per_parameter: dict[MemoryTerm, float],
    weight_replicas: Real,
    overheads: Overheads,
) -> StageMemory:
    """:func:`per_gpu_memory` of ``layout`` (its tensor-, pipeline- and expert-parallel degrees,
    ZeRO stage, sequence parallelism, micro-batches and offload) for ``spec`` under ``config``:
    what :func:`memory_breakdown` and a plan's chain (:mod:`mlcost.plan.chain`) compose, the
    layout's fields passed in one place. ``weight_replicas``: the ranks holding each weight
    (``dp·cp``; a number, or an array over a sweep's GPU counts)."""
    transformer, dequantized, experts = False, 0.0, 0.0
    if isinstance(spec, TransformerSpec):
        transformer = True
        dequantized = dequantized_weight_bytes(spec, config.finetune, config.policy.stored_weight)
        experts = float(spec.expert_parameter_count)
    return per_gpu_memory(
        parts,
        parameters=float(spec.parameter_count),
        layers=layers,
        per_parameter=per_parameter,
        stage_layers=stage_layers,
        virtual_stages=layout.virtual_stages,
        tensor_parallel=layout.tp,
        weight_replicas=weight_replicas,
        zero_stage=layout.zero_stage,
        sequence_parallel=layout.sequence_parallel,
        micro_batches=layout.micro_batches,
        offload=layout.offload,
        overheads=overheads,
        head_term=transformer,
        dequantized_weight=dequantized,
        expert_parameters=experts,
        expert_parallel=layout.ep,
    )


def _at_stage(value: np.ndarray, stage: np.ndarray) -> Real:
    """``value`` (stages first) at the chosen stage of each candidate."""
    if value.shape[0] == 1:  # one pipeline stage: no choice to make
        return plain(value[0])
    picked = np.take_along_axis(value, np.expand_dims(stage, 0), axis=0)[0]
    return plain(picked)


# ----- the breakdown of one configuration ------------------------------------------------------
class MemoryBreakdown(Record, Result, frozen=True, dict=True):
    """Bytes per GPU, term by term (each a :class:`Figure` keyed by its :class:`MemoryTerm`),
    against an optional GPU's usable capacity."""

    terms: tuple[Figure, ...]
    capacity: pint.Quantity | None = None
    gpu: str | None = None
    description: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    total_bytes: Real | None = None  # the terms' sum where the composition summed them

    @cached_property
    def total(self) -> pint.Quantity:
        """The sum of the terms in GiB, computed once: ``total_bytes`` where given (the sum
        :func:`per_gpu_memory` formed, in the same order), else one conversion per term."""
        if self.total_bytes is not None:
            return Q_(self.total_bytes, "byte").to("GiB")
        return Q_(sum(in_unit(term.value, "byte") for term in self.terms), "byte").to("GiB")

    def term(self, name: str | MemoryTerm) -> pint.Quantity:
        """The bytes of one term, by its :class:`MemoryTerm` or display name."""
        for term in self.terms:
            if term.key == name or term.name == name:
                return term.value
        raise MlcostError(f"term: got {name!r}, expected one of {[t.name for t in self.terms]}")

    @property
    def headroom(self) -> pint.Quantity:
        """Capacity minus total (negative when it does not fit), in GiB."""
        if self.capacity is None:
            raise MlcostError("headroom: no GPU given, so no capacity to compare with")
        return (self.capacity - self.total).to("GiB")

    def fits(self) -> Any:
        """True where the total is within the GPU's capacity (bytes compared with bytes)."""
        return in_unit(self.headroom, "byte") >= 0

    def fit_text(self) -> str:
        """Whether it fits and by how much, from the total and the capacity: ``fits: X of Y
        (Z free)`` or ``does not fit: needs X of Y per GPU; short by Z``."""
        if self.capacity is None:
            return "no GPU given"
        headroom = self.headroom
        if np.all(self.fits()):
            return (
                f"fits: {gib_text(self.total)} of {gib_text(self.capacity)} "
                f"({gib_text(headroom)} = {headroom.to('GB').magnitude:.2f} GB free)"
            )
        return (
            f"does not fit: needs {gib_text(self.total)} of {gib_text(self.capacity)} per GPU; "
            f"short by {gib_text(-headroom)}"
        )

    def why_not(self) -> str:
        """:meth:`fit_text`, and where it does not fit the three largest terms."""
        if self.capacity is None or np.all(self.fits()):
            return self.fit_text()
        biggest = sorted(self.terms, key=lambda t: -float(np.max(in_unit(t.value, "byte"))))
        top = ", ".join(f"{t.name} {gib_text(t.value)}" for t in biggest[:3])
        return f"{self.fit_text()}; largest terms: {top}"

    def title(self) -> str:
        return self.description

    def figures(self) -> list[Figure]:
        total = Figure("total", self.total, "sum of the terms", "", "", key="total")
        return [*self.terms, total]

    def to_frame(self) -> "pd.DataFrame":
        """One row per term: GiB, GB, formula, source."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "term": t.name,
                    "GiB": in_unit(t.value, "GiB"),
                    "GB": in_unit(t.value, "GB"),
                    "formula": t.formula,
                    "source": t.source,
                }
                for t in self.terms
            ]
        )

    def explain(self) -> str:
        """Each term with its formula, the value and its source."""
        lines = [self.description]
        for t in self.terms:
            lines.append(f"- {t.name}: {gib_text(t.value)} = {t.formula}  [{t.source}]")
        lines.append(f"= total {gib_text(self.total)}")
        if self.capacity is not None:
            lines.append(self.why_not())
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data["capacity"] = None if self.capacity is None else json_value(self.capacity.to("GiB"))
        data["fits"] = None if self.capacity is None else bool(np.all(self.fits()))
        data["gpu"] = self.gpu
        return data

    def _repr_html_(self) -> str:
        import html  # on use: html.entities' table costs ~1.2 ms to import

        return f"<p>{html.escape(self.why_not())}</p>" + self.to_frame().to_html()

    def plot(self, ax: Any = None) -> Any:
        """A stacked bar of the terms against the GPU's capacity (:func:`mlcost.plot.memory`)."""
        from mlcost import plot

        return plot.memory(self, ax=ax)


def gib_text(quantity: Any) -> str:
    """``12.34 GiB`` (a range for arrays)."""
    magnitude = in_unit(quantity, "GiB")
    if np.ndim(magnitude):
        return f"{np.min(magnitude):.2f}..{np.max(magnitude):.2f} GiB"
    return f"{magnitude:.2f} GiB"


def _term_formulas(
    layout: Layout, parts: ActivationParts, per_parameter: dict[MemoryTerm, float], psi: str
) -> dict[MemoryTerm, tuple[str, str]]:
    """Formula and source of every term, for the breakdown's figures."""

    def sharding(term: MemoryTerm) -> str:
        if layout.offload and term in OFFLOADED:
            return " in host memory (offload)"
        if layout.zero_stage >= ZERO_SHARDS_FROM[term]:
            return f" / {layout.dp * layout.cp} (ZeRO-{layout.zero_stage})"
        if layout.zero_stage:
            return f" (not sharded by ZeRO-{layout.zero_stage})"
        return ""

    states = "Rajbhandari et al. 2020 (ZeRO), section 5"
    split = "" if layout.tp == 1 else f", tensor-parallel parts / {layout.tp}"
    pipeline = (
        ""
        if layout.pp == 1
        else f" x micro-batches in flight on the most loaded of {layout.pp} stages (1F1B)"
    )
    formulas = {
        term: (f"{per_parameter[term]:g} B/param x {psi}{sharding(term)}", states)
        for term in MODEL_STATES
    }
    formulas[MemoryTerm.ACTIVATIONS] = (parts.formula + split + pipeline, parts.source)
    formulas[MemoryTerm.HEAD_ACTIVATIONS] = (
        "embedding (first stage), final norm and LM-head inputs (last stage)",
        parts.source,
    )
    formulas[MemoryTerm.LOGITS] = (
        "4 B x b·s·V / t (/ M with MST)",
        "cross-entropy on FP32 logits (HF ForCausalLMLoss upcasts)",
    )
    formulas[MemoryTerm.TRANSIENT] = (
        "2 x 4 B x b·s·V / t: the FP32 gradients w.r.t. the log-probabilities and w.r.t. the "
        "logits coexist",
        "PyTorch nll_loss and log_softmax backward",
    )
    formulas[MemoryTerm.COMMUNICATION] = (
        "buckets in flight x DDP bucket",
        "PyTorch DistributedDataParallel bucket_cap_mb default 25",
    )
    formulas[MemoryTerm.CUDA_CONTEXT] = ("input", "assumption (Overheads docstring)")
    formulas[MemoryTerm.FRAGMENTATION] = (
        "fraction of the rest",
        "assumption (Overheads docstring)",
    )
    return formulas


def _term_figures(
    term_bytes: dict[MemoryTerm, Real],
    parameters: int,
    experts: int,
    finetune: FineTuning,
    layout: Layout,
    parts: ActivationParts,
    per_parameter: dict[MemoryTerm, float],
) -> tuple[Figure, ...]:
    """The figures of :func:`memory_breakdown`'s terms: each term's bytes with its formula and
    source (the ``parameters`` a GPU holds, of which ``experts`` routed ones, the
    fine-tuning's states, QLoRA's dequantized weight)."""
    held = parameters - experts + experts / layout.ep
    psi = f"{held / layout.tp:,.0f} params x stage share"
    if layout.pp == 1:
        psi = f"{held / layout.tp:,.0f} params"
    if experts and layout.ep > 1:
        psi += f" (routed experts / ep = {layout.ep}; their states sharded by ZeRO over dp·cp/ep)"
    formulas = _term_formulas(layout, parts, per_parameter, psi)
    if not finetune.is_default:
        for term in MODEL_STATES:
            formula, source = formulas[term]
            paged = term == MemoryTerm.OPTIMIZER_STATES and finetune.paged
            formulas[term] = (
                f"{formula}; {finetune.describe()}: averaged over the base parameters "
                "(trainable ones carry every state, frozen ones their stored weight)"
                + ("; paged optimizer: states in host memory" if paged else ""),
                f"{source}; mlcost.memory.states.model_state_bytes_per_parameter",
            )
    formulas[MemoryTerm.DEQUANTIZED] = (
        "largest linear weight of a layer x compute-format bytes / t",
        "bitsandbytes MatMul4Bit dequantizes one weight per GEMM (Dettmers et al. 2023)",
    )
    return tuple(
        Figure(term.value, Q_(value, "byte"), formula, "", source, key=term.value)
        for term, value in term_bytes.items()
        for formula, source in (formulas[term],)
    )


def _convnet_parts(model: ConvNetSpec, config: TrainingConfig, layout: Layout) -> ActivationParts:
    table = operators(model, config, layout)
    zero = 0.0
    return ActivationParts(
        layers_split=zero,
        layers_replicated=in_unit(table.saved_bytes, "byte"),
        embedding=zero,
        head_split=zero,
        head_replicated=zero,
        logits=zero,
        formula="sum of bytes saved by each operator",
        source="mlcost.workload convnet table",
    )


def _model_parts(
    spec: ModelSpec,
    config: TrainingConfig,
    layout: Layout,
    profile: Profile,
    batch: Real,
    sequence: Real,
    mini_sequences: int,
    *,
    swept: Real | None,
    implementation: Implementation | None = None,
) -> tuple[ActivationParts, int, tuple[int, ...]]:
    """The activation parts, the layer count and the layers per pipeline stage of a model."""
    if isinstance(spec, TransformerSpec):
        layout.check_model(spec.num_layers, spec.num_attention_heads, experts=spec.routed_experts)
        per_gpu = sequence if isinstance(sequence, int | np.ndarray) else np.asarray(sequence)
        if np.any(per_gpu % layout.cp):
            raise MlcostError(
                f"cp: got {layout.cp}, expected a divisor of the sequence length {sequence}"
            )
        parts = activation_parts(
            spec, config, layout, profile, batch, per_gpu // layout.cp, mini_sequences,
            implementation=implementation,
        )  # fmt: skip
        return parts, spec.num_layers, layout.stage_layer_counts(spec.num_layers)
    if isinstance(spec, ConvNetSpec):
        if layout.model_parallel > 1 or swept is not None:
            raise MlcostError(
                f"layout: {spec.name} is a conv net; its memory is modelled for data "
                "parallelism and one micro-batch size at a time"
            )
        return _convnet_parts(spec, config, layout), 1, (1,)
    raise MlcostError(f"model: {spec.name!r} is a {spec.KIND}, expected a model")


def held_gradient_bytes(implementation: SoftwareLike) -> float | None:
    """The bytes per parameter ``implementation`` (default :data:`mlcost.implementation.
    DEFAULT_IMPLEMENTATION`, as every step-time model) holds gradients in under mixed
    precision (None where its profile does not say: the precision policy's)."""
    return implementation_of(implementation).spec.held_gradient_bytes


def memory_breakdown(
    model: ModelSpec | str,
    config: TrainingConfig | None = None,
    gpu: Accelerator | str | None = None,
    layout: Layout | None = None,
    *,
    profile: Profile = "pytorch",
    overheads: Overheads | None = None,
    micro_batch_size: Real | None = None,
    sequence_length: Real | None = None,
    mini_sequences: int = 1,
    implementation: SoftwareLike = None,
) -> MemoryBreakdown:
    """Per-GPU memory of one training step of ``model`` split by ``layout`` (see the module
    docstring for every term), against ``gpu``'s usable memory.

    ``model`` and ``gpu`` are specs or catalog names (a GPU may be a calibrated profile).
    ``micro_batch_size`` and ``sequence_length`` may be numpy arrays (one breakdown per value);
    ``mini_sequences`` (Mini-Sequence Transformer, Luo et al. 2024) splits the MLP and LM-head
    intermediates into M chunks, dividing their activation memory by about M.
    ``implementation``: the software whose buffers hold the gradients
    (:attr:`mlcost.specs.Implementation.held_gradient_bytes`; default: the default
    implementation's, as :func:`mlcost.parallel.multi_gpu_step_time` runs it) and, where it is
    named, whose MoE layer keeps what :attr:`mlcost.specs.Implementation.moe_saving` says
    (not named: the Hugging Face eager modules' saved tensors, the ``pytorch`` profile).
    """
    spec = as_model(model)
    accelerator = None if gpu is None else as_accelerator(gpu)
    config = TrainingConfig() if config is None else argument(config, TrainingConfig, "config")
    layout = Layout() if layout is None else argument(layout, Layout, "layout")
    overheads = overheads or overheads_of(accelerator)
    batch = layout.micro_batch_size if micro_batch_size is None else micro_batch_size
    sequence = config.sequence_length if sequence_length is None else sequence_length
    software = implementation_of(implementation).spec
    parts, layers, stages = _model_parts(
        spec, config, layout, profile, batch, sequence, mini_sequences, swept=micro_batch_size,
        implementation=None if implementation is None else software,
    )  # fmt: skip
    per_parameter = model_state_bytes_per_parameter(
        config.precision, config.optimizer, model=spec, finetune=config.finetune,
        gradient_bytes=software.held_gradient_bytes,
    )  # fmt: skip
    experts = spec.expert_parameter_count if isinstance(spec, TransformerSpec) else 0
    memory = layout_memory(
        parts,
        spec,
        config,
        layout,
        layers,
        stages,
        per_parameter=per_parameter,
        weight_replicas=layout.dp * layout.cp,
        overheads=overheads,
    )
    every_term = profile == "pytorch"
    term_bytes = {
        term: value
        for term, value in memory.terms.items()
        if term != MemoryTerm.HEAD_ACTIVATIONS or every_term
    }
    return MemoryBreakdown(
        terms=_term_figures(
            term_bytes,
            spec.parameter_count,
            experts,
            config.finetune,
            layout,
            parts,
            per_parameter,
        ),
        capacity=None if accelerator is None else accelerator.memory_available,
        gpu=None if accelerator is None else accelerator.name,
        description=f"{spec.name}, b={sweep_text(batch)}, s={sweep_text(sequence)}, "
        f"{config.precision}, "
        f"{config.optimizer}, {layout.describe()}, {profile} profile",
        details={"stage": memory.stage, "in_flight": memory.in_flight, "layout": layout},
        total_bytes=memory.total if every_term else None,
    )
