"""What each parallelism strategy sends, when, and how much of it hides behind compute.

Ranks are numbered tensor-fastest, then context, data and pipeline (Megatron-LM's default order
"tp-cp-dp-pp"), so the ``t`` ranks of a tensor-parallel group are neighbours inside a node.

Per optimizer step and per GPU, with ``Psi`` the parameters held by a GPU's model replica
(``P/(t·p)``), ``m`` micro-batches of ``b`` sequences of ``s`` tokens, hidden size ``h`` and
``n`` layers on the most loaded pipeline stage (each line's source in the function that builds
it):

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
expert parallel    per MoE layer: dispatch + combine all-to-all forward and   nothing (or
                   backward, ``b·s·k·h`` bytes each; the routed experts'      another micro-
                   gradients are ``1/e`` of theirs                            batch's compute)
=================  ==========================================================  ==============

Data-parallel gradients are reduced over ``d·c`` ranks (context-parallel ranks hold the same
weights), and ZeRO shards over the same ``d·c``. Each strategy is one function returning its
:class:`CommTerm` s; :func:`communication_terms` concatenates them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from mlcost.arrays import Real
from mlcost.comms import Collective, collective_seconds, placement
from mlcost.comms.placement import GroupPlacement
from mlcost.errors import MlcostError
from mlcost.parallel.degrees import (
    CommOptions,
    CommTerm,
    Degrees,
    ModelDims,
    ShardCompute,
)
from mlcost.records import Record, replace
from mlcost.systems import System
from mlcost.units import in_unit


def _share(numerator: Any, denominator: Any) -> Any:
    """``numerator / denominator`` where the denominator is positive, else 0 (one division,
    written into zeros only where it is defined)."""
    numerator, denominator = np.broadcast_arrays(
        np.asarray(numerator, dtype=np.float64), np.asarray(denominator, dtype=np.float64)
    )
    out = np.zeros(numerator.shape)
    return np.divide(numerator, denominator, out=out, where=denominator > 0)


def _link_code(where: GroupPlacement) -> Any:
    """0 inside one node, 1 one GPU per node (inter-node only), 2 both
    (:data:`mlcost.parallel.degrees.LINK_NAMES`): ``spans x (1 + shares)`` with ``spans`` the
    group crossing nodes and ``shares`` more than one of its GPUs on a node."""
    spans = np.asarray(where.nodes) > 1
    shares = np.asarray(where.per_node) > 1
    return spans * (1 + shares)


class TermSpec(Record, frozen=True):
    """What a communication term is, whatever the candidates: its strategy, collective, how
    it is shown, its formula and source, and whether its calls are counted in whole numbers
    (the type its call count has, so an inactive term carries the same type as an active one)."""

    strategy: str
    collective: Collective
    label: str
    formula: str
    source: str
    whole_calls: bool = False


TENSOR_PARALLEL = TermSpec(
    "tensor parallel",
    Collective.ALL_REDUCE,
    "all-reduce (reduce-scatter + all-gather with SP)",
    "m x L/p x (2 fwd + 2 bwd [+2 recompute]) x collective(b·s/c·h·e) over t ranks; "
    "with tp_overlap, what outlasts the layers' GEMMs",
    "Shoeybi et al. 2019, section 3, Fig. 4; Korthikanti et al. 2022, section 4.2.2; "
    "Transformer Engine userbuffers (--tp-comm-overlap)",
)
CONTEXT_PARALLEL = TermSpec(
    "context parallel",
    Collective.POINT_TO_POINT,
    "point-to-point (ring)",
    "m x L/p x (c-1) x 3 passes x p2p(2·b·s/c·kv·e / t); hidden behind attention compute",
    "Liu et al. 2023 (Ring Attention), section 3; Megatron-LM context parallelism",
)
PIPELINE_PARALLEL = TermSpec(
    "pipeline parallel",
    Collective.POINT_TO_POINT,
    "point-to-point",
    "2 x m x v sends of b·s/c·h·e / t (scatter/gather); 2(p-1)·v on the fill/drain path",
    "Narayanan et al. 2021, sections 2.2 and 4.1",
    whole_calls=True,
)
DATA_PARALLEL = TermSpec(
    "data parallel",
    Collective.ALL_REDUCE,
    "all-reduce",
    "all-reduce(Psi·e_g) once per step over d·c ranks; all but the last 25 MB bucket "
    "hides behind the last micro-batch's backward",
    "Li et al. 2020 (PyTorch DDP), section 3.2.3; Patarasuk and Yuan 2009",
    whole_calls=True,
)
ZERO_GRADIENTS = TermSpec(
    "ZeRO-1/2 gradients",
    Collective.REDUCE_SCATTER,
    "reduce-scatter",
    "reduce-scatter(Psi·e_g) once per step (ZeRO-1) or per micro-batch (ZeRO-2), "
    "overlapped with backward",
    "Rajbhandari et al. 2020, sections 5.2 and 7.2.1",
)
ZERO_PARAMETERS = TermSpec(
    "ZeRO-1/2 parameters",
    Collective.ALL_GATHER,
    "all-gather",
    "all-gather(Psi·e_w) of the updated shards after the optimizer step (exposed, or "
    "behind the next first forward with overlap_param_gather)",
    "Rajbhandari et al. 2020, section 7.2.1",
    whole_calls=True,
)
ZERO3_PARAMETERS = TermSpec(
    "ZeRO-3 parameters",
    Collective.ALL_GATHER,
    "all-gather",
    "2 x m x all-gather(Psi·e_w): before each forward and each backward, prefetched "
    "layer by layer (one layer's gather is exposed)",
    "Rajbhandari et al. 2020, sections 5.3 and 7.2.2",
)
ZERO3_GRADIENTS = TermSpec(
    "ZeRO-3 gradients",
    Collective.REDUCE_SCATTER,
    "reduce-scatter",
    "m x reduce-scatter(Psi·e_g), overlapped with backward",
    "Rajbhandari et al. 2020, sections 5.3 and 7.2.2",
)
EXPERT_PARALLEL = TermSpec(
    "expert parallel",
    Collective.ALL_TO_ALL,
    "all-to-all",
    "m x MoE layers/p x (2 fwd + 2 bwd [+2 recompute]) x all-to-all(b·s/c·k·h·e) over "
    "e ranks; exposed unless the software overlaps it",
    "Lepikhin et al. 2021 (GShard), section 3.2; Fedus et al. 2022 (Switch), section 2",
)


class _Terms(Record, frozen=True):
    """What every strategy's term builder needs, and how a term is recorded."""

    dims: ModelDims
    system: System
    degrees: Degrees
    compute: ShardCompute
    gpus_per_node: Real
    options: CommOptions

    @property
    def keep(self) -> float:
        """1 when communication may hide behind compute, 0 for the no-overlap bound."""
        return 1.0 if self.options.overlap else 0.0

    @property
    def tokens(self) -> Any:
        """Tokens of one micro-batch on one GPU (context parallelism splits the sequence)."""
        return self.degrees.micro_batch * self.dims.sequence / self.degrees.cp

    def at(self, index: np.ndarray) -> _Terms:
        """The same terms for the candidates at ``index`` only."""
        size = np.size(self.degrees.dp)

        def rows(value: Any) -> Any:
            array = np.asarray(value)
            return array[index] if array.ndim == 1 and array.shape[0] == size else value

        def taken(columns: Any) -> Any:
            return replace(
                columns,
                **{name: rows(getattr(columns, name)) for name in columns.__struct_fields__},
            )

        return replace(
            self,
            degrees=taken(self.degrees),
            compute=taken(self.compute),
            gpus_per_node=rows(self.gpus_per_node),
        )

    def seconds(
        self,
        collective: Collective,
        size: Any,
        ranks: Any,
        stride: Any,
        where: GroupPlacement | None = None,
    ) -> tuple:
        """Seconds of one ``collective`` of ``size`` bytes over groups of ``ranks`` GPUs
        ``stride`` apart, and the groups' placement (``where``: the placement an earlier
        collective on the same groups returned, not worked out again). Groups of one rank
        everywhere (a parallelism the candidates do not use) skip the placement and the
        algorithms: every term built on them is inactive, recorded with no time and no link
        (:meth:`term`)."""
        n = np.asarray(ranks, dtype=np.float64)
        if not np.any(n > 1):  # one GPU on one node: nothing crosses a link
            one = np.ones_like(n)
            alone = GroupPlacement(n, one, one, np.inf, np.inf, 0.0, 0.0)
            return np.zeros(np.broadcast_shapes(np.shape(size), n.shape)), alone
        if where is None:
            where = placement(self.system, ranks, stride, gpus_per_node=self.gpus_per_node)
        return collective_seconds(self.system, collective, size, where), where

    def seconds_of(
        self,
        collective: Collective,
        sizes: tuple[Any, ...],
        ranks: Any,
        stride: Any,
        where: GroupPlacement | None = None,
    ) -> tuple[list[Any], Any]:
        """:meth:`seconds` of several message sizes on the same groups, evaluated in one call
        (the sizes stacked on a leading axis: the same arithmetic element by element)."""
        stacked = np.stack(np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in sizes)))
        times, where = self.seconds(collective, stacked, ranks, stride, where)
        return list(np.broadcast_to(times, (len(sizes), *np.shape(times)[1:]))), where

    def unused(self, ranks: Any) -> bool:
        """Whether every candidate's group has one rank (a parallelism none of them uses)."""
        return not np.any(np.asarray(ranks) > 1)

    def inactive(self, spec: TermSpec, ranks: Any) -> CommTerm:
        """``spec``'s term where no candidate's group has more than one rank: no message, calls,
        time or link, what :meth:`term` records for such groups, without evaluating the
        strategy's formulas (a single layout leaves most strategies unused)."""
        shape = np.broadcast_shapes(np.shape(ranks), np.shape(self.degrees.dp))
        return CommTerm(
            strategy=spec.strategy,
            collective=spec.collective,
            label=spec.label,
            message_bytes=np.zeros(shape),
            calls=np.zeros(shape, dtype=np.int64 if spec.whole_calls else np.float64),
            ranks=ranks,
            link_code=np.full(shape, 3),
            time_seconds=np.zeros(shape),
            exposed_seconds=np.zeros(shape),
            formula=spec.formula,
            source=spec.source,
        )

    def term(
        self,
        spec: TermSpec,
        message: Any,
        calls: Any,
        ranks: Any,
        where: GroupPlacement,
        total: Any,
        exposed: Any,
    ) -> CommTerm:
        """``spec``'s term: the values of the candidates whose group has more than one rank,
        nothing (no message, calls, time or link) for the others."""
        active = np.asarray(ranks) > 1
        total = np.where(active, total, 0.0)
        exposed = np.clip(np.where(active, exposed, 0.0), 0.0, total)
        return CommTerm(
            strategy=spec.strategy,
            collective=spec.collective,
            label=spec.label,
            message_bytes=np.where(active, message, 0.0),
            calls=np.where(active, calls, 0),
            ranks=ranks,
            link_code=np.where(active, _link_code(where), 3),
            time_seconds=total,
            exposed_seconds=exposed,
            formula=spec.formula,
            source=spec.source,
        )


