"""Selective recomputation of chosen operators, the layer chain of a transformer from its
operator table, and the cheapest recomputation that makes a training step fit a GPU (plugged
into the memory and step-time models)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pint

from mlcost.checkpointing.chapter import chapter_optimal_checkpoints
from mlcost.checkpointing.optimize import optimal_placement
from mlcost.checkpointing.placement import (
    LayerChain,
    Placement,
    PlacementCost,
    no_recompute_placement,
    placement_cost,
    selective_placement,
    sqrt_placement,
    uniform_placement,
)
from mlcost.errors import MlcostError
from mlcost.implementation import SoftwareLike
from mlcost.layout import Layout
from mlcost.memory import (
    DEFAULT_OVERHEADS,
    MemoryTerm,
    Overheads,
    gib_text,
    in_flight_micro_batches,
    memory_breakdown,
)
from mlcost.records import Record, replace
from mlcost.results import Figure, Result, json_value
from mlcost.roofline import Ceilings
from mlcost.specs import Accelerator, Spec, TransformerSpec
from mlcost.specs.catalog import as_accelerator, as_model
from mlcost.timing import operator_times, step_time
from mlcost.units import Q_, in_unit, magnitude_in
from mlcost.workload import (
    Operator,
    OperatorKind,
    OperatorRole,
    OperatorTable,
    TrainingConfig,
    transformer_operators,
)

#: Operators recomputed under selective checkpointing, by preset: operator roles and kinds.
#: ``attention-core``: the attention scores, softmax, attention dropout and scores x V
#: (Korthikanti et al. 2022, section 4.2; what ``Layout(recompute="selective")`` recomputes).
#: ``attention-and-elementwise``: also the norms, activation functions, residual dropouts and
#: adds, keeping only the GEMM inputs (the chapter's "checkpoint before attention, skip FFN and
#: norms" heuristic).
SELECTIVE_PRESETS: dict[str, tuple[str, ...]] = {
    "attention-core": (OperatorRole.ATTENTION_CORE.value,),
    "attention-and-elementwise": (
        OperatorRole.ATTENTION_CORE.value,
        "norm",
        "activation",
        "elementwise",
        "dropout",
    ),
}


# ----- selective checkpointing of chosen operators -------------------------------------------
def _selected(op: Operator, selection: Sequence[str]) -> bool:
    """An operator is selected by its role, its kind, or (a user's list) its name with or
    without a pattern suffix."""
    return any(
        item in (op.role, op.kind) or op.name == item or op.name.startswith(item + " (")
        for item in selection
    )


def selective_selection(selective: str | Iterable[str]) -> tuple[str, ...]:
    """A preset name from :data:`SELECTIVE_PRESETS` or operator roles/kinds/names as given."""
    if isinstance(selective, str):
        if selective not in SELECTIVE_PRESETS:
            raise MlcostError(
                f"selective: got {selective!r}, expected one of {sorted(SELECTIVE_PRESETS)} or "
                "a list of operator kinds/names"
            )
        return SELECTIVE_PRESETS[selective]
    return tuple(selective)


# ----- from the operator table ---------------------------------------------------------------
def _forward_seconds(table: OperatorTable, ceilings: Ceilings) -> list[float]:
    """Forward seconds per execution of every operator: the step-time model (roofline, launch
    overhead) on a copy of the table with the backward pass and recomputation removed."""
    forward_only = OperatorTable(
        operators=tuple(
            replace(
                op,
                backward_input_flops=0 * op.backward_input_flops,
                backward_weight_flops=0 * op.backward_weight_flops,
                backward_bytes=0 * op.backward_bytes,
                recompute_fraction=0.0,
            )
            for op in table.operators
        ),
        description=table.description,
        tokens_per_step=table.tokens_per_step,
        metadata=table.metadata,
    )
    rows = operator_times(forward_only, ceilings).rows
    return [
        float(row.total / op.count) if op.count else 0.0
        for row, op in zip(rows, table.operators, strict=True)
    ]


def _stage_layers(layout: Layout, layers: int) -> tuple[np.ndarray, float]:
    """The layer indices of the pipeline stage holding the most activations (its layers times
    its micro-batches in flight, as :mod:`mlcost.memory` counts them) and that count in flight."""
    chunks = np.asarray(layout.chunk_layers(layers))
    starts = np.concatenate([[0], np.cumsum(chunks)[:-1]])
    counts = np.asarray(layout.stage_layer_counts(layers), dtype=np.float64)
    held = in_flight_micro_batches(layout.pp, layout.micro_batches, layout.virtual_stages)
    stage = int(np.argmax(counts * held))
    chunk_ids = range(stage, len(chunks), layout.pp)
    indices = np.concatenate([np.arange(starts[c], starts[c] + chunks[c]) for c in chunk_ids])
    return indices, float(held[stage])


def _per_layer_costs(
    model: TransformerSpec,
    table: OperatorTable,
    seconds: list[float] | None,
    selection: Sequence[str],
    tp_divisors: tuple[float, float],
) -> dict[str, np.ndarray]:
    """Saved bytes, forward FLOPs and seconds of every layer, kept and selective, per GPU."""
    layers = model.num_layers
    micro = table.metadata.get("micro_batches", 1)
    names = ("saved", "flops", "time", "sel_saved", "sel_flops", "sel_time")
    per = {name: np.zeros(layers) for name in names}
    every = model.global_attention_every or 0
    is_global = np.array([(every > 0) and ((i + 1) % every == 0) for i in range(layers)])
    split_t, replicated_t = tp_divisors
    for index, op in enumerate(table.operators):
        if op.block != "layer" or op.kind == OperatorKind.CHECKPOINT:
            continue
        if op.pattern == "global":
            mask = is_global.astype(float)
        elif op.pattern == "local":
            mask = (~is_global).astype(float)
        else:
            mask = np.full(layers, float(op.count) / micro / layers)  # every layer
        divisor = split_t if op.tensor_parallel and not op.saved_replicated else replicated_t
        work = split_t if op.tensor_parallel else replicated_t
        saved = float(op.saved_bytes) / divisor
        flops = float(op.forward_flops) / work
        time = seconds[index] / work if seconds is not None else 0.0
        chosen = _selected(op, selection)
        per["saved"] += mask * saved
        per["flops"] += mask * flops
        per["time"] += mask * time
        # A recomputed region keeps its inputs (the attention core's q, k and v).
        kept = float(op.region_input_bytes) / divisor
        per["sel_saved"] += mask * (kept if chosen else saved)
        per["sel_flops"] += mask * (flops if chosen else 0.0)
        per["sel_time"] += mask * (time if chosen else 0.0)
    return per


def transformer_layer_chain(
    model: Spec | str,
    config: TrainingConfig,
    gpu: Accelerator | Ceilings | str | None = None,
    layout: Layout | None = None,
    *,
    micro_batch_size: int | None = None,
    sequence_length: int | None = None,
    selective: str | Iterable[str] = "attention-core",
) -> LayerChain:
    """The layer chain of ``model`` under ``config`` and ``layout`` from the operator table.

    Per layer and micro-batch: ``a`` = bytes the layer's operators save for backward (recompute
    ``none``), ``c`` = the layer input ``b·s·h`` elements in the activation format, ``f`` = forward
    FLOPs, ``t`` = forward seconds on ``gpu`` (:mod:`mlcost.timing`'s roofline); the selective
    state recomputes the operators named by ``selective`` (their saved bytes dropped, their forward
    replayed; assumes the inputs they need are kept by their neighbours, as Korthikanti et al.
    2022 section 4.2 argue for the attention core). Tensor parallelism divides what Megatron
    splits by ``t`` and the rest only under sequence parallelism (as :mod:`mlcost.memory` does);
    context parallelism holds ``s/c`` tokens; pipeline parallelism keeps the layers of the stage
    holding the most activations, with its micro-batches in flight. Layers of Gemma-2-style
    models differ (local and global attention) and are placed with the global layer every
    ``global_attention_every``.
    """
    spec = as_model(model)
    if not isinstance(spec, TransformerSpec):
        raise MlcostError(f"model: {spec.name!r} is a {spec.KIND}, expected a transformer")
    layout = (layout or Layout()).model_copy(update={"recompute": "none", "recompute_every": None})
    sequence = config.sequence_length if sequence_length is None else sequence_length
    layout.check_model(
        spec.num_layers, spec.num_attention_heads, sequence, experts=spec.routed_experts
    )
    table = transformer_operators(
        spec,
        config,
        layout,
        micro_batch_size=micro_batch_size,
        sequence_length=sequence // layout.cp,
    )
    seconds: list[float] | None = None
    if gpu is not None:
        ceilings = (
            gpu
            if isinstance(gpu, Ceilings)
            else Ceilings.from_accelerator(as_accelerator(gpu), config.policy.compute_format)
        )
        seconds = _forward_seconds(table, ceilings)
    t = float(layout.tp)
    t_replicated = t if layout.sequence_parallel else 1.0
    per = _per_layer_costs(spec, table, seconds, selective_selection(selective), (t, t_replicated))
    micro = layout.micro_batches
    tokens = float(table.tokens_per_step) / micro
    stage, in_flight = _stage_layers(layout, spec.num_layers)
    boundary = np.full(spec.num_layers, tokens * spec.hidden_size * config.policy.activation)
    return LayerChain(
        saved=per["saved"][stage],
        boundary=boundary[stage] / t_replicated,
        forward_flops=per["flops"][stage],
        forward_time=None if seconds is None else per["time"][stage],
        selective_saved=per["sel_saved"][stage],
        selective_flops=per["sel_flops"][stage],
        selective_time=None if seconds is None else per["sel_time"][stage],
        in_flight=in_flight,
        micro_batches=micro,
        description=f"{table.description}; {layout.describe()}",
    )


# ----- plugged into the memory and step-time models ------------------------------------------
class RecomputePlan(Record, Result, frozen=True):
    """The cheapest recomputation that makes a step fit: placement, memory, recompute cost.

    ``memory`` is the per-GPU total of :func:`mlcost.memory.memory_breakdown` with the layer
    activations replaced by the placement's peak (fragmentation applied to the sum);
    ``recompute_flops`` and ``recompute_time`` are per optimizer step (all micro-batches);
    ``step_time`` is :func:`mlcost.timing.step_time` without recomputation plus
    ``recompute_time`` (single GPU only: ``None`` under tensor or pipeline parallelism).
    """

    placement: Placement
    chain_cost: PlacementCost
    memory: pint.Quantity
    capacity: pint.Quantity
    activation_budget: pint.Quantity
    other_memory: pint.Quantity
    fragmentation: float
    recompute_flops: pint.Quantity
    recompute_time: pint.Quantity | None
    model_flops: pint.Quantity
    step_time: pint.Quantity | None
    alternatives: dict[str, PlacementCost]
    description: str = ""

    @property
    def fits(self) -> bool:
        return bool(in_unit(self.memory, "byte") <= in_unit(self.capacity, "byte"))

    @property
    def recompute_overhead(self) -> float:
        """Recomputed FLOPs over model FLOPs (forward + backward) of the step."""
        return float((self.recompute_flops / self.model_flops).to("").magnitude)

    VERDICT = ("memory per GPU", "activation memory", "recomputed FLOPs per step")

    def title(self) -> str:
        return self.description

    def to_json(self) -> dict[str, Any]:
        """The placement, memory and recomputation as a flat JSON-ready mapping."""
        return json_value(
            {
                "placement": str(self.placement),
                "kept": self.placement.count("keep"),
                "selective": self.placement.count("selective"),
                "recomputed": self.placement.recomputed_layers,
                "segments": len(self.placement.segments()),
                "activation_memory": self.chain_cost.memory.to("GiB"),
                "activation_budget": self.activation_budget.to("GiB"),
                "memory": self.memory.to("GiB"),
                "capacity": self.capacity.to("GiB"),
                "fits": self.fits,
                "recompute_flops": self.recompute_flops.to("flop"),
                "recompute_overhead": self.recompute_overhead,
                "recompute_time": None
                if self.recompute_time is None
                else self.recompute_time.to("ms"),
                "step_time": None if self.step_time is None else self.step_time.to("ms"),
                "alternatives": {
                    name: {
                        "activation_memory": alt.memory.to("GiB"),
                        "recompute_flops": alt.recompute_flops.to("flop"),
                    }
                    for name, alt in self.alternatives.items()
                },
            }
        )

    def figures(self) -> list[Figure]:
        p, cost = self.placement, self.chain_cost
        figures = [
            Figure(
                "placement",
                str(p),
                "K keep, S selective, C checkpoint, R recompute",
                f"{p.count('keep')} kept, {p.count('selective')} selective, "
                f"{p.recomputed_layers} recomputed in {len(p.segments())} segments",
                "exact optimum of the chain (Chen et al. 2016 section 4.2)",
            ),
            Figure(
                "activation memory",
                cost.memory.to("GiB"),
                "stored + largest transient",
                f"{gib_text(cost.stored)} + {gib_text(cost.transient)}; budget "
                f"{gib_text(self.activation_budget)} = capacity {gib_text(self.capacity)} / "
                f"(1 + {self.fragmentation:g}) - other terms {gib_text(self.other_memory)}",
                "Chen et al. 2016 section 4.1: sum of checkpoints + max segment",
            ),
            Figure(
                "memory per GPU",
                self.memory.to("GiB"),
                "(other terms + activations) x (1 + f)",
                f"({gib_text(self.other_memory)} + {gib_text(cost.memory)}) x "
                f"(1 + {self.fragmentation:g}) -> " + ("fits" if self.fits else "does NOT fit"),
                "mlcost.memory.memory_breakdown",
            ),
            Figure(
                "recomputed FLOPs per step",
                self.recompute_flops.to("flop"),
                "forward FLOPs of the recomputed layers and selective parts x micro-batches",
                f"{self.recompute_overhead:.1%} of model FLOPs",
                "the chain's costs",
            ),
        ]
        if self.recompute_time is not None:
            figures.append(
                Figure("recompute time per step", self.recompute_time.to("ms"), "", "", "")
            )
        if self.step_time is not None:
            figures.append(
                Figure(
                    "step time with recomputation",
                    self.step_time.to("ms"),
                    "step time without recomputation + recompute time",
                    "",
                    "mlcost.timing.step_time",
                )
            )
        for name, alt in self.alternatives.items():
            figures.append(
                Figure(
                    f"alternative: {name}",
                    alt.memory.to("GiB"),
                    "activation peak",
                    f"{alt.recompute_flops.to('flop').magnitude:.4g} FLOP recomputed per "
                    "micro-batch",
                    "",
                )
            )
        return figures


def cheapest_recompute(
    model: Spec | str,
    config: TrainingConfig,
    gpu: Accelerator | str,
    layout: Layout | None = None,
    budget: pint.Quantity | None = None,
    *,
    overheads: Overheads | None = None,
    memory_limit: pint.Quantity | None = None,
    selective: str | Iterable[str] = "attention-core",
    implementation: SoftwareLike = None,
) -> RecomputePlan:
    """The placement that fits ``gpu`` at the least recomputation time.

    ``budget`` is the memory the layer activations may use; by default
    ``memory_limit / (1 + fragmentation) - (every other term of the memory breakdown)``, with
    ``memory_limit`` the GPU's usable memory unless given. Everything else (model states, head
    and logits, overheads) comes from :func:`mlcost.memory.memory_breakdown` (pytorch profile)
    with ``layout.recompute`` ignored; the placement replaces it; ``implementation``: the
    software whose buffers hold the gradients (default: the default implementation's).
    """
    spec = as_model(model)
    accelerator = as_accelerator(gpu)
    if not isinstance(spec, TransformerSpec):
        raise MlcostError(f"model: {spec.name!r} is a {spec.KIND}, expected a transformer")
    overheads = overheads or DEFAULT_OVERHEADS
    plain_layout = (layout or Layout()).model_copy(
        update={"recompute": "none", "recompute_every": None}
    )
    breakdown = memory_breakdown(
        spec, config, accelerator, plain_layout, profile="pytorch", overheads=overheads,
        implementation=implementation,
    )  # fmt: skip
    other = Q_(0.0, "byte")
    for term in breakdown.terms:
        if term.key not in (MemoryTerm.ACTIVATIONS, MemoryTerm.FRAGMENTATION):
            other = other + term.value
    capacity = memory_limit if memory_limit is not None else breakdown.capacity
    if capacity is None:
        raise MlcostError(f"gpu: {accelerator.name} has no memory capacity")
    capacity = Q_(magnitude_in(capacity, "byte", "memory_limit"), "byte")
    fragmentation = float(overheads.fragmentation)
    if budget is None:
        budget = (capacity / (1 + fragmentation) - other).to("GiB")
    budget = Q_(magnitude_in(budget, "byte", "budget"), "byte")
    chain = transformer_layer_chain(spec, config, accelerator, plain_layout, selective=selective)
    best = optimal_placement(chain, budget)
    big_l = chain.layers
    alternatives = {
        "no recomputation": placement_cost(chain, no_recompute_placement(big_l)),
        f"sqrt(L) uniform ({int(chapter_optimal_checkpoints(big_l))} segments)": placement_cost(
            chain, sqrt_placement(big_l)
        ),
        "every layer (full)": placement_cost(chain, uniform_placement(big_l, big_l)),
    }
    if chain.has_selective:
        alternatives["selective, every layer"] = placement_cost(chain, selective_placement(big_l))
    micro = chain.micro_batches
    total = ((other + best.memory) * (1 + fragmentation)).to("GiB")
    recompute_time = None if best.recompute_time is None else best.recompute_time * micro
    single = plain_layout.model_parallel == 1
    step = None
    if single and recompute_time is not None:
        step = (step_time(spec, config, accelerator, plain_layout).total + recompute_time).to("ms")
    model_flops = transformer_operators(spec, config, plain_layout).model_flops / plain_layout.tp
    return RecomputePlan(
        placement=best.placement,
        chain_cost=best,
        memory=total,
        capacity=capacity.to("GiB"),
        activation_budget=budget.to("GiB"),
        other_memory=other.to("GiB"),
        fragmentation=fragmentation,
        recompute_flops=best.recompute_flops * micro,
        recompute_time=recompute_time,
        model_flops=model_flops,
        step_time=step,
        alternatives=alternatives,
        description=f"cheapest recomputation: {spec.name} on {accelerator.name}, "
        f"{chain.description}",
    )
