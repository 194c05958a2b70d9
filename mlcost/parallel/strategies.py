"""What each parallelism strategy sends, when, and how much of it hides behind compute.

A :class:`Layout` says how a run is split: data parallel ``d``, tensor parallel ``t``, pipeline
parallel ``p`` (with ``v`` virtual stages), context parallel ``c`` and expert parallel ``e``,
the micro-batch, the global batch, the ZeRO stage, sequence parallelism and recomputation. Ranks
are numbered tensor-fastest, then context, data and pipeline (Megatron-LM's default order
"tp-cp-dp-pp"), so the ``t`` ranks of a tensor-parallel group are neighbours inside a node.

Per optimizer step and per GPU, with ``Psi`` the parameters held by a GPU's model replica
(``P/(t·p)``), ``m`` micro-batches of ``b`` sequences of ``s`` tokens, hidden size ``h`` and
``L/p`` layers on a stage (each line's source in the function that builds it):

=================  ==========================================================  ==============
strategy           traffic per step                                           hides behind
=================  ==========================================================  ==============
data parallel      one all-reduce of the gradients ``Psi·e_g`` (accumulation   last backward
                   syncs once per ``m`` micro-batches), bucketed               (all but one
                                                                              bucket)
ZeRO-1             reduce-scatter of gradients once + all-gather of weights    backward / none
ZeRO-2             reduce-scatter every micro-batch + all-gather of weights    backward / none
ZeRO-3 (FSDP)      per micro-batch: all-gather weights in forward and in      forward,
                   backward, reduce-scatter gradients: 3·Psi (1.5x of 2·Psi)  backward
tensor parallel    per layer and micro-batch 2 all-reduces forward + 2         nothing (on
                   backward of ``b·s·h`` (+2 with full recompute); with        the critical
                   sequence parallel a reduce-scatter + all-gather each        path)
pipeline parallel  per micro-batch and chunk: activations forward, gradients  steady state
                   backward, ``b·s·h/t`` each (scatter/gather)                (fill/drain
                                                                              exposed)
context parallel   per layer: K,V blocks around the ring (c-1 steps),         attention
                   twice that in backward                                     compute
expert parallel    per MoE layer: dispatch + combine all-to-all forward and   nothing
                   backward, ``b·s·k·h`` bytes each
=================  ==========================================================  ==============

Data-parallel gradients are reduced over ``d·c`` ranks (context-parallel ranks hold the same
weights), and ZeRO shards over the same ``d·c``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pint
from pydantic import Field, model_validator

from mlcost.comms import Topology, _collective_seconds, bus_bandwidth_factor, placement
from mlcost.errors import MlcostError
from mlcost.specs._base import Model, PositiveInt
from mlcost.units import Q_

Number = Any
LayoutRecompute = Literal["none", "selective", "full"]

#: Default DDP bucket: ``bucket_cap_mb=25`` (PyTorch ``DistributedDataParallel`` docs; Li et al.
#: 2020, "PyTorch Distributed", VLDB, section 3.2.3). The last bucket cannot overlap backward.
DEFAULT_BUCKET = Q_(25, "MB")


class Layout(Model):
    """How one training run is split across GPUs (the execution strategy).

    ``global_batch_size`` (sequences per optimizer step) or ``gradient_accumulation`` (micro-
    batches per step per data-parallel replica) fixes the number of micro-batches
    ``m = global_batch / (dp · micro_batch)``; with neither, ``m = 1``. ``recompute`` overrides
    the training config's when given. ``virtual_stages`` > 1 is Megatron's interleaved 1F1B
    schedule (Narayanan et al. 2021, section 2.2.2). ``ep`` splits the experts of an MoE model
    over ``ep`` of the data-parallel ranks.
    """

    dp: PositiveInt = 1
    tp: PositiveInt = 1
    pp: PositiveInt = 1
    cp: PositiveInt = 1
    ep: PositiveInt = 1
    micro_batch_size: PositiveInt = 1
    global_batch_size: PositiveInt | None = None
    gradient_accumulation: PositiveInt | None = None
    zero_stage: Literal[0, 1, 2, 3] = 0
    sequence_parallel: bool = False
    virtual_stages: PositiveInt = 1
    recompute: LayoutRecompute | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Layout:
        per_step = self.dp * self.micro_batch_size
        if (
            self.global_batch_size is not None
            and self.gradient_accumulation is not None
            and self.global_batch_size != per_step * self.gradient_accumulation
        ):
            raise ValueError(
                f"global_batch_size: got {self.global_batch_size}, but dp x micro_batch_size"
                f" x gradient_accumulation = {per_step * self.gradient_accumulation}; "
                "give one of the two"
            )
        if self.global_batch_size is not None and self.global_batch_size % per_step:
            raise ValueError(
                f"global_batch_size: got {self.global_batch_size}, expected a multiple of "
                f"dp x micro_batch_size = {self.dp} x {self.micro_batch_size} = {per_step}"
            )
        if self.virtual_stages > 1 and self.pp == 1:
            raise ValueError(
                f"virtual_stages: got {self.virtual_stages}, expected 1 without pipeline "
                "parallelism (pp = 1)"
            )
        if self.dp % self.ep:
            raise ValueError(
                f"ep: got {self.ep}, expected a divisor of dp = {self.dp} (experts are split "
                "over data-parallel ranks)"
            )
        return self

    @property
    def gpus(self) -> int:
        """``dp x tp x pp x cp`` (expert parallelism reuses the data-parallel ranks)."""
        return self.dp * self.tp * self.pp * self.cp

    @property
    def micro_batches(self) -> int:
        """Micro-batches per optimizer step per data-parallel replica (``m``)."""
        if self.gradient_accumulation is not None:
            return self.gradient_accumulation
        if self.global_batch_size is not None:
            return self.global_batch_size // (self.dp * self.micro_batch_size)
        return 1

    @property
    def global_batch(self) -> int:
        """Sequences per optimizer step: ``dp x micro_batch x m``."""
        return self.dp * self.micro_batch_size * self.micro_batches

    def check_model(self, layers: int, heads: int) -> None:
        """Raise MlcostError where the model cannot be split this way."""
        if layers % (self.pp * self.virtual_stages):
            raise MlcostError(
                f"pp: {self.pp} stages x {self.virtual_stages} virtual stages must divide the "
                f"model's {layers} layers"
            )
        if heads % self.tp:
            raise MlcostError(
                f"tp: got {self.tp}, expected a divisor of the {heads} attention heads"
            )

    def describe(self) -> str:
        parts = [f"dp={self.dp}", f"tp={self.tp}", f"pp={self.pp}"]
        if self.virtual_stages > 1:
            parts.append(f"v={self.virtual_stages}")
        if self.cp > 1:
            parts.append(f"cp={self.cp}")
        if self.ep > 1:
            parts.append(f"ep={self.ep}")
        parts.append(f"mb={self.micro_batch_size}")
        parts.append(f"m={self.micro_batches}")
        if self.zero_stage:
            parts.append(f"ZeRO-{self.zero_stage}")
        if self.sequence_parallel:
            parts.append("SP")
        if self.recompute:
            parts.append(f"recompute {self.recompute}")
        return " ".join(parts)


class MixtureOfExperts(Model):
    """The MoE part of a model, for expert-parallel traffic: ``top_k`` experts per token in one
    of every ``every`` layers (the rest dense). Fedus et al. 2022 (Switch, ``top_k`` = 1) and
    Lepikhin et al. 2021 (GShard, ``top_k`` = 2, every other layer)."""

    num_experts: PositiveInt
    top_k: PositiveInt = 2
    every: PositiveInt = Field(default=1, description="one MoE layer every this many layers")


@dataclass(frozen=True)
class Degrees:
    """Layout parameters as numpy arrays (one element per candidate; broadcastable)."""

    dp: np.ndarray
    tp: np.ndarray
    pp: np.ndarray
    cp: np.ndarray
    ep: np.ndarray
    micro_batch: np.ndarray
    micro_batches: np.ndarray
    zero: np.ndarray
    sequence_parallel: np.ndarray
    virtual: np.ndarray
    recompute_fraction: np.ndarray  # share of layers fully recomputed (0..1)

    @classmethod
    def of(cls, layout: Layout, recompute_fraction: float) -> Degrees:
        def a(value: Any) -> np.ndarray:
            return np.asarray(value)

        return cls(
            dp=a(layout.dp),
            tp=a(layout.tp),
            pp=a(layout.pp),
            cp=a(layout.cp),
            ep=a(layout.ep),
            micro_batch=a(layout.micro_batch_size),
            micro_batches=a(layout.micro_batches),
            zero=a(layout.zero_stage),
            sequence_parallel=a(layout.sequence_parallel),
            virtual=a(layout.virtual_stages),
            recompute_fraction=a(recompute_fraction),
        )

    @property
    def gpus(self) -> np.ndarray:
        return self.dp * self.tp * self.pp * self.cp


@dataclass(frozen=True)
class ShardCompute:
    """Compute seconds on one GPU (arrays): one micro-batch on the busiest pipeline stage, its
    forward and backward parts, its attention kernels, and the optimizer update per step."""

    micro_batch: np.ndarray
    forward: np.ndarray
    backward: np.ndarray
    attention: np.ndarray
    optimizer: np.ndarray


@dataclass(frozen=True)
class CommTerm:
    """One communication term of a step, per GPU: what is sent, how often, over which link,
    how long it takes in all, and how much of that is exposed (not hidden behind compute)."""

    strategy: str
    collective: str
    message: pint.Quantity  # bytes per call (whole array for reduce-scatter/all-gather)
    calls: Number  # per optimizer step
    ranks: Number
    link: Any  # "intra-node", "inter-node" or "intra+inter" (array in sweeps)
    time: pint.Quantity  # all calls of a step
    exposed: pint.Quantity
    formula: str
    source: str

    @property
    def hidden(self) -> pint.Quantity:
        return (self.time - self.exposed).to("s")

    @property
    def bytes(self) -> pint.Quantity:
        """Bytes moved by the calls of one step (message x calls)."""
        return (self.message * self.calls).to("byte")

    @property
    def sent(self) -> pint.Quantity:
        """Bytes each GPU sends per step: message x calls x the nccl-tests bus factor (what a
        ring puts on each GPU's link)."""
        collective = self.collective.split(" ")[0]  # "all-reduce (reduce-scatter + ...)"
        factor = bus_bandwidth_factor(collective, np.maximum(np.asarray(self.ranks), 1))
        return (self.message * self.calls * factor).to("byte")


@dataclass(frozen=True)
class ModelDims:
    """The model numbers the traffic depends on."""

    parameters: float
    layers: int
    hidden: int
    kv_width: int  # kv heads x head size
    sequence: int
    activation_bytes: float
    gradient_bytes: float
    weight_bytes: float


# ----- volumes (the papers' units) -------------------------------------------------------------
def zero_communication_volume(
    parameters: pint.Quantity, zero_stage: int, ranks: Number | None = None
) -> pint.Quantity:
    """Elements each GPU sends per step under data parallelism with ZeRO ``zero_stage``, in
    units of the model size ``Psi`` (Rajbhandari et al. 2020, section 7):

    * stage 0 (plain DP): all-reduce = reduce-scatter + all-gather, ``2·Psi``;
    * stages 1 and 2: reduce-scatter of gradients + all-gather of parameters, ``2·Psi``;
    * stage 3: all-gather in forward, all-gather in backward, reduce-scatter: ``3·Psi`` (1.5x).

    With ``ranks`` the ring's exact ``(n-1)/n`` per collective is applied (the paper's figures are
    the large-``n`` limit, ``ranks=None``). One micro-batch per step.
    """
    if zero_stage not in (0, 1, 2, 3):
        raise MlcostError(f"zero_stage: got {zero_stage!r}, expected 0, 1, 2 or 3")
    psi = parameters.to("param")
    collectives = 3 if zero_stage == 3 else 2
    if ranks is None:
        return psi * collectives
    n = np.asarray(ranks, dtype=np.float64)
    return psi * collectives * (n - 1) / n


def data_parallel_traffic(
    parameters: pint.Quantity, bytes_per_gradient: float, ranks: Number
) -> pint.Quantity:
    """Bytes each GPU sends in a ring all-reduce of the gradients: ``2(n-1)/n · Psi · e_g``
    (Patarasuk and Yuan 2009; the chapter's footnote "2(N-1)/N x the data")."""
    n = np.asarray(ranks, dtype=np.float64)
    return (parameters.to("param").magnitude * bytes_per_gradient * 2 * (n - 1) / n) * Q_(1, "byte")


def tensor_parallel_traffic(
    micro_batch: Number,
    sequence: Number,
    hidden: int,
    layers: Number,
    bytes_per_activation: float = 2.0,
    *,
    full_recompute: bool = False,
) -> pint.Quantity:
    """Bytes all-reduced per micro-batch by Megatron tensor parallelism: ``(4 [+2]) · L · b·s·h·e``.

    Shoeybi et al. 2019 (Megatron-LM), section 3 and Figure 4: the ``g`` operator all-reduces the
    output of the attention block and of the MLP in forward (2 per layer), the ``f`` operator the
    input gradients in backward (2 per layer). Full recomputation repeats the forward pair
    (Korthikanti et al. 2022, section 5). Sequence parallelism replaces each all-reduce by a
    reduce-scatter + all-gather of the same size (Korthikanti et al. 2022, section 4.2.2).
    """
    calls = 4 + (2 if full_recompute else 0)
    return Q_(calls * layers * micro_batch * sequence * hidden * bytes_per_activation, "byte")


def pipeline_bubble_fraction(stages: Number, micro_batches: Number, virtual: Number = 1) -> Number:
    """Pipeline bubble over ideal compute time: ``(p-1)/m`` for 1F1B (and GPipe), ``(p-1)/(v·m)``
    for the interleaved schedule with ``v`` model chunks per GPU (Narayanan et al. 2021,
    "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", sections
    2.2.1 and 2.2.2)."""
    p = np.asarray(stages, dtype=np.float64)
    m = np.asarray(micro_batches, dtype=np.float64)
    v = np.asarray(virtual, dtype=np.float64)
    if np.any(m < 1) or np.any(p < 1) or np.any(v < 1):
        raise MlcostError(
            f"pipeline_bubble_fraction: got p={stages!r}, m={micro_batches!r}, v={virtual!r}; "
            "expected counts >= 1"
        )
    result = (p - 1) / (v * m)
    return result.item() if result.ndim == 0 else result


# ----- the terms of one step (vectorized over candidates) --------------------------------------
def _share(numerator: Any, denominator: Any) -> Any:
    denominator = np.asarray(denominator, dtype=np.float64)
    safe = np.where(denominator > 0, denominator, 1.0)
    return np.where(denominator > 0, numerator / safe, 0.0)


def _link_name(where: Any) -> Any:
    single = where.nodes <= 1
    only_inter = where.per_node <= 1
    return np.where(single, "intra-node", np.where(only_inter, "inter-node", "intra+inter"))


def communication_terms(
    dims: ModelDims,
    topo: Topology,
    degrees: Degrees,
    compute: ShardCompute,
    *,
    gpus_per_node: Number,
    bucket: pint.Quantity = DEFAULT_BUCKET,
    tensor_parallel_overlap: float = 0.0,
    overlap: bool = True,
    moe: MixtureOfExperts | None = None,
) -> list[CommTerm]:
    """Every communication term of one optimizer step, per GPU (see the module docstring).

    ``compute`` gives the windows communication can hide in; ``overlap=False`` exposes all of
    it (the no-overlap upper bound). ``tensor_parallel_overlap`` is the share of tensor-parallel
    traffic hidden (0 by default: Megatron's TP all-reduces sit on the critical path unless a
    comm/GEMM overlap such as Transformer Engine's userbuffers is turned on).
    """
    d = degrees
    m = d.micro_batches.astype(np.float64)
    layers_per_stage = dims.layers / d.pp
    tokens = d.micro_batch * dims.sequence / d.cp
    sp = d.sequence_parallel.astype(bool)
    terms: list[CommTerm] = []
    keep = 1.0 if overlap else 0.0

    def seconds(collective: str, size: Any, ranks: Any, stride: Any) -> tuple[Any, Any]:
        where = placement(topo, ranks, stride, gpus_per_node=gpus_per_node)
        return _collective_seconds(topo, collective, size, where), where

    def add(
        strategy: str,
        collective: str,
        message: Any,
        calls: Any,
        ranks: Any,
        where: Any,
        total: Any,
        exposed: Any,
        formula: str,
        source: str,
    ) -> None:
        active = np.asarray(ranks) > 1
        total = np.where(active, total, 0.0)
        exposed = np.clip(np.where(active, exposed, 0.0), 0.0, total)
        terms.append(
            CommTerm(
                strategy=strategy,
                collective=collective,
                message=Q_(np.where(active, message, 0.0), "byte"),
                calls=np.where(active, calls, 0),
                ranks=ranks,
                link=np.where(active, _link_name(where), "none"),
                time=Q_(total, "s"),
                exposed=Q_(exposed, "s"),
                formula=formula,
                source=source,
            )
        )

    # tensor parallel: 2 + 2 per layer and micro-batch (+2 recomputed), group tp, stride 1
    activation = tokens * dims.hidden * dims.activation_bytes
    calls = m * layers_per_stage * (4 + 2 * d.recompute_fraction)
    ar, where = seconds("all-reduce", activation, d.tp, 1)
    rs, _ = seconds("reduce-scatter", activation, d.tp, 1)
    ag, _ = seconds("all-gather", activation, d.tp, 1)
    per_call = np.where(sp, rs + ag, ar)
    total = calls * per_call
    add(
        "tensor parallel",
        "all-reduce (reduce-scatter + all-gather with SP)",
        activation,
        calls,
        d.tp,
        where,
        total,
        total * (1 - tensor_parallel_overlap * keep),
        "m x L/p x (2 fwd + 2 bwd [+2 recompute]) x collective(b·s/c·h·e) over t ranks",
        "Shoeybi et al. 2019, section 3, Fig. 4; Korthikanti et al. 2022, section 4.2.2",
    )

    # context parallel (ring attention): K,V blocks circulate, c-1 steps per pass
    kv_block = 2 * tokens * dims.kv_width * dims.activation_bytes / d.tp
    passes = 3 + d.recompute_fraction  # forward KV; backward KV + dKV; recomputed forward
    calls = m * layers_per_stage * (d.cp - 1) * passes
    p2p, where = seconds("point-to-point", kv_block, d.cp, d.tp)
    total = calls * p2p
    window = m * compute.attention * keep
    add(
        "context parallel",
        "point-to-point (ring)",
        kv_block,
        calls,
        d.cp,
        where,
        total,
        np.maximum(0.0, total - window),
        "m x L/p x (c-1) x 3 passes x p2p(2·b·s/c·kv·e / t); hidden behind attention compute",
        "Liu et al. 2023 (Ring Attention), section 3; Megatron-LM context parallelism",
    )

    # pipeline parallel: activations forward, gradients backward, per micro-batch and chunk
    boundary = tokens * dims.hidden * dims.activation_bytes / d.tp
    calls = 2 * m * d.virtual
    p2p, where = seconds("point-to-point", boundary, d.pp, d.tp * d.cp * d.dp)
    total = calls * p2p
    critical = 2 * (d.pp - 1) * d.virtual * p2p
    add(
        "pipeline parallel",
        "point-to-point",
        boundary,
        calls,
        d.pp,
        where,
        total,
        np.where(keep > 0, np.minimum(total, critical), total),
        "2 x m x v sends of b·s/c·h·e / t (scatter/gather); 2(p-1)·v on the fill/drain path",
        "Narayanan et al. 2021, sections 2.2 and 4.1",
    )

    # data parallel and ZeRO over d·c ranks (stride t)
    replicas = d.dp * d.cp
    psi = dims.parameters / (d.tp * d.pp)
    gradients = psi * dims.gradient_bytes
    weights = psi * dims.weight_bytes
    bucket_bytes = np.minimum(bucket.to("byte").magnitude, gradients)
    backward_window = compute.backward * keep
    forward_window = compute.forward * keep
    zero = d.zero

    ar, where = seconds("all-reduce", gradients, replicas, d.tp)
    ar_bucket, _ = seconds("all-reduce", bucket_bytes, replicas, d.tp)
    rs, _ = seconds("reduce-scatter", gradients, replicas, d.tp)
    rs_bucket, _ = seconds("reduce-scatter", bucket_bytes, replicas, d.tp)
    ag, _ = seconds("all-gather", weights, replicas, d.tp)

    def overlapped(total: Any, last_bucket: Any, window: Any) -> Any:
        hidden_ok = np.maximum(last_bucket, total - window)
        return np.where(keep > 0, hidden_ok, total)

    plain = zero == 0
    add(
        "data parallel",
        "all-reduce",
        gradients,
        np.where(plain, 1, 0),
        np.where(plain, replicas, 1),
        where,
        ar,
        overlapped(ar, ar_bucket, backward_window),
        "all-reduce(Psi·e_g) once per step over d·c ranks; all but the last 25 MB bucket "
        "hides behind the last micro-batch's backward",
        "Li et al. 2020 (PyTorch DDP), section 3.2.3; Patarasuk and Yuan 2009",
    )
    # ZeRO-1: one reduce-scatter per step; ZeRO-2: one per micro-batch (sharded gradients)
    staged = (zero == 1) | (zero == 2)
    rs_calls = np.where(zero == 2, m, 1)
    rs_exposed_one = overlapped(rs, rs_bucket, backward_window)
    add(
        "ZeRO-1/2 gradients",
        "reduce-scatter",
        gradients,
        np.where(staged, rs_calls, 0),
        np.where(staged, replicas, 1),
        where,
        rs_calls * rs,
        rs_calls * rs_exposed_one,
        "reduce-scatter(Psi·e_g) once per step (ZeRO-1) or per micro-batch (ZeRO-2), "
        "overlapped with backward",
        "Rajbhandari et al. 2020, sections 5.2 and 7.2.1",
    )
    add(
        "ZeRO-1/2 parameters",
        "all-gather",
        weights,
        np.where(staged, 1, 0),
        np.where(staged, replicas, 1),
        where,
        ag,
        ag,
        "all-gather(Psi·e_w) of the updated shards after the optimizer step (exposed)",
        "Rajbhandari et al. 2020, section 7.2.1",
    )
    # ZeRO-3: per micro-batch gather in forward and in backward, reduce-scatter the gradients
    full = zero == 3
    layer_share = 1.0 / layers_per_stage
    forward_exposed = np.where(keep > 0, np.maximum(ag * layer_share, ag - forward_window), ag)
    backward_comm = ag + rs
    backward_exposed = np.where(
        keep > 0,
        np.maximum(backward_comm * layer_share, backward_comm - backward_window),
        backward_comm,
    )
    add(
        "ZeRO-3 parameters",
        "all-gather",
        weights,
        np.where(full, 2 * m, 0),
        np.where(full, replicas, 1),
        where,
        2 * m * ag,
        m * (forward_exposed + _share(backward_exposed * ag, backward_comm)),
        "2 x m x all-gather(Psi·e_w): before each forward and each backward, prefetched layer "
        "by layer (one layer's gather is exposed)",
        "Rajbhandari et al. 2020, sections 5.3 and 7.2.2",
    )
    add(
        "ZeRO-3 gradients",
        "reduce-scatter",
        gradients,
        np.where(full, m, 0),
        np.where(full, replicas, 1),
        where,
        m * rs,
        m * _share(backward_exposed * rs, backward_comm),
        "m x reduce-scatter(Psi·e_g), overlapped with backward",
        "Rajbhandari et al. 2020, sections 5.3 and 7.2.2",
    )

    # expert parallel: dispatch + combine all-to-all, forward and backward, per MoE layer
    if moe is not None:
        moe_layers = layers_per_stage / moe.every
        routed = tokens / np.where(sp, d.tp, 1) * moe.top_k * dims.hidden * dims.activation_bytes
        calls = m * moe_layers * (4 + 2 * d.recompute_fraction)
        a2a, where = seconds("all-to-all", routed, d.ep, d.tp * d.cp)
        total = calls * a2a
        add(
            "expert parallel",
            "all-to-all",
            routed,
            calls,
            d.ep,
            where,
            total,
            total,
            "m x MoE layers x (2 fwd + 2 bwd) x all-to-all(b·s/c·k·h·e) over e ranks",
            "Lepikhin et al. 2021 (GShard), section 3.2; Fedus et al. 2022 (Switch), section 2",
        )
    elif np.any(d.ep > 1):
        raise MlcostError(
            "ep: expert parallelism needs the model's experts; pass moe=MixtureOfExperts(...)"
        )
    return terms