def tensor_parallel_terms(c: _Terms) -> list[CommTerm]:
    """2 + 2 collectives per layer and micro-batch (+2 recomputed) over the ``t`` ranks (stride
    1), all-reduce or reduce-scatter + all-gather with SP (Shoeybi et al. 2019, section 3,
    Fig. 4; Korthikanti et al. 2022, section 4.2.2)."""
    d = c.degrees
    if c.unused(d.tp):
        return [c.inactive(TENSOR_PARALLEL, d.tp)]
    activation = c.tokens * c.dims.hidden * c.dims.activation_bytes
    calls = d.micro_batches * d.stage_layers * (4 + 2 * d.recompute_fraction)
    ar, where = c.seconds(Collective.ALL_REDUCE, activation, d.tp, 1)
    rs, _ = c.seconds(Collective.REDUCE_SCATTER, activation, d.tp, 1, where)
    ag, _ = c.seconds(Collective.ALL_GATHER, activation, d.tp, 1, where)
    sequence_parallel = np.asarray(d.sequence_parallel, dtype=bool)
    total = calls * np.where(sequence_parallel, rs + ag, ar)
    # Overlapped with the layer's GEMMs (Transformer Engine userbuffers: the all-gather pipelined
    # with the GEMM after it, the reduce-scatter with the GEMM before it): only what outlasts
    # them stays exposed.
    window = d.micro_batches * c.compute.layer_gemm * c.keep
    overlapped = np.asarray(d.tp_overlap, dtype=bool) & (c.keep > 0)
    exposed = np.where(overlapped, np.maximum(0.0, total - window), total)
    if c.options.sequence_parallel_regather:
        # The all-gathers before the QKV and first MLP GEMMs, redone in backward for their
        # weight gradients, each behind its input-gradient GEMM (REGATHER_WINDOW of the
        # layer's GEMM time); with tp_overlap, in the layer's window as the rest.
        redo_calls = np.where(sequence_parallel, d.micro_batches * d.stage_layers * 2, 0)
        redo = redo_calls * ag
        behind = d.micro_batches * c.compute.layer_gemm * REGATHER_WINDOW * c.keep
        exposed = np.where(
            overlapped,
            np.maximum(0.0, total + redo - window),
            exposed + np.maximum(0.0, redo - behind),
        )
        total = total + redo
        calls = calls + 0.5 * redo_calls  # one all-gather is half a reduce-scatter + all-gather
    return [c.term(TENSOR_PARALLEL, activation, calls, d.tp, where, total, exposed)]


