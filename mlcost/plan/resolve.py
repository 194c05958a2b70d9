"""From a plan's inputs to one resolved, frozen run: the model and configuration, the system
(sized for the GPUs), the layout (given, or the fastest that fits), the token budget, the grid,
prices, PUE, storage and the checkpoint target, each with where it came from. The site's
figures (system, grid, prices, PUE, power accounting) are resolved by :mod:`mlcost.site`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pint

from mlcost.assumptions import Assumptions
from mlcost.checks import counts
from mlcost.errors import MlcostError, UnknownNameError
from mlcost.implementation import Software, default_implementation
from mlcost.implementation import implementation as implementation_of
from mlcost.layout import Layout
from mlcost.parallel.search import SearchResult, search, unstated_knobs
from mlcost.plan.inputs import PlanInputs
from mlcost.records import Record
from mlcost.site import (
    region_electricity,
    region_pue,
    report_mode,
    resolve_grid,
    resolve_power,
    resolve_price,
    resolve_purchase,
    resolve_system,
)
from mlcost.specs import Catalog, Grid, ModelSpec, Storage, TransformerSpec, default_catalog
from mlcost.specs.catalog import as_model
from mlcost.systems import System
from mlcost.uncertainty import step_time_band
from mlcost.units import Q_, in_unit, magnitude_in, positive_magnitude
from mlcost.workload import TrainingConfig, config_for_model

FLOP_COUNTS = ("operators", "6ND")


class CheckpointTarget(Record, frozen=True):
    """Where the training state is written, for the failure model: an aggregate bandwidth
    shared by the job, or one per node (the node's drives), in bytes/s."""

    shared: float | None
    per_node: float | None
    source: str

    def bandwidth(self, gpus: Any, gpus_per_node: int) -> Any:
        """Aggregate write bandwidth of a job of ``gpus`` GPUs (bytes/s; arrays welcome)."""
        if self.shared is not None:
            return np.full(np.shape(gpus), self.shared)
        return float(self.per_node or 0.0) * np.ceil(np.asarray(gpus, np.float64) / gpus_per_node)


class Run(Record, frozen=True):
    """Everything a plan needs, resolved once (plain numbers in the units noted)."""

    model: ModelSpec
    config: TrainingConfig
    system: System
    gpus: int
    layout: Layout
    layout_source: str
    search: SearchResult | None
    grid: Grid
    tokens: float
    tokens_source: str
    price: float  # USD per GPU-hour, NaN when unknown
    price_source: str
    purchase: float  # USD per GPU, NaN when unknown
    purchase_source: str
    electricity_price: float  # USD/kWh
    electricity_source: str
    pue: float
    pue_source: str
    accounting: str  # the energy convention used (mlcost.energy.ACCOUNTING)
    power_per_gpu: float | None  # W per GPU, IT power, for the fixed conventions; None: utilization
    power_source: str
    idle_power_per_gpu: float  # W per GPU of idle infrastructure (0: not counted)
    idle_source: str
    gpu_hours: float | None  # report mode: published GPU-hours replace the predicted wall clock
    data_storage: Storage | None
    checkpoint: CheckpointTarget | None
    mtbf_per_gpu: pint.Quantity | None
    async_checkpoint: bool
    sustained: float | None  # FLOP/s per GPU (napkin mode)
    flop_count: str
    pretokenized: bool
    assumptions: Assumptions
    software: Software

    @property
    def parameters(self) -> float:
        return float(self.model.parameter_count)

    @property
    def active_parameters(self) -> float:
        """Parameters a token uses (a mixture-of-experts model's active ones; all otherwise):
        the ``N`` of the 6·N·D count."""
        active = getattr(self.model, "active_parameter_count", None)
        return float(self.model.parameter_count if active is None else active)

    @property
    def peak(self) -> float:
        """Dense peak FLOP/s of the plan's GPU in the configuration's compute format (its
        ceilings', converted once)."""
        return self.system.ceilings(self.config.policy.compute_format).peak_flops


def _tokens(plan: PlanInputs, model: ModelSpec, tokens_per_step: int) -> tuple[float, str]:
    if plan.tokens is not None and plan.steps is not None:
        raise MlcostError("Plan: give tokens= or steps=, not both")
    if plan.steps is not None:
        steps = magnitude_in(plan.steps, "", "steps", bare=True)
        if not (steps >= 1 and math.isfinite(steps)):
            raise MlcostError(f"steps: got {plan.steps!r}, expected a whole number >= 1")
        return float(steps) * tokens_per_step, f"{int(steps)} steps x {tokens_per_step:,} tokens"
    if plan.tokens is None and plan.config is not None and plan.config.finetune.adapters:
        raise MlcostError(
            f"tokens: a {plan.config.finetune.method} fine-tuning run has no compute-optimal "
            "token count; give its tokens, e.g. tokens=1e8 (--tokens 100M)"
        )
    if plan.tokens is None:
        return (
            20.0 * float(model.parameter_count),
            "Hoffmann et al. 2022 (Chinchilla), 20 tokens per parameter",
        )
    tokens = float(magnitude_in(plan.tokens, "token", "tokens", bare=True))
    if not (tokens > 0 and math.isfinite(tokens)):
        raise MlcostError(f"tokens: got {plan.tokens!r}, expected a finite count > 0, e.g. 2e12")
    return tokens, "given"


def _checkpoint(plan: PlanInputs, catalog: Catalog, resolved: System) -> CheckpointTarget | None:
    """Where the training state is written (None: no failure model)."""
    if not plan.failures:
        return None
    target = plan.checkpoint_storage
    if isinstance(target, (str, Storage)):
        spec = target if isinstance(target, Storage) else catalog.storage(target)
        return CheckpointTarget(
            shared=float(in_unit(spec.sequential_write, "byte/s")),
            per_node=None,
            source=f"{spec.name} sequential write "
            f"({spec.source_of('sequential_write') or 'spec'}), shared by all GPUs",
        )
    if target is not None:
        value = float(magnitude_in(target, "byte/s", "checkpoint_storage"))
        if not value > 0:
            raise MlcostError(f"checkpoint_storage: got {target!r}, expected a bandwidth > 0")
        return CheckpointTarget(shared=value, per_node=None, source="given")
    per_node = resolved.node_write_bandwidth
    if per_node is None or resolved.drive is None:
        return None
    return CheckpointTarget(
        shared=None,
        per_node=float(in_unit(per_node, "byte/s")),
        source=f"{resolved.drives_per_node} x {resolved.drive.name} per node, sequential write "
        f"({resolved.drive.source_of('sequential_write') or 'spec'}), every node writing its "
        "shards",
    )


def _gpus(plan: PlanInputs, base: System) -> int:
    if plan.gpus is not None:
        count = plan.gpus
    elif plan.layout is not None:
        count = plan.layout.gpus
    else:
        count = base.gpus if plan.system is not None else 1
    if isinstance(count, bool) or int(count) != count or count < 1:
        raise MlcostError(f"gpus: got {plan.gpus!r}, expected a whole number of GPUs >= 1")
    return int(count)


def _given_layout(layout: Layout, gpus: int) -> Layout:
    """The plan's layout on ``gpus`` GPUs: as given when it uses them all; with ``dp = 1`` the
    data-parallel degree fills the GPUs."""
    if layout.gpus == gpus:
        return layout
    if layout.dp == 1 and gpus % layout.model_parallel == 0:
        return layout.model_copy(update={"dp": gpus // layout.model_parallel})
    raise MlcostError(
        f"layout: {layout.describe()} uses {layout.gpus} GPUs (dp x tp x pp x cp), the plan has "
        f"{gpus}; give dp = {gpus} / (tp x pp x cp) or leave dp at 1 to fill the GPUs"
    )


def _batched(layout: Layout, batch: int, plan: PlanInputs) -> tuple[Layout, str]:
    """A given layout without a global batch or accumulation steps ``batch`` sequences; with
    one, as given. A default batch is rounded up to a whole number of micro-batches per
    replica (and the layout's source says so); a batch the plan was given must divide, and
    must agree with the layout's own: it is never changed silently (issue 65)."""
    asked = plan.global_batch_size
    if layout.global_batch_size is not None or layout.gradient_accumulation is not None:
        if asked is not None and asked != layout.global_batch:
            raise MlcostError(
                f"global_batch_size: got {asked}, but the layout runs {layout.global_batch} "
                f"sequences per step ({layout.describe()}); give one of the two"
            )
        return layout, "given"
    per_step = layout.dp * layout.micro_batch_size
    if asked is not None and asked % per_step:
        low = max(per_step, asked // per_step * per_step)
        raise MlcostError(
            f"global_batch_size: got {asked}, expected a multiple of dp x micro_batch_size = "
            f"{layout.dp} x {layout.micro_batch_size} = {per_step} (whole micro-batches per "
            f"replica); give {low} or {low + per_step}, or another micro-batch size"
        )
    total = max(1, math.ceil(batch / per_step)) * per_step
    return (
        layout.model_copy(update={"global_batch_size": total}),
        f"given; global batch {total} sequences (the plan's, or Assumptions.global_batch_tokens)",
    )


def default_global_batch(
    model: ModelSpec, config: TrainingConfig, gpus: int, assumptions: Assumptions
) -> int:
    """Sequences (images) per optimizer step when the plan gives none: ``global_batch_tokens``
    of :class:`Assumptions` over the sequence length (``global_batch_images`` for a conv net),
    rounded up to a whole number per GPU."""
    counts(gpus, "gpus")
    if isinstance(model, TransformerSpec):
        wanted = assumptions.global_batch_tokens / config.sequence_length
    else:
        wanted = assumptions.global_batch_images
    return max(1, math.ceil(wanted / gpus)) * gpus


def _data_parallel(gpus: int, batch: int) -> Layout:
    """One replica per GPU (ZeRO-1 on more than one), ``batch`` sequences per step."""
    if batch % gpus:
        raise MlcostError(
            f"global_batch_size: got {batch}, which does not split over {gpus} data-parallel "
            f"GPUs; give a multiple of {gpus} (e.g. {math.ceil(batch / gpus) * gpus})"
        )
    return Layout(dp=gpus, zero_stage=1 if gpus > 1 else 0, global_batch_size=batch)


def _knobs_text(held: dict[str, Any]) -> str:
    """``held`` (:func:`mlcost.parallel.search.unstated_knobs`) in words."""
    words = []
    if "micro_batch" in held:
        words.append(f"micro-batch {held['micro_batch']}")
    if "v" in held:
        words.append("no interleaving" if held["v"] == 1 else f"{held['v']} virtual stages")
    if "tp_overlap" in held:
        words.append("TP overlap" if held["tp_overlap"] else "no TP overlap")
    return ", ".join(words)


def choose_layout(
    model: ModelSpec,
    config: TrainingConfig,
    resolved: System,
    gpus: int,
    global_batch_size: int,
    software: Software,
    tie: float | None = 0.0,
    search_knobs: bool = False,
) -> tuple[Layout, str, SearchResult | None]:
    """The fastest layout that fits (:func:`mlcost.parallel.search`) for ``global_batch_size``
    sequences per step, or of those within ``tie`` (relative) of its step time the one with the
    fewest model-parallel dimensions (:meth:`SearchResult.simplest_of_ties`); pure data
    parallelism when none fits (the plan then reports that it does not fit). Unless
    ``search_knobs``, the knobs runs rarely state stay at the implementation's defaults
    (:func:`mlcost.parallel.search.unstated_knobs`)."""
    batch = global_batch_size
    if not isinstance(model, TransformerSpec):
        return (
            _data_parallel(gpus, batch),
            "one data-parallel replica per GPU (no search for this model)",
            None,
        )
    result = search(
        model, resolved, batch, config=config, gpus=gpus, keep_unfit=False,
        implementation=software,
    )  # fmt: skip
    if result.empty:
        return (
            _data_parallel(gpus, batch),
            f"none of the {result.candidates} layouts searched fits; pure data parallelism shown",
            result,
        )
    if tie is None:  # the band's resolution: closer layouts cannot be told apart
        tie = step_time_band().resolution
    held = {} if search_knobs else unstated_knobs(software)
    rank = result.simplest_of_ties(tie, held)
    kept = (
        ", with what runs rarely state held at "
        f"{software.name}'s defaults ({_knobs_text(held)}; Assumptions.search_layout_knobs=True "
        "searches them)"
        if held
        else ""
    )
    simpler = (
        f"; of the layouts within {tie:.1%} of its step time (the step-time band's resolution: "
        "the published runs cannot tell them apart), the one practitioners run: the fewest "
        "model-parallel dimensions, then Megatron's defaults (micro-batch 1, no recomputation, "
        "no TP overlap)"
        if rank > 0
        else ""
    )
    return (
        result.layout(rank),
        f"the fastest of {result.fitting} layouts that fit ({result.candidates} searched) for a "
        f"global batch of {batch} sequences (mlcost.parallel.search){kept}{simpler}",
        result,
    )


def resolve(plan: PlanInputs) -> Run:
    """Resolve a plan's inputs (see :class:`mlcost.plan.Plan`)."""
    catalog = plan.catalog if plan.catalog is not None else default_catalog()
    assumptions = plan.assumptions
    model = as_model(plan.model, catalog)
    config = config_for_model(plan.config or TrainingConfig(), model)
    if plan.flop_count not in FLOP_COUNTS:
        raise UnknownNameError("flop_count", plan.flop_count, FLOP_COUNTS)
    base = resolve_system(
        system=plan.system, gpu=plan.gpu, catalog=catalog, assumptions=assumptions
    )
    gpus = _gpus(plan, base)
    resolved = base.for_gpus(gpus)
    chosen = plan.implementation
    if chosen is None:  # a CPU profile runs the eager host loop, a GPU Megatron-Core
        chosen = default_implementation(resolved.accelerator)
    software = implementation_of(chosen, catalog)
    if plan.global_batch_size is not None:  # 0 is refused, never read as "the default"
        counts(plan.global_batch_size, "global_batch_size")
    batch = plan.global_batch_size or default_global_batch(model, config, gpus, assumptions)
    if plan.layout is not None:
        layout, layout_source = _batched(_given_layout(plan.layout, gpus), batch, plan)
        if isinstance(model, TransformerSpec):
            layout.check_model(
                model.num_layers,
                model.num_attention_heads,
                config.sequence_length,
                experts=model.routed_experts,
            )
        found = None
    else:
        layout, layout_source, found = choose_layout(
            model, config, resolved, gpus, batch, software, assumptions.layout_tie_tolerance,
            assumptions.search_layout_knobs,
        )  # fmt: skip
    grid = resolve_grid(plan.region, catalog)
    sequence = config.sequence_length if isinstance(model, TransformerSpec) else 1
    tokens, tokens_source = _tokens(plan, model, layout.tokens_per_step(sequence))
    accelerator = resolved.accelerator
    based_on = accelerator.measured.based_on if accelerator.measured is not None else None
    price, price_source = resolve_price(
        plan.price, catalog=catalog, gpu_names=(accelerator.name, *([based_on] if based_on else []))
    )
    return Run(
        model=model,
        config=config,
        system=resolved,
        gpus=gpus,
        layout=layout,
        layout_source=layout_source,
        search=found,
        grid=grid,
        tokens=tokens,
        tokens_source=tokens_source,
        price=price,
        price_source=price_source,
        **resolve_purchase(plan.purchase_price, accelerator=accelerator),
        **region_electricity(plan.electricity_price, grid=grid, assumptions=assumptions),
        **region_pue(plan.pue, plan.facility, grid=grid, assumptions=assumptions),
        **resolve_power(
            accounting=plan.accounting, power_per_gpu=plan.power_per_gpu, resolved=resolved
        ),
        **report_mode(idle_power=plan.idle_power, gpu_hours=plan.gpu_hours),
        data_storage=_data_storage(plan, catalog, resolved),
        checkpoint=_checkpoint(plan, catalog, resolved),
        mtbf_per_gpu=_mtbf(plan),
        async_checkpoint=plan.async_checkpoint,
        sustained=_sustained(plan, resolved, config),
        flop_count=plan.flop_count,
        pretokenized=plan.pretokenized,
        assumptions=assumptions,
        software=software,
    )


def _mtbf(plan: PlanInputs) -> pint.Quantity | None:
    """The given MTBF per GPU (a quantity, or text such as ``"50000 hour"``), one finite time
    > 0 (a GPU that fails at once has no goodput)."""
    if plan.mtbf_per_gpu is None:
        return None
    hours = positive_magnitude(plan.mtbf_per_gpu, "hour", "mtbf_per_gpu")
    given = plan.mtbf_per_gpu
    return given if isinstance(given, pint.Quantity) else Q_(hours, "hour")


def _data_storage(plan: PlanInputs, catalog: Catalog, resolved: System) -> Storage | None:
    if isinstance(plan.storage, Storage):
        return plan.storage
    if isinstance(plan.storage, str):
        return catalog.storage(plan.storage)
    return resolved.drive


def _sustained(plan: PlanInputs, resolved: System, config: TrainingConfig) -> float | None:
    """The napkin-mode FLOP/s per GPU: > 0 and at most the GPU's dense peak in the compute
    format (a sustained rate above the peak is an input error, not a fast run)."""
    if plan.sustained is None:
        return None
    value = float(magnitude_in(plan.sustained, "flop/s", "sustained"))
    if not (value > 0 and np.isfinite(value)):
        raise MlcostError(f"sustained: got {plan.sustained!r}, expected a rate > 0 FLOP/s")
    compute_format = config.policy.compute_format
    peak = float(resolved.ceilings(compute_format).peak.to("flop/s").magnitude)
    if value > peak:
        raise MlcostError(
            f"sustained: got {value / 1e12:,.4g} TFLOP/s, expected at most the "
            f"{resolved.accelerator.name} dense {compute_format} peak of {peak / 1e12:,.4g} "
            "TFLOP/s (a measured MFU of 40% is 0.4 x the peak)"
        )
    return value


def describe_layout_options(layout: Layout) -> str:
    """The layout as ``mlcost plan`` options (``--tp 8 --pp 2 --zero 1 ...``)."""
    parts = [f"--dp {layout.dp}", f"--tp {layout.tp}", f"--pp {layout.pp}"]
    if layout.cp > 1:
        parts.append(f"--cp {layout.cp}")
    if layout.ep > 1:
        parts.append(f"--ep {layout.ep}")
    if layout.virtual_stages > 1:
        parts.append(f"--vp {layout.virtual_stages}")
    parts.append(f"--zero {layout.zero_stage}")
    parts.append(f"--batch {layout.micro_batch_size}")
    parts.append(f"--accumulation {layout.micro_batches}")
    if layout.sequence_parallel:
        parts.append("--sp")
    if layout.tp_overlap:
        parts.append("--tp-overlap")
    if layout.ep_overlap:
        parts.append("--ep-overlap")
    if layout.recompute != "none":
        parts.append(f"--recompute {layout.recompute}")
    if layout.recompute_every is not None:
        parts.append(f"--recompute-every {layout.recompute_every}")
    if layout.offload:
        parts.append("--offload")
    return " ".join(parts)


__all__ = [
    "CheckpointTarget",
    "Run",
    "choose_layout",
    "default_global_batch",
    "describe_layout_options",
    "resolve",
]
