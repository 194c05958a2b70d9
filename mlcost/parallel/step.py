"""Multi-GPU step time, time to train, scaling curves and the chapter's communication tax.

One optimizer step on ``N = d·t·p·c`` GPUs (Narayanan et al. 2021, section 3, for how the terms
compose)::

    step = compute + bubble + exposed communication
    compute = m · t_stage + t_optimizer
    bubble  = (p-1)/(v·m) · m · t_stage                      (Narayanan et al. 2021, §2.2)

``t_stage`` is one micro-batch (forward + backward) on the busiest pipeline stage, from the
single-GPU step-time model (:func:`mlcost.timing.step_time`, every operator on the roofline) at
the per-GPU shard. **Assumption**: tensor parallelism splits every layer's operators evenly
over ``t`` GPUs and context parallelism over ``c`` (each GPU computes ``s/c`` queries against all
keys), so a stage's time is ``T_layers / (t·c·p) + T_head / (t·c)`` with the embedding and LM
head (``T_head``) on the last stage; the smaller GEMMs of a shard are assumed to run at the
full-size GEMMs' efficiency (an optimistic bound for small shards). The optimizer update is
``T_opt / (t·p)`` and further ``/(d·c)`` with ZeRO >= 1 (sharded optimizer states). Exposed
communication is the sum over the terms of :mod:`mlcost.parallel.strategies`.

MFU is model FLOPs per step (all ``d·m`` micro-batches) over ``step x N x peak``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pint

from mlcost.comms import Topology, topology
from mlcost.errors import MlcostError
from mlcost.memory import (
    MemoryBreakdown,
    Parallelism,
    memory_breakdown,
    model_state_bytes_per_parameter,
)
from mlcost.memory import Profile as MemoryProfile
from mlcost.parallel.strategies import (
    DEFAULT_BUCKET,
    CommTerm,
    Degrees,
    Layout,
    MixtureOfExperts,
    ModelDims,
    ShardCompute,
    communication_terms,
    pipeline_bubble_fraction,
)
from mlcost.roofline import Ceilings
from mlcost.specs import Accelerator, Spec, TransformerSpec
from mlcost.timing import Mode, step_time
from mlcost.units import Q_
from mlcost.workload import TrainingConfig

Number = Any
SystemLike = str | Spec | Topology


# ----- the chapter's and the papers' closed forms ---------------------------------------------
def communication_tax_speedup(gpus: Number, communication_fraction: Number) -> Number:
    """The chapter's communication tax ``speedup = N / (1 + (N-1)·r)`` (seed chapter,
    ``fig-communication-tax``; Amdahl's law with the communicating share ``r`` of a step not
    parallelized): equal to ``1 / (r + (1-r)/N)``."""
    n = np.asarray(gpus, dtype=np.float64)
    r = np.asarray(communication_fraction, dtype=np.float64)
    if np.any(n < 1) or np.any((r < 0) | (r > 1)):
        raise MlcostError(
            f"communication_tax_speedup: got N={gpus!r}, r={communication_fraction!r}; "
            "expected N >= 1 and 0 <= r <= 1"
        )
    result = n / (1 + (n - 1) * r)
    return result.item() if result.ndim == 0 else result


def implied_communication_fraction(speedup: Number, gpus: Number) -> Number:
    """The ``r`` that makes the chapter's curve pass through a (model-derived) speedup:
    ``r = (N/S - 1) / (N - 1)`` (its inverse; undefined at N = 1, returned as 0)."""
    n = np.asarray(gpus, dtype=np.float64)
    s = np.asarray(speedup, dtype=np.float64)
    safe = np.where(n > 1, n - 1, 1.0)
    result = np.where(n > 1, (n / s - 1) / safe, 0.0)
    return result.item() if result.ndim == 0 else result


def end_to_end_training_time(
    tokens: Number,
    parameters: Number,
    gpus: int,
    throughput_per_gpu: pint.Quantity,
    *,
    flops_per_parameter_token: float = 8.0,
) -> pint.Quantity:
    """Narayanan et al. 2021, section 5.1, eq. (4): ``T ≈ 8·T·P / (n·X)`` for ``T`` tokens, ``P``
    parameters, ``n`` GPUs at ``X`` FLOP/s each; 8 = 2 forward + 4 backward + 2 recomputed
    forward (6 without activation recomputation)."""
    t = tokens.to("token").magnitude if isinstance(tokens, pint.Quantity) else tokens
    p = parameters.to("param").magnitude if isinstance(parameters, pint.Quantity) else parameters
    x = throughput_per_gpu.to("flop/s").magnitude
    return Q_(flops_per_parameter_token * t * p / (gpus * x), "s").to("day")


@dataclass(frozen=True)
class NetworkWall:
    """Gradient bytes, bytes moved by the all-reduce, its time, and whether it is the
    bottleneck against a compute time (the chapter's "network wall")."""

    gradient_bytes: pint.Quantity
    factor: float
    moved_bytes: pint.Quantity
    communication_time: pint.Quantity
    compute_time: pint.Quantity | None = None
    convention: str = ""

    @property
    def bottleneck(self) -> bool | None:
        """True when communication takes longer than computation (None without a compute time)."""
        if self.compute_time is None:
            return None
        return bool(self.communication_time > self.compute_time)

    def explain(self) -> str:
        text = (
            f"gradients {self.gradient_bytes.to('GB').magnitude:g} GB x {self.factor:g} "
            f"({self.convention}) = {self.moved_bytes.to('GB').magnitude:g} GB; at the link's "
            f"bandwidth: {self.communication_time.to('s').magnitude:.4g} s"
        )
        if self.compute_time is not None:
            verdict = "network-bound" if self.bottleneck else "compute-bound"
            text += f" vs compute {self.compute_time.to('s').magnitude:.4g} s: {verdict}"
        return text


def network_wall(
    parameters: pint.Quantity,
    bytes_per_gradient: float,
    bandwidth: pint.Quantity,
    *,
    ranks: int | None = None,
    compute_time: pint.Quantity | None = None,
) -> NetworkWall:
    """The chapter's network wall (``network-wall-calc``): gradient bytes ``P x e``, times the
    all-reduce factor, over the link's bandwidth. Without ``ranks``: the chapter's convention,
    factor 2 ("ring ≈ 2x"); with ``ranks`` the ring's exact ``2(n-1)/n`` (Patarasuk and Yuan
    2009; the chapter's footnote). Latency is ignored, as in the chapter."""
    gradient = (parameters.to("param").magnitude * bytes_per_gradient) * Q_(1, "byte")
    if ranks is None:
        factor, convention = 2.0, "the chapter's all-reduce factor 2"
    else:
        if ranks < 1:
            raise MlcostError(f"ranks: got {ranks!r}, expected >= 1")
        factor, convention = 2 * (ranks - 1) / ranks, f"ring 2(n-1)/n, n = {ranks}"
    moved = gradient * factor
    return NetworkWall(
        gradient_bytes=gradient.to("GB"),
        factor=factor,
        moved_bytes=moved.to("GB"),
        communication_time=(moved / bandwidth).to("s"),
        compute_time=compute_time,
        convention=convention,
    )


# ----- compute at the shard ---------------------------------------------------------------------
@dataclass(frozen=True)
class ComputeParts:
    """Seconds of one micro-batch on one GPU holding the whole model (arrays over micro-batch
    sizes): the transformer layers, their backward share and attention kernels, the head
    (embedding, final norm, LM head, loss), and the optimizer update; plus model FLOPs of one
    micro-batch and the peak the times were computed against."""

    micro_batch_size: np.ndarray
    layers: np.ndarray
    layers_backward: np.ndarray
    attention: np.ndarray
    head: np.ndarray
    head_backward: np.ndarray
    optimizer: np.ndarray
    model_flops: np.ndarray
    peak: float  # flop/s

    def take(self, index: Any) -> ComputeParts:
        """The parts at ``index`` into the micro-batch sizes (fancy indexing)."""
        return ComputeParts(
            micro_batch_size=self.micro_batch_size[index],
            layers=self.layers[index],
            layers_backward=self.layers_backward[index],
            attention=self.attention[index],
            head=self.head[index],
            head_backward=self.head_backward[index],
            optimizer=self.optimizer[index],
            model_flops=self.model_flops[index],
            peak=self.peak,
        )


def compute_parts(
    model: Spec,
    config: TrainingConfig,
    gpu: Accelerator | Ceilings,
    micro_batch_sizes: Number,
    *,
    mode: Mode = "roofline",
) -> ComputeParts:
    """Split the single-GPU step of one micro-batch (:func:`mlcost.timing.step_time`, one
    vectorized call over ``micro_batch_sizes``) into the parts a layout shards differently.
    The backward share of an operator is its backward (and recomputed) FLOPs over all its FLOPs
    (2/3 for an operator without FLOPs)."""
    sizes = np.atleast_1d(np.asarray(micro_batch_sizes, dtype=np.int64))
    single = config.model_copy(update={"gradient_accumulation_steps": 1})
    if isinstance(model, TransformerSpec):
        step = step_time(model, single, gpu, mode=mode, micro_batch_size=sizes)
    else:
        if sizes.size != 1:
            raise MlcostError("micro_batch_sizes: sweeps are supported for transformers only")
        single = single.model_copy(update={"micro_batch_size": int(sizes[0])})
        step = step_time(model, single, gpu, mode=mode)
    zeros = np.zeros(sizes.shape, dtype=np.float64)
    layers, layers_bwd, attention = zeros.copy(), zeros.copy(), zeros.copy()
    head, head_bwd, optimizer = zeros.copy(), zeros.copy(), zeros.copy()
    transformer = isinstance(model, TransformerSpec)
    for op, row in zip(step.table.operators, step.rows, strict=True):
        total = np.broadcast_to(np.asarray(row.total, dtype=np.float64), sizes.shape)
        if op.kind == "optimizer":
            optimizer = optimizer + total
            continue
        flops = np.asarray(op.forward_flops + op.backward_flops + op.recompute_flops, dtype=float)
        backward = np.asarray(op.backward_flops + op.recompute_flops, dtype=np.float64)
        share = np.where(flops > 0, backward / np.where(flops > 0, flops, 1.0), 2 / 3)
        if op.block == "layer" or not transformer:
            layers = layers + total
            layers_bwd = layers_bwd + total * share
            if op.kind in ("attention", "softmax"):
                attention = attention + total
        else:
            head = head + total
            head_bwd = head_bwd + total * share
    flops = np.broadcast_to(
        np.asarray(step.table.model_flops.to("flop").magnitude, dtype=np.float64), sizes.shape
    )
    return ComputeParts(
        micro_batch_size=sizes,
        layers=layers,
        layers_backward=layers_bwd,
        attention=attention,
        head=head,
        head_backward=head_bwd,
        optimizer=optimizer,
        model_flops=np.array(flops),
        peak=float(step.ceilings.peak.to("flop/s").magnitude),
    )


def shard_compute(parts: ComputeParts, degrees: Degrees) -> ShardCompute:
    """Per-GPU compute of a layout (module docstring: layers / (t·c·p), head / (t·c),
    optimizer / (t·p) and / (d·c) with ZeRO >= 1)."""
    d = degrees
    layer_split = d.tp * d.cp * d.pp
    head_split = d.tp * d.cp
    micro = parts.layers / layer_split + parts.head / head_split
    backward = parts.layers_backward / layer_split + parts.head_backward / head_split
    optimizer = parts.optimizer / (d.tp * d.pp) / np.where(d.zero >= 1, d.dp * d.cp, 1)
    return ShardCompute(
        micro_batch=micro,
        forward=micro - backward,
        backward=backward,
        attention=parts.attention / layer_split,
        optimizer=optimizer,
    )


def model_dims(model: Spec, config: TrainingConfig, sequence: int | None = None) -> ModelDims:
    """The sizes the traffic formulas need, from a model spec and its precision policy."""
    per_param = model_state_bytes_per_parameter(config.precision, config.optimizer)
    s = config.sequence_length if sequence is None else sequence
    if isinstance(model, TransformerSpec):
        return ModelDims(
            parameters=float(model.parameter_count),
            layers=model.num_layers,
            hidden=model.hidden_size,
            kv_width=model.kv_heads * model.head_size,
            sequence=s,
            activation_bytes=config.policy.activation,
            gradient_bytes=per_param["gradients"],
            weight_bytes=per_param["weights"],
        )
    return ModelDims(
        parameters=float(model.parameter_count),  # type: ignore[attr-defined]
        layers=1,
        hidden=0,
        kv_width=0,
        sequence=1,
        activation_bytes=config.policy.activation,
        gradient_bytes=per_param["gradients"],
        weight_bytes=per_param["weights"],
    )


def recompute_fraction(config: TrainingConfig, layers: int) -> float:
    """Share of layers whose forward (and its tensor-parallel traffic) is repeated in backward:
    1 for full, ``floor(L/k)/L`` for every-k, 0 otherwise (selective recomputation repeats only
    attention-score kernels, no collective)."""
    if config.recompute == "full":
        return 1.0
    if config.recompute == "every-k":
        every = config.recompute_every or 1
        return (layers // every) / layers
    return 0.0


# ----- the vectorized evaluation shared by one layout and by the search ------------------------
@dataclass(frozen=True)
class StepArrays:
    """Seconds per step (arrays over candidates) and the communication terms."""

    compute: np.ndarray
    bubble: np.ndarray
    exposed: np.ndarray
    communication: np.ndarray
    total: np.ndarray
    model_flops: np.ndarray  # per step, all GPUs
    mfu: np.ndarray
    terms: list[CommTerm]
    shard: ShardCompute


def evaluate(
    dims: ModelDims,
    topo: Topology,
    degrees: Degrees,
    parts: ComputeParts,
    *,
    gpus_per_node: Number,
    bucket: pint.Quantity = DEFAULT_BUCKET,
    tensor_parallel_overlap: float = 0.0,
    overlap: bool = True,
    moe: MixtureOfExperts | None = None,
) -> StepArrays:
    """Step time of every candidate in ``degrees`` (one vectorized pass; module docstring)."""
    shard = shard_compute(parts, degrees)
    m = degrees.micro_batches.astype(np.float64)
    compute = m * shard.micro_batch + shard.optimizer
    bubble = pipeline_bubble_fraction(degrees.pp, m, degrees.virtual) * m * shard.micro_batch
    terms = communication_terms(
        dims,
        topo,
        degrees,
        shard,
        gpus_per_node=gpus_per_node,
        bucket=bucket,
        tensor_parallel_overlap=tensor_parallel_overlap,
        overlap=overlap,
        moe=moe,
    )
    exposed = np.zeros_like(compute)
    communication = np.zeros_like(compute)
    for term in terms:
        exposed = exposed + term.exposed.to("s").magnitude
        communication = communication + term.time.to("s").magnitude
    total = compute + bubble + exposed
    model_flops = parts.model_flops * m * degrees.dp
    mfu = model_flops / (total * degrees.gpus * parts.peak)
    return StepArrays(
        compute=compute,
        bubble=np.asarray(bubble, dtype=np.float64) * np.ones_like(compute),
        exposed=exposed,
        communication=communication,
        total=total,
        model_flops=model_flops,
        mfu=mfu,
        terms=terms,
        shard=shard,
    )


# ----- one layout -------------------------------------------------------------------------------
def _scalar(value: Any) -> Any:
    array = np.asarray(value)
    return array.item() if array.size == 1 else array


@dataclass(frozen=True)
class MultiGpuStep:
    """One optimizer step of a layout on a system: compute, bubble, communication (each term
    with its exposed and hidden parts), MFU; ``explain()`` shows every figure's derivation."""

    model: Spec
    config: TrainingConfig
    layout: Layout
    topology: Topology
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
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> pint.Quantity:
        """Seconds per optimizer step: compute + bubble + exposed communication."""
        return (self.compute + self.bubble + self.exposed_communication).to("s")

    @property
    def gpus(self) -> int:
        return self.layout.gpus

    @property
    def hidden_communication(self) -> pint.Quantity:
        return (self.total_communication - self.exposed_communication).to("s")

    def mfu(self) -> float:
        """Model FLOPs utilization: model FLOPs per step / (step x GPUs x peak)."""
        seconds = self.total.to("s").magnitude
        return float(
            self.model_flops.to("flop").magnitude
            / (seconds * self.gpus * self.peak.to("flop/s").magnitude)
        )

    @property
    def tokens_per_second(self) -> pint.Quantity:
        return Q_(self.tokens_per_step / self.total.to("s").magnitude, "token/s")

    @property
    def terms(self) -> pd.DataFrame:
        """One row per active communication term: strategy, collective, bytes, link, time,
        exposed, hidden (seconds per step), and its formula and source."""
        rows = []
        for term in self.communication:
            if float(np.max(np.asarray(term.calls))) == 0:
                continue
            rows.append(
                {
                    "strategy": term.strategy,
                    "collective": term.collective,
                    "bytes": float(term.bytes.to("byte").magnitude),
                    "message_bytes": float(term.message.to("byte").magnitude),
                    "calls": float(term.calls),
                    "ranks": int(term.ranks),
                    "link": str(term.link),
                    "time": float(term.time.to("s").magnitude),
                    "exposed": float(term.exposed.to("s").magnitude),
                    "hidden": float(term.hidden.to("s").magnitude),
                    "formula": term.formula,
                    "source": term.source,
                }
            )
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

    def time_to_train(self, tokens: Number) -> dict[str, pint.Quantity]:
        """Steps ``ceil(tokens / tokens per step)``, wall clock, GPU-hours and MFU."""
        count = tokens.to("token").magnitude if isinstance(tokens, pint.Quantity) else tokens
        steps = np.ceil(np.asarray(count, dtype=np.float64) / self.tokens_per_step)
        wall = (self.total * steps).to("day")
        return {
            "step time": self.total,
            "steps": Q_(_scalar(steps), "dimensionless"),
            "wall clock": wall,
            "GPU-hours": (wall * self.gpus).to("hour"),
            "MFU": Q_(self.mfu(), "dimensionless"),
        }

    def memory(self, *, profile: MemoryProfile = "megatron") -> MemoryBreakdown:
        """Per-GPU memory of this layout (:func:`layout_memory`)."""
        return layout_memory(
            self.model, self.config, self.topology.accelerator, self.layout, profile=profile
        )

    def explain(self) -> str:
        """Each figure with its formula, the numbers substituted and its source."""
        lay = self.layout
        m = lay.micro_batches

        def ms(quantity: pint.Quantity) -> str:
            return f"{quantity.to('ms').magnitude:,.3f} ms"

        lines = [
            f"{self.model.name} on {self.topology.describe()}",
            f"layout: {lay.describe()} ({self.gpus} GPUs, global batch {lay.global_batch} "
            f"sequences = {self.tokens_per_step:,} tokens)",
            f"- compute = m x t_stage + t_opt = {m} x {ms(self.stage_time)} + "
            f"{ms(self.optimizer_time)} = {ms(self.compute)}  [mlcost.timing.step_time at the "
            "shard: layers/(t·c·p) + head/(t·c); optimizer/(t·p) (/(d·c) with ZeRO)]",
            f"- bubble = (p-1)/(v·m) x m x t_stage = ({lay.pp}-1)/({lay.virtual_stages}x{m}) x "
            f"{m} x {ms(self.stage_time)} = {ms(self.bubble)}  [Narayanan et al. 2021, §2.2]",
        ]
        for term in self.communication:
            if float(np.max(np.asarray(term.calls))) == 0:
                continue
            lines.append(
                f"- {term.strategy}: {term.collective} of "
                f"{term.message.to('MB').magnitude:,.3f} MB x {float(term.calls):g} calls over "
                f"{int(term.ranks)} ranks ({term.link}) = {ms(term.time)}; exposed "
                f"{ms(term.exposed)}, hidden {ms(term.hidden)} = {term.formula}  [{term.source}]"
            )
        lines.append(
            f"= step = compute + bubble + exposed communication = {ms(self.compute)} + "
            f"{ms(self.bubble)} + {ms(self.exposed_communication)} = {ms(self.total)} "
            f"(communication {ms(self.total_communication)} in all, "
            f"{ms(self.hidden_communication)} hidden)"
        )
        lines.append(
            f"MFU = model FLOPs / (step x GPUs x peak) = "
            f"{self.model_flops.to('flop').magnitude:.4g} / ({self.total.to('s').magnitude:.4g}"
            f" s x {self.gpus} x {self.peak.to('TFLOP/s').magnitude:g} TFLOP/s) = "
            f"{self.mfu():.1%}  [Chowdhery et al. 2022, appendix B]"
        )
        return "\n".join(lines)

    def to_frame(self) -> pd.DataFrame:
        """The step's parts in seconds (compute, bubble, each term's exposed share)."""
        rows = [
            {"part": "compute", "seconds": float(self.compute.to("s").magnitude)},
            {"part": "pipeline bubble", "seconds": float(self.bubble.to("s").magnitude)},
        ]
        for _, row in self.terms.iterrows():
            rows.append({"part": f"{row['strategy']} (exposed)", "seconds": row["exposed"]})
        return pd.DataFrame(rows)

    def _repr_html_(self) -> str:
        return (
            f"<p>{html.escape(self.layout.describe())}: step "
            f"{self.total.to('s').magnitude:.3f} s, MFU {self.mfu():.1%}</p>"
            + self.terms.drop(columns=["formula", "source"]).to_html()
        )


def _resolve_layout_config(
    model: Spec, config: TrainingConfig, layout: Layout
) -> tuple[TrainingConfig, float]:
    update: dict[str, Any] = {
        "micro_batch_size": layout.micro_batch_size,
        "gradient_accumulation_steps": layout.micro_batches,
    }
    if layout.recompute is not None:
        update["recompute"] = layout.recompute
        update["recompute_every"] = None
    resolved = config.model_copy(update=update)
    layers = model.num_layers if isinstance(model, TransformerSpec) else 1
    return resolved, recompute_fraction(resolved, layers)


def _check_layout(model: Spec, layout: Layout, topo: Topology) -> None:
    if isinstance(model, TransformerSpec):
        layout.check_model(model.num_layers, model.num_attention_heads)
    elif layout.tp * layout.pp * layout.cp > 1:
        raise MlcostError(
            f"layout: {model.name!r} is a {model.KIND}; only data parallelism is modeled for it"
        )
    if layout.gpus > topo.gpus:
        raise MlcostError(
            f"layout: needs {layout.gpus} GPUs (dp x tp x pp x cp), the system has "
            f"{topo.gpus} ({topo.nodes} nodes x {topo.gpus_per_node}); raise nodes"
        )
    if layout.tp > topo.gpus_per_node:
        raise MlcostError(
            f"tp: got {layout.tp}, expected at most the {topo.gpus_per_node} GPUs of a node "
            "(tensor parallelism stays inside a node)"
        )


def multi_gpu_step_time(
    model: Spec,
    config: TrainingConfig,
    system: SystemLike,
    layout: Layout,
    *,
    nodes: int | None = None,
    mode: Mode = "roofline",
    bucket: pint.Quantity = DEFAULT_BUCKET,
    tensor_parallel_overlap: float = 0.0,
    overlap: bool = True,
    moe: MixtureOfExperts | None = None,
) -> MultiGpuStep:
    """Predicted optimizer step of ``model`` split by ``layout`` on ``system`` (a node or
    cluster spec or name, or a :class:`mlcost.comms.Topology`), ``nodes`` of it (default: the
    cluster's node count, or as many as the layout needs). See the module docstring.

    ``config`` gives sequence length, precision, attention and optimizer; the layout's
    micro-batch, micro-batch count and recomputation replace the config's.
    """
    if nodes is None and not isinstance(system, Topology):
        base = topology(system)
        nodes = max(base.nodes, -(-layout.gpus // base.gpus_per_node))
    topo = topology(system, nodes=nodes)
    _check_layout(model, layout, topo)
    resolved, fraction = _resolve_layout_config(model, config, layout)
    parts = compute_parts(
        model, resolved, topo.accelerator, np.array([layout.micro_batch_size]), mode=mode
    )
    degrees = Degrees.of(layout, fraction)
    per_node = min(topo.gpus_per_node, layout.gpus)
    result = evaluate(
        model_dims(model, resolved),
        topo,
        degrees,
        parts,
        gpus_per_node=per_node,
        bucket=bucket,
        tensor_parallel_overlap=tensor_parallel_overlap,
        overlap=overlap,
        moe=moe,
    )
    sequence = resolved.sequence_length if isinstance(model, TransformerSpec) else 1
    terms = tuple(
        CommTerm(
            strategy=t.strategy,
            collective=t.collective,
            message=Q_(_scalar(t.message.magnitude), "byte"),
            calls=_scalar(t.calls),
            ranks=_scalar(t.ranks),
            link=_scalar(t.link),
            time=Q_(_scalar(t.time.magnitude), "s"),
            exposed=Q_(_scalar(t.exposed.magnitude), "s"),
            formula=t.formula,
            source=t.source,
        )
        for t in result.terms
    )
    return MultiGpuStep(
        model=model,
        config=resolved,
        layout=layout,
        topology=topo,
        compute=Q_(_scalar(result.compute), "s"),
        bubble=Q_(_scalar(result.bubble), "s"),
        exposed_communication=Q_(_scalar(result.exposed), "s"),
        total_communication=Q_(_scalar(result.communication), "s"),
        communication=terms,
        tokens_per_step=int(layout.global_batch * sequence),
        model_flops=Q_(_scalar(result.model_flops), "flop"),
        peak=Q_(parts.peak, "flop/s").to("TFLOP/s"),
        stage_time=Q_(_scalar(result.shard.micro_batch), "s"),
        optimizer_time=Q_(_scalar(result.shard.optimizer), "s"),
        details={"mode": mode, "overlap": overlap, "gpus_per_node_used": per_node},
    )


def layout_memory(
    model: Spec,
    config: TrainingConfig,
    gpu: Accelerator,
    layout: Layout,
    *,
    profile: MemoryProfile = "megatron",
) -> MemoryBreakdown:
    """Per-GPU memory of a layout through :func:`mlcost.memory.memory_breakdown`: ZeRO shards
    over the ``d·c`` ranks that hold the same weights, context parallelism holds ``s/c`` tokens
    per GPU, and the first pipeline stage holds ``min(p, m)`` micro-batches in flight.
    ``profile="megatron"`` (Korthikanti et al. 2022, Table 2) is the default because it models
    tensor and sequence parallelism."""
    resolved, _ = _resolve_layout_config(model, config, layout)
    sequence = resolved.sequence_length // layout.cp
    if resolved.sequence_length % layout.cp:
        raise MlcostError(
            f"cp: got {layout.cp}, expected a divisor of the sequence length "
            f"{resolved.sequence_length}"
        )
    parallel = Parallelism(
        data_parallel=layout.dp * layout.cp,
        tensor_parallel=layout.tp,
        pipeline_parallel=layout.pp,
        zero_stage=layout.zero_stage,
        sequence_parallel=layout.sequence_parallel,
    )
    return memory_breakdown(
        model,
        resolved,
        gpu,
        parallel=parallel,
        profile=profile,
        sequence_length=sequence,
    )


# ----- scaling curves ---------------------------------------------------------------------------
def scaling_curve(
    model: Spec,
    config: TrainingConfig,
    system: SystemLike,
    gpus: Sequence[int],
    *,
    layout: Layout | None = None,
    kind: str = "strong",
    global_batch_size: int | None = None,
    mode: Mode = "roofline",
    overlap: bool = True,
) -> pd.DataFrame:
    """Step time, speedup and scaling efficiency as the data-parallel degree grows (the other
    degrees, micro-batch and ZeRO stage from ``layout``), in one vectorized evaluation.

    * ``strong``: fixed global batch (``global_batch_size`` or the layout's); ``m`` shrinks as
      GPUs are added. Speedup ``S(N) = N0 · T(N0) / T(N)``.
    * ``weak``: fixed work per GPU (``m`` fixed); the global batch grows with ``N``.
      Speedup ``S(N) = N · W(N) / T(N)`` with ``W = compute + bubble`` the step without
      communication (the same per-GPU work on one replica; ZeRO's sharded optimizer makes
      ``T(N0)`` a slightly different workload, so it is not the baseline). This is the chapter's
      ``N / (1 + (N-1)·r)`` with ``r`` derived rather than assumed.

    ``N0 = t·p·c`` is the smallest layout (one data-parallel replica); efficiency ``S/N``; the
    ``comm_fraction`` column is the exposed communication share of the step, and
    ``implied_r`` the chapter's ``r`` that reproduces the model's speedup
    (:func:`implied_communication_fraction`).
    """
    if kind not in ("strong", "weak"):
        raise MlcostError(f"kind: got {kind!r}, expected 'strong' or 'weak'")
    layout = layout or Layout()
    base = layout.tp * layout.pp * layout.cp
    counts = np.asarray(list(gpus), dtype=np.int64)
    if np.any(counts % base) or np.any(counts < base):
        raise MlcostError(
            f"gpus: every count must be a multiple of t x p x c = {base}; got {list(gpus)}"
        )
    topo0 = topology(system)
    g = topo0.gpus_per_node
    needed = int(-(-counts.max() // g))
    topo = topology(system, nodes=max(topo0.nodes, needed))
    if isinstance(model, TransformerSpec):
        layout.check_model(model.num_layers, model.num_attention_heads)
    dp = counts // base
    all_counts = np.concatenate([[base], counts])
    all_dp = np.concatenate([[1], dp])
    mb = layout.micro_batch_size
    if kind == "strong":
        batch = global_batch_size or layout.global_batch
        if np.any(batch % (all_dp * mb)):
            raise MlcostError(
                f"global_batch_size: {batch} is not a multiple of dp x micro_batch for every "
                f"count in {list(gpus)}"
            )
        micro_batches = batch // (all_dp * mb)
    else:
        micro_batches = np.full_like(all_dp, layout.micro_batches)
    resolved, fraction = _resolve_layout_config(model, config, layout)
    parts = compute_parts(model, resolved, topo.accelerator, np.array([mb]), mode=mode)
    parts = parts.take(np.zeros(all_dp.shape, dtype=np.int64))

    def full(value: Any) -> np.ndarray:
        return np.full(all_dp.shape, value)

    degrees = Degrees(
        dp=all_dp,
        tp=full(layout.tp),
        pp=full(layout.pp),
        cp=full(layout.cp),
        ep=full(1),
        micro_batch=full(mb),
        micro_batches=micro_batches,
        zero=full(layout.zero_stage),
        sequence_parallel=full(layout.sequence_parallel),
        virtual=full(layout.virtual_stages),
        recompute_fraction=full(fraction),
    )
    result = evaluate(
        model_dims(model, resolved),
        topo,
        degrees,
        parts,
        gpus_per_node=np.minimum(g, all_counts),
        overlap=overlap,
    )
    t0 = result.total[0]
    totals = result.total[1:]
    if kind == "strong":
        speedup = base * t0 / totals
    else:
        work = result.compute[1:] + result.bubble[1:]
        speedup = counts * work / totals
    sequence = resolved.sequence_length if isinstance(model, TransformerSpec) else 1
    tokens = all_dp * mb * micro_batches * sequence
    return pd.DataFrame(
        {
            "gpus": counts,
            "nodes": np.ceil(counts / g).astype(int),
            "dp": dp,
            "micro_batches": micro_batches[1:],
            "step_s": totals,
            "compute_s": result.compute[1:],
            "bubble_s": result.bubble[1:],
            "exposed_comm_s": result.exposed[1:],
            "total_comm_s": result.communication[1:],
            "tokens_per_s": tokens[1:] / totals,
            "mfu": result.mfu[1:],
            "speedup": speedup,
            "efficiency": speedup / counts,
            "comm_fraction": result.exposed[1:] / totals,
            "implied_r": implied_communication_fraction(speedup, counts),
        }
    )