#: The share of a layer's GEMM time (forward, input and weight gradients of its four GEMMs)
#: that the input-gradient GEMMs of the QKV and first MLP projections take, what the
#: sequence-parallel all-gather redone in backward hides behind: their weights are ``3h²`` and
#: ``4h²`` (GELU MLP of ``4h``) of the layer's ``12h²``, and the input gradient is one of the
#: three passes of equal FLOPs: ``(7/12)·(1/3) = 7/36`` (Megatron-LM
#: megatron/core/tensor_parallel/layers.py, LinearWithGradAccumulationAndAsyncCommunication.
#: backward: the all-gather is issued asynchronously, then the input-gradient GEMM runs).
REGATHER_WINDOW = 7 / 36


def context_parallel_terms(c: _Terms) -> list[CommTerm]:
    """Ring attention: K,V blocks circulate, ``c-1`` steps per pass, forward KV, backward KV +
    dKV and the recomputed forward; hidden behind the attention compute (Liu et al. 2023)."""
    d = c.degrees
    if c.unused(d.cp):
        return [c.inactive(CONTEXT_PARALLEL, d.cp)]
    kv_block = 2 * c.tokens * c.dims.kv_width * c.dims.activation_bytes / d.tp
    passes = 3 + d.recompute_fraction
    calls = d.micro_batches * d.stage_layers * (d.cp - 1) * passes
    p2p, where = c.seconds(Collective.POINT_TO_POINT, kv_block, d.cp, d.tp)
    total = calls * p2p
    window = d.micro_batches * c.compute.attention * c.keep
    exposed = np.maximum(0.0, total - window)
    return [c.term(CONTEXT_PARALLEL, kv_block, calls, d.cp, where, total, exposed)]


