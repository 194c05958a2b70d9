"""The multi-GPU step: compute of one GPU's shard, the pipeline bubble, and the communication
that stays exposed.

One optimizer step on ``N = d·t·p·c`` GPUs (Narayanan et al. 2021, section 3, for how the terms
compose)::

    step = compute + bubble + exposed communication
    compute = m · t_stage + t_optimizer
    bubble  = (p-1)/(v·m) · m · t_stage                      (Narayanan et al. 2021, §2.2)

``t_stage`` is one micro-batch (forward + backward) on the slowest pipeline stage, from the
single-GPU step-time model (:func:`mlcost.timing.step_time`, every operator on the roofline) at
the per-GPU shard. Stage ``i`` holds ``n_i`` of the ``L`` layers (:meth:`mlcost.layout.Layout.
stage_layer_counts`); the first also runs the embedding, the last the final norm, LM head and
loss. Tensor parallelism splits the operators Megatron splits (``Operator.tensor_parallel``:
the attention and MLP GEMMs and the attention core) over ``t`` GPUs and replicates the rest
(norms, residual adds, dropouts) unless sequence parallelism splits them too; context
parallelism splits every per-token operator over ``c`` (each GPU computes ``s/c`` queries
against all keys). Each GEMM runs at the efficiency of the shape one rank computes
(:func:`mlcost.operator_time.shard_shapes`: ``n/t`` for column-parallel, ``k/t`` for
row-parallel GEMMs, the heads over ``t``, the tokens over ``c``): wave quantization and tile depth
of the smaller shard. The optimizer update is ``T_opt / (t·p)`` and
further ``/(d·c)`` with ZeRO >= 1 (sharded optimizer states). Exposed communication is the sum
over the terms of :mod:`mlcost.parallel.traffic`.

MFU is model FLOPs per step (all ``d·m`` micro-batches) over ``step x N x peak``
(:func:`mlcost.timing.model_flops_utilization`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pint

from mlcost.arrays import Array, Real, only
from mlcost.checks import argument
from mlcost.errors import MlcostError
from mlcost.implementation import Software, SoftwareLike
from mlcost.implementation import implementation as implementation_of
from mlcost.layout import Layout
from mlcost.memory import MemoryBreakdown, Profile, memory_breakdown
from mlcost.parallel.closed_forms import pipeline_bubble_fraction
from mlcost.parallel.compute import ComputeParts, compute_parts, model_dims, shard_compute
from mlcost.parallel.degrees import CommOptions, CommTerm, Degrees, ModelDims, ShardCompute
from mlcost.parallel.traffic import communication_terms
from mlcost.records import Record, field
from mlcost.results import Figure, Result
from mlcost.specs import ModelSpec, TransformerSpec
from mlcost.specs.catalog import as_model
from mlcost.systems import System, SystemLike, system
from mlcost.timing import (
    MFU_SOURCE,
    Mode,
    TimeToTrain,
    model_flops_utilization,
    time_to_train,
)
from mlcost.uncertainty import Calibration, step_calibration, with_band
from mlcost.units import Q_, in_unit
from mlcost.workload import TrainingConfig

if TYPE_CHECKING:
    import pandas as pd


# ----- the vectorized evaluation shared by one layout, the plan and the search -----------------
class StepArrays(Record, frozen=True):
    """Seconds per step (arrays over candidates; one layout: arrays of one) and the
    communication terms."""

    compute: Array
    bubble: Array
    exposed: Array
    communication: Array
    total: Array
    model_flops: Array  # per step, all GPUs
    mfu: Array
    terms: list[CommTerm]
    shard: ShardCompute
    uncorrected: Array  # compute + bubble + exposed, before the calibration
    calibration: float = 1.0  # the software's correction factor (mlcost.uncertainty.calibration)


def evaluate(
    dims: ModelDims,
    system: System,
    degrees: Degrees,
    parts: ComputeParts,
    *,
    gpus_per_node: Real,
    options: CommOptions | None = None,
    software: Software | None = None,
) -> StepArrays:
    """Step time of every candidate in ``degrees`` (one vectorized pass; module docstring),
    communication overlapped as ``software`` implements it."""
    options = options or CommOptions()
    if software is not None:
        options = options.for_software(software)
    shard = shard_compute(parts, degrees, dims.layers)
    m = np.asarray(degrees.micro_batches, dtype=np.float64)
    compute = m * shard.micro_batch + shard.optimizer
    bubble = pipeline_bubble_fraction(degrees.pp, m, degrees.virtual) * m * shard.micro_batch
    terms = communication_terms(
        dims, system, degrees, shard, gpus_per_node=gpus_per_node, options=options
    )
    exposed = np.zeros_like(compute)
    communication = np.zeros_like(compute)
    for term in terms:
        exposed = exposed + term.exposed_seconds
        communication = communication + term.time_seconds
    uncorrected = compute + bubble + exposed
    found = step_calibration(None if software is None else software.name, system.accelerator)
    factor = 1.0 if found is None else found.factor
    total = uncorrected * factor
    model_flops = parts.model_flops * m * degrees.dp
    return StepArrays(
        compute=np.asarray(compute),
        bubble=np.asarray(bubble, dtype=np.float64) * np.ones_like(compute),
        exposed=np.asarray(exposed),
        communication=np.asarray(communication),
        total=np.asarray(total),
        model_flops=np.asarray(model_flops),
        mfu=np.asarray(model_flops_utilization(model_flops, total, degrees.gpus, parts.peak)),
        terms=terms,
        shard=shard,
        uncorrected=np.asarray(uncorrected),
        calibration=factor,
    )


# ----- one layout -------------------------------------------------------------------------------
class MultiGpuStep(Record, Result, frozen=True):
    """One optimizer step of a layout on a system: compute, bubble, communication (each term
    with its exposed and hidden parts), MFU; ``explain()`` shows every figure's derivation."""

    model: ModelSpec
    config: TrainingConfig
    layout: Layout
    system: System
    compute: pint.Quantity
    bubble: pint.Quantity
    exposed_communication: pint.Quantity
    total_communication: pint.Quantity
    communication: tuple[CommTerm, ...]
    tokens_per_step: int
    model_flops: pint.Quantity
    peak: pint.Quantity
    stage_time: pint.Quantity
    optimizer_time: pint.Quantity
    calibration: Calibration | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def uncorrected_total(self) -> pint.Quantity:
        """Seconds per optimizer step as the roofline model gives them: compute + bubble +
        exposed communication."""
        return (self.compute + self.bubble + self.exposed_communication).to("s")

    @property
    def total(self) -> pint.Quantity:
        """Seconds per optimizer step, the expected value: :attr:`uncorrected_total` x the
        implementation's correction factor (:func:`mlcost.uncertainty.calibration`; 1 for a
        profile without published runs)."""
        factor = 1.0 if self.calibration is None else self.calibration.factor
        return (self.uncorrected_total * factor).to("s")

    @property
    def gpus(self) -> int:
        return self.layout.gpus

    @property
    def hidden_communication(self) -> pint.Quantity:
        return (self.total_communication - self.exposed_communication).to("s")

    def mfu(self) -> float:
        """Model FLOPs utilization (:func:`mlcost.timing.model_flops_utilization`)."""
        return float(
            model_flops_utilization(
                in_unit(self.model_flops, "flop"),
                in_unit(self.total, "s"),
                self.gpus,
                in_unit(self.peak, "flop/s"),
            )
        )

    @property
    def tokens_per_second(self) -> pint.Quantity:
        return Q_(self.tokens_per_step / in_unit(self.total, "s"), "token/s")

    @property
    def terms(self) -> pd.DataFrame:
        """One row per active communication term: strategy, collective, bytes, link, time,
        exposed, hidden (seconds per step), and its formula and source."""
        import pandas as pd

        rows = [
            {
                "strategy": term.strategy,
                "collective": term.label,
                "bytes": float(term.bytes.magnitude),
                "message_bytes": float(term.message_bytes),
                "calls": float(term.calls),
                "ranks": int(term.ranks),
                "link": str(term.link),
                "time": float(term.time_seconds),
                "exposed": float(term.exposed_seconds),
                "hidden": float(term.hidden.magnitude),
                "formula": term.formula,
                "source": term.source,
            }
            for term in self.communication
            if float(np.max(np.asarray(term.calls))) > 0
        ]
        columns = [
            "strategy",
            "collective",
            "bytes",
            "message_bytes",
            "calls",
            "ranks",
            "link",
            "time",
            "exposed",
            "hidden",
            "formula",
            "source",
        ]
        return pd.DataFrame(rows, columns=columns)

    def time_to_train(self, tokens: Any) -> TimeToTrain:
        """Steps, wall clock and GPU-hours for ``tokens`` (:func:`mlcost.timing.time_to_train`)."""
        return time_to_train(tokens, self.tokens_per_step, self.total, self.gpus, mfu=self.mfu())

    def memory(self, *, profile: Profile = "pytorch") -> MemoryBreakdown:
        """Per-GPU memory of this layout (:func:`mlcost.memory.memory_breakdown`)."""
        return memory_breakdown(
            self.model, self.config, self.system.accelerator, self.layout, profile=profile
        )

    def title(self) -> str:
        lay = self.layout
        return (
            f"{self.model.name} on {self.system.describe()}\nlayout: {lay.describe()} "
            f"({self.gpus} GPUs, global batch {lay.global_batch} sequences = "
            f"{self.tokens_per_step:,} tokens)"
        )

    def figures(self) -> list[Figure]:
        """Compute, bubble, each active communication term, the step and MFU."""
        lay, m = self.layout, self.layout.micro_batches

        def ms(quantity: pint.Quantity) -> str:
            return f"{quantity.to('ms').magnitude:,.3f} ms"

        figures = [
            Figure(
                "compute",
                self.compute.to("ms"),
                "compute = m x t_stage + t_opt",
                f"{m} x {ms(self.stage_time)} + {ms(self.optimizer_time)}",
                "mlcost.timing.step_time at the shard: slowest stage's layers/(t·c) + its "
                "embedding or head; optimizer/(t·p) (/(d·c) with ZeRO)",
            ),
            Figure(
                "pipeline bubble",
                self.bubble.to("ms"),
                "bubble = (p-1)/(v·m) x m x t_stage",
                f"({lay.pp}-1)/({lay.virtual_stages}x{m}) x {m} x {ms(self.stage_time)}",
                "Narayanan et al. 2021, §2.2",
            ),
        ]
        for term in self.communication:
            if float(np.max(np.asarray(term.calls))) == 0:
                continue
            figures.append(
                Figure(
                    f"{term.strategy} (exposed)",
                    term.exposed.to("ms"),
                    term.formula,
                    f"{term.label} of {term.message.to('MB').magnitude:,.3f} MB x "
                    f"{float(term.calls):g} calls over {int(term.ranks)} ranks ({term.link}) = "
                    f"{ms(term.time)}, hidden {ms(term.hidden)}",
                    term.source,
                )
            )
        parts = (
            f"{ms(self.compute)} + {ms(self.bubble)} + {ms(self.exposed_communication)} "
            f"(communication {ms(self.total_communication)} in all, "
            f"{ms(self.hidden_communication)} hidden)"
        )
        figures.append(
            Figure(
                "step time, uncorrected",
                self.uncorrected_total.to("ms"),
                "step = compute + bubble + exposed communication",
                parts,
                "Narayanan et al. 2021, section 3",
            )
        )
        found = self.calibration
        figures.append(
            with_band(
                Figure(
                    "step time",
                    self.total.to("ms"),
                    "step = (compute + bubble + exposed communication) x calibration",
                    f"{ms(self.uncorrected_total)} x {found.factor:.3f}, {found.note}"
                    if found is not None
                    else f"{parts}; no published runs of this implementation to calibrate to",
                    "Narayanan et al. 2021, section 3"
                    + ("" if found is None else f"; {found.derivation}"),
                )
            )
        )
        figures.append(
            Figure(
                "MFU",
                Q_(self.mfu(), "dimensionless").to("percent"),
                "MFU = model FLOPs / (step x GPUs x peak)",
                f"{self.model_flops.to('flop').magnitude:.4g} / ({self.total.to('s').magnitude:.4g}"
                f" s x {self.gpus} x {self.peak.to('TFLOP/s').magnitude:g} TFLOP/s)",
                MFU_SOURCE,
            )
        )
        return figures

    def to_frame(self) -> pd.DataFrame:
        """The step's parts in seconds (compute, bubble, each term's exposed share)."""
        import pandas as pd

        rows = [
            {"part": "compute", "seconds": float(in_unit(self.compute, "s"))},
            {"part": "pipeline bubble", "seconds": float(in_unit(self.bubble, "s"))},
        ]
        for _, row in self.terms.iterrows():
            rows.append({"part": f"{row['strategy']} (exposed)", "seconds": row["exposed"]})
        return pd.DataFrame(rows)

    def _repr_html_(self) -> str:
        import html  # on use: html.entities' table costs ~1.2 ms to import

        return (
            f"<p>{html.escape(self.layout.describe())}: step "
            f"{self.total.to('s').magnitude:.3f} s, MFU {self.mfu():.1%}</p>"
            + self.terms.drop(columns=["formula", "source"]).to_html()
        )