def pipeline_terms(c: _Terms) -> list[CommTerm]:
    """Activations forward and gradients backward per micro-batch and chunk, ``b·s/c·h·e/t``
    each (scatter/gather); the ``2(p-1)·v`` sends of fill and drain are exposed (Narayanan et
    al. 2021, sections 2.2 and 4.1)."""
    d = c.degrees
    if c.unused(d.pp):
        return [c.inactive(PIPELINE_PARALLEL, d.pp)]
    boundary = c.tokens * c.dims.hidden * c.dims.activation_bytes / d.tp
    calls = 2 * d.micro_batches * d.virtual
    p2p, where = c.seconds(Collective.POINT_TO_POINT, boundary, d.pp, d.tp * d.cp * d.dp)
    total = calls * p2p
    critical = 2 * (d.pp - 1) * d.virtual * p2p
    if c.options.pipeline_sends_exposed:  # blocking send/receive pairs every micro-batch
        critical = total
    exposed = np.where(c.keep > 0, np.minimum(total, critical), total)
    return [c.term(PIPELINE_PARALLEL, boundary, calls, d.pp, where, total, exposed)]


def _gradient_sizes(c: _Terms) -> tuple[Any, Any, Any]:
    """Gradient and weight bytes of one replica's shard ``Psi = P/(t·p)``, and the bucket."""
    d = c.degrees
    # Expert parallelism shards the routed experts over its e ranks (their gradients are then
    # reduced over the d·c/e ranks holding the same experts; the bytes per GPU are what count).
    experts = c.dims.expert_parameters
    psi = (c.dims.parameters - experts + experts / d.ep) / (d.tp * d.pp)
    gradients = psi * c.dims.gradient_bytes
    bucket = np.minimum(in_unit(c.options.bucket, "byte"), gradients)
    return gradients, psi * c.dims.weight_bytes, bucket


def _overlapped(c: _Terms, total: Any, last_bucket: Any, window: Any) -> Any:
    """Exposed part of ``total`` hidden behind ``window`` but for the last bucket (all of it
    when the software does not overlap gradient reduction)."""
    hides = c.keep > 0 and c.options.overlap_grad_reduce
    return np.where(hides, np.maximum(last_bucket, total - window), total)


def data_parallel_terms(c: _Terms) -> list[CommTerm]:
    """Plain data parallelism: one all-reduce of the gradients per step over ``d·c`` ranks
    (stride ``t``), all but the last bucket hidden behind the last micro-batch's backward (Li et
    al. 2020, PyTorch DDP, section 3.2.3; Patarasuk and Yuan 2009)."""
    d = c.degrees
    replicas = d.dp * d.cp
    plain = d.zero == 0
    ranks = np.where(plain, replicas, 1)
    if c.unused(ranks):
        return [c.inactive(DATA_PARALLEL, ranks)]
    gradients, _, bucket = _gradient_sizes(c)
    (ar, ar_bucket), where = c.seconds_of(
        Collective.ALL_REDUCE, (gradients, bucket), replicas, d.tp
    )
    exposed = _overlapped(c, ar, ar_bucket, c.compute.backward * c.keep)
    return [c.term(DATA_PARALLEL, gradients, np.where(plain, 1, 0), ranks, where, ar, exposed)]