def check_layout(
    model: ModelSpec,
    config: TrainingConfig,
    layout: Layout,
    resolved: System,
    software: Software | None = None,
) -> None:
    """Raise :class:`MlcostError` where ``layout`` cannot split ``model`` on ``resolved`` (or
    asks ``software`` for an overlap it does not implement)."""
    if layout.tp_overlap and software is not None and not software.spec.tp_comm_overlap:
        raise MlcostError(
            f"tp_overlap: {software.name} does not overlap tensor-parallel communication with "
            "GEMMs; use an implementation that does (megatron-core) or tp_overlap=False"
        )
    if isinstance(model, TransformerSpec):
        layout.check_model(
            model.num_layers,
            model.num_attention_heads,
            config.sequence_length,
            experts=model.routed_experts,
        )
    elif layout.model_parallel > 1:
        raise MlcostError(
            f"layout: {model.name!r} is a {model.KIND}; only data parallelism is modeled for it"
        )
    if layout.gpus > resolved.gpus:
        raise MlcostError(
            f"layout: needs {layout.gpus} GPUs (dp x tp x pp x cp), the system has "
            f"{resolved.gpus} ({resolved.nodes} nodes x {resolved.gpus_per_node}); raise nodes"
        )
    if layout.tp > resolved.gpus_per_node:
        raise MlcostError(
            f"tp: got {layout.tp}, expected at most the {resolved.gpus_per_node} GPUs of a node "
            "(tensor parallelism stays inside a node)"
        )