def zero_staged_terms(c: _Terms) -> list[CommTerm]:
    """ZeRO-1/2: reduce-scatter of the gradients once per step (ZeRO-1) or per micro-batch
    (ZeRO-2), overlapped with backward, and an exposed all-gather of the updated shards
    (Rajbhandari et al. 2020, sections 5.2 and 7.2.1)."""
    d = c.degrees
    replicas = d.dp * d.cp
    staged = (d.zero == 1) | (d.zero == 2)
    ranks = np.where(staged, replicas, 1)
    if c.unused(ranks):
        return [c.inactive(ZERO_GRADIENTS, ranks), c.inactive(ZERO_PARAMETERS, ranks)]
    m = np.asarray(d.micro_batches, dtype=np.float64)
    gradients, weights, bucket = _gradient_sizes(c)
    (rs, rs_bucket), where = c.seconds_of(
        Collective.REDUCE_SCATTER, (gradients, bucket), replicas, d.tp
    )
    (ag, ag_bucket), _ = c.seconds_of(
        Collective.ALL_GATHER, (weights, bucket), replicas, d.tp, where
    )
    rs_calls = np.where(d.zero == 2, m, 1.0)
    rs_exposed = _overlapped(c, rs, rs_bucket, c.compute.backward * c.keep)
    # The updated shards' all-gather: exposed after the optimizer step, or hidden behind the next
    # step's first forward but for one bucket (Megatron's --overlap-param-gather).
    gather_hides = c.keep > 0 and c.options.overlap_param_gather
    ag_exposed = np.where(gather_hides, np.maximum(ag_bucket, ag - c.compute.forward), ag)
    return [
        c.term(
            ZERO_GRADIENTS,
            gradients,
            np.where(staged, rs_calls, 0.0),
            ranks,
            where,
            rs_calls * rs,
            rs_calls * rs_exposed,
        ),
        c.term(ZERO_PARAMETERS, weights, np.where(staged, 1, 0), ranks, where, ag, ag_exposed),
    ]


def zero3_terms(c: _Terms) -> list[CommTerm]:
    """ZeRO-3 (FSDP): per micro-batch an all-gather of the weights before each forward and each
    backward, prefetched layer by layer (one layer's gather exposed), and a reduce-scatter of
    the gradients overlapped with backward (Rajbhandari et al. 2020, sections 5.3 and 7.2.2)."""
    d = c.degrees
    replicas = d.dp * d.cp
    full = d.zero == 3
    ranks = np.where(full, replicas, 1)
    if c.unused(ranks):
        return [c.inactive(ZERO3_PARAMETERS, ranks), c.inactive(ZERO3_GRADIENTS, ranks)]
    m = np.asarray(d.micro_batches, dtype=np.float64)
    gradients, weights, _ = _gradient_sizes(c)
    rs, where = c.seconds(Collective.REDUCE_SCATTER, gradients, replicas, d.tp)
    ag, _ = c.seconds(Collective.ALL_GATHER, weights, replicas, d.tp, where)
    layer_share = 1.0 / d.stage_layers
    forward_exposed = np.where(
        c.keep > 0, np.maximum(ag * layer_share, ag - c.compute.forward * c.keep), ag
    )
    backward_comm = ag + rs
    backward_exposed = np.where(
        c.keep > 0,
        np.maximum(backward_comm * layer_share, backward_comm - c.compute.backward * c.keep),
        backward_comm,
    )
    if c.options.backward_prefetch == "post":
        # The next layer's gather is issued after this layer's gradients (BACKWARD_POST) and
        # waited for; only the reduce-scatters hide behind the backward.
        reduce_exposed = np.maximum(rs * layer_share, rs - c.compute.backward * c.keep)
        backward_exposed = np.where(c.keep > 0, ag + reduce_exposed, backward_comm)
    return [
        c.term(
            ZERO3_PARAMETERS,
            weights,
            np.where(full, 2 * m, 0.0),
            ranks,
            where,
            2 * m * ag,
            m * (forward_exposed + _share(backward_exposed * ag, backward_comm)),
        ),
        c.term(
            ZERO3_GRADIENTS,
            gradients,
            np.where(full, m, 0.0),
            ranks,
            where,
            m * rs,
            m * _share(backward_exposed * rs, backward_comm),
        ),
    ]


def expert_parallel_terms(c: _Terms) -> list[CommTerm]:
    """Dispatch + combine all-to-all, forward and backward (and again in a recomputed forward),
    per MoE layer of the stage over the ``e`` ranks (stride ``t·c``: the expert-parallel group
    is taken from the data-parallel ranks, so it spans nodes once ``t·c·e`` exceeds a node),
    each moving the ``b·s/c·k`` routed token copies of ``h`` values (Lepikhin et al. 2021,
    GShard, section 3.2; Fedus et al. 2022, Switch, section 2). Exposed, unless the software
    (``overlap_expert_alltoall``) or the layout (``Layout.ep_overlap``) overlaps it with another
    micro-batch's compute (DeepSeek-V3's DualPipe, arXiv 2412.19437 section 3.2.1;
    Megatron-Core's ``--overlap-moe-expert-parallel-comm``): then what outlasts the step's
    micro-batches of compute is exposed, and the compute it hides behind slows by the share a
    collective takes (``collective_compute_share``). The
    experts come from the model spec (:attr:`ModelDims.moe_layers` and its top-k)."""
    d, dims = c.degrees, c.dims
    if dims.moe_layers == 0:
        if np.any(d.ep > 1):
            raise MlcostError(
                "ep: expert parallelism needs a mixture-of-experts model (the spec has no "
                "'moe'); use ep=1 or a model with experts such as mixtral-8x7b"
            )
        return []
    bad = dims.num_experts % np.asarray(d.ep, dtype=np.float64) != 0
    if np.any(bad):
        raise MlcostError(
            f"ep: got {np.asarray(d.ep)[bad].ravel()[0]}, expected a divisor of the "
            f"{dims.num_experts} experts per MoE layer"
        )
    if c.unused(d.ep):
        return [c.inactive(EXPERT_PARALLEL, d.ep)]
    sp = np.asarray(d.sequence_parallel, dtype=bool)
    routed = (
        c.tokens
        / np.where(sp, d.tp, 1)
        * dims.experts_per_token
        * dims.hidden
        * dims.activation_bytes
    )
    moe_stage_layers = d.stage_layers * dims.moe_layers / dims.layers
    calls = d.micro_batches * moe_stage_layers * (4 + 2 * d.recompute_fraction)
    a2a, where = c.seconds(Collective.ALL_TO_ALL, routed, d.ep, d.tp * d.cp)
    total = calls * a2a
    overlapped = np.asarray(d.ep_overlap, dtype=bool) | c.options.overlap_expert_alltoall
    hides = overlapped & (c.keep > 0)
    exposed = np.where(
        hides, np.maximum(0.0, total - d.micro_batches * c.compute.micro_batch), total
    )
    return [c.term(EXPERT_PARALLEL, routed, calls, d.ep, where, total, exposed)]


def _scattered(term: CommTerm, index: np.ndarray, size: int) -> CommTerm:
    """``term``, computed for the candidates at ``index``, over all ``size`` candidates: the
    others get an inactive term (no message, calls, time or link; one rank), as the builders
    record a term whose group has one rank."""

    def spread(value: Any, fill: Any) -> np.ndarray:
        value = np.asarray(value)
        out = np.full(size, fill, dtype=np.result_type(value, np.asarray(fill)))
        out[index] = value
        return out

    return replace(
        term,
        message_bytes=spread(term.message_bytes, 0.0),
        calls=spread(term.calls, 0),
        ranks=spread(term.ranks, 1),
        link_code=spread(term.link_code, 3),
        time_seconds=spread(term.time_seconds, 0.0),
        exposed_seconds=spread(term.exposed_seconds, 0.0),
    )


def _where_zero(
    stages: tuple[int, ...], builder: Callable[[_Terms], list[CommTerm]]
) -> Callable[[_Terms], list[CommTerm]]:
    """``builder`` evaluated only for the candidates whose ZeRO stage is in ``stages`` (the
    others have none of its communication), so a search computes each data-parallel strategy's
    collectives for its own candidates, not for all of them."""

    def build(c: _Terms) -> list[CommTerm]:
        zero = np.asarray(c.degrees.zero)
        chosen = functools.reduce(np.logical_or, [zero == stage for stage in stages])
        if chosen.ndim != 1 or chosen.all() or not chosen.any():
            # Nothing to save: every candidate sends these, or none does (and the builder
            # records its terms inactive without evaluating them).
            return builder(c)
        index = np.flatnonzero(chosen)
        return [_scattered(t, index, chosen.size) for t in builder(c.at(index))]

    build.__name__ = builder.__name__
    build.__doc__ = builder.__doc__
    return build