def multi_gpu_step_time(
    model: ModelSpec | str,
    config: TrainingConfig,
    target: SystemLike,
    layout: Layout,
    *,
    nodes: int | None = None,
    mode: Mode = "roofline",
    options: CommOptions | None = None,
    implementation: SoftwareLike = None,
) -> MultiGpuStep:
    """Predicted optimizer step of ``model`` split by ``layout`` on a system (a node or cluster
    spec or name, a GPU, or a :class:`mlcost.systems.System`), ``nodes`` of it (default: the
    cluster's node count, or as many as the layout needs), run by ``implementation`` (default
    :data:`mlcost.implementation.DEFAULT_IMPLEMENTATION`). See the module docstring.
    ``options`` says how communication overlaps compute (:class:`CommOptions`)."""
    spec = as_model(model)
    config = argument(config, TrainingConfig, "config")
    layout = argument(layout, Layout, "layout")
    software = implementation_of(implementation)
    resolved = (
        system(target, nodes=nodes) if nodes is not None else system(target).for_gpus(layout.gpus)
    )
    check_layout(spec, config, layout, resolved, software)
    layers = spec.num_layers if isinstance(spec, TransformerSpec) else 1
    parts = compute_parts(
        spec,
        config,
        resolved,
        layout,
        layout.micro_batch_size,
        mode=mode,
        software=software,
    )
    per_node = min(resolved.gpus_per_node, layout.gpus)
    result = evaluate(
        model_dims(spec, config, software),
        resolved,
        Degrees.from_layouts([layout], layers),
        parts,
        gpus_per_node=per_node,
        options=options,
        software=software,
    )
    # The one layout's values, read out of the evaluation's arrays of one.
    terms = tuple(
        CommTerm(
            strategy=t.strategy,
            collective=t.collective,
            label=t.label,
            message_bytes=only(t.message_bytes),
            calls=only(t.calls),
            ranks=only(t.ranks),
            link_code=only(t.link_code),
            time_seconds=only(t.time_seconds),
            exposed_seconds=only(t.exposed_seconds),
            formula=t.formula,
            source=t.source,
        )
        for t in result.terms
    )
    sequence = config.sequence_length if isinstance(spec, TransformerSpec) else 1
    return MultiGpuStep(
        model=spec,
        config=config,
        layout=layout,
        system=resolved,
        compute=Q_(only(result.compute), "s"),
        bubble=Q_(only(result.bubble), "s"),
        exposed_communication=Q_(only(result.exposed), "s"),
        total_communication=Q_(only(result.communication), "s"),
        communication=terms,
        tokens_per_step=int(layout.global_batch * sequence),
        model_flops=Q_(only(result.model_flops), "flop"),
        peak=Q_(parts.peak, "flop/s").to("TFLOP/s"),
        stage_time=Q_(only(result.shard.micro_batch), "s"),
        optimizer_time=Q_(only(result.shard.optimizer), "s"),
        calibration=step_calibration(software.name, resolved.accelerator),
        details={
            "mode": mode,
            "options": (options or CommOptions()).for_software(software),
            "gpus_per_node_used": per_node,
            "implementation": software.describe(),
        },
    )