#: The strategies, in the order their terms are reported.
STRATEGIES: tuple[Callable[[_Terms], list[CommTerm]], ...] = (
    tensor_parallel_terms,
    context_parallel_terms,
    pipeline_terms,
    _where_zero((0,), data_parallel_terms),
    _where_zero((1, 2), zero_staged_terms),
    _where_zero((3,), zero3_terms),
    expert_parallel_terms,
)


def communication_terms(
    dims: ModelDims,
    system: System,
    degrees: Degrees,
    compute: ShardCompute,
    *,
    gpus_per_node: Real,
    options: CommOptions | None = None,
) -> list[CommTerm]:
    """Every communication term of one optimizer step, per GPU (see the module docstring);
    ``compute`` gives the windows communication can hide in. The terms hide in the same compute:
    where together they would hide more than the micro-batches' compute, the surplus is exposed,
    shared in proportion to what each term hid (:func:`share_the_compute`)."""
    options = options or CommOptions()
    context = _Terms(dims, system, degrees, compute, gpus_per_node, options)
    terms = [term for strategy in STRATEGIES for term in strategy(context)]
    shared = share_the_compute(terms, degrees.micro_batches * compute.micro_batch)
    if options.collective_compute_share == (0.0, 0.0):
        return shared
    return [slowed_compute(term, options.collective_compute_share) for term in shared]


def slowed_compute(term: CommTerm, share: tuple[float, float]) -> CommTerm:
    """``term`` with the compute its hidden part takes from the GPU added to what it exposes:
    while a collective hides behind compute, its kernels hold some of the SMs and the compute
    runs that much slower, ``share · hidden`` seconds (Calculon, Isaev et al. SC'23, section 3:
    a network's ``processor_usage``, 0.15 over NVLink and 0.02 over InfiniBand in its A100
    system files), ``share`` the intra-node one for a group inside a node (or across both),
    the inter-node one for a group across nodes only."""
    hidden = np.asarray(term.time_seconds) - np.asarray(term.exposed_seconds)
    rate = np.where(np.asarray(term.link_code) == 1, share[1], share[0])
    return replace(term, exposed_seconds=np.asarray(term.exposed_seconds) + rate * hidden)


def share_the_compute(terms: list[CommTerm], window: Any) -> list[CommTerm]:
    """``terms`` with their hidden time capped, all together, at ``window`` seconds of compute
    (communication only hides behind compute that exists): a surplus ``sum(hidden) - window``
    becomes exposed, each term taking its share of the hidden time."""
    hidden = [t.time_seconds - t.exposed_seconds for t in terms]
    total = functools.reduce(np.add, hidden) if hidden else 0.0  # no stacked copy of the terms
    surplus = np.maximum(total - np.asarray(window, dtype=np.float64), 0.0)
    if not np.any(surplus > 0):
        return terms
    if np.ndim(surplus) != 1:
        return [
            replace(term, exposed_seconds=term.exposed_seconds + surplus * _share(part, total))
            for term, part in zip(terms, hidden, strict=True)
        ]
    # Candidates: the share only where there is a surplus (a search's few percent, and NaN,
    # which propagates); elsewhere the sum adds +0 (an exposed -0 becomes +0, as it would).
    index = np.flatnonzero(surplus != 0)
    size = surplus.shape
    summed = np.broadcast_to(np.asarray(total, dtype=np.float64), size)
    out = []
    for term, part in zip(terms, hidden, strict=True):
        exposed = np.broadcast_to(np.asarray(term.exposed_seconds, dtype=np.float64), size) + 0.0
        exposed[index] = exposed[index] + surplus[index] * _share(
            np.broadcast_to(part, size)[index], summed[index]
        )
        out.append(replace(term, exposed_seconds=exposed))
    return out
