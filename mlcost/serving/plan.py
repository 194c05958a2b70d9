"""One serving deployment, end to end: memory, latency, throughput, capacity and the price, energy
and CO2e of a million tokens.

``ServePlan`` wires the serving formulas for a model on a GPU (or a node), a tensor-parallel
degree and a request mix, with the verbs of :class:`mlcost.plan.Plan`::

    >>> import mlcost
    >>> plan = mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", prompt=1024, output=256)
    >>> plan.summary()        # one table: fit, TTFT, TPOT, throughput, $ per million tokens
    >>> print(plan.explain())  # each figure derived
    >>> plan.sweep(batch=[1, 8, 64], gpu=["a100-sxm4-80gb", "h100-sxm5-80gb"])

The chain (:mod:`mlcost.serving.latency` for the formulas):

1. memory per GPU: the weights in their serving format (:mod:`mlcost.serving.weights`), the
   engine's share of the GPU (``Assumptions.gpu_memory_utilization``) and the paged KV cache of
   one sequence at its longest (``P + O`` tokens, :mod:`mlcost.serving.kv_cache`): the largest
   batch that fits;
2. the batch: given, else the smallest that carries ``rate`` requests/s within the latency
   target, else the largest that meets the target (``ttft``/``tpot``, default TTFT 450 ms and
   TPOT 40 ms), within the KV cache and the engine's batch cap;
3. time: a decode step of the batch at the mix's mean context and the prefill of one prompt on
   the roofline of the GPU's ceilings, with the tensor-parallel all-reduces on the system's
   links (across nodes, over the inter-node network, when ``tp`` exceeds a node's GPUs)
   and, with a ``draft`` model, speculative decoding; an iteration of continuous batching, TTFT
   (:func:`mlcost.serving.latency.time_to_first_token`: the prompt's prefill, the rest of the
   running decode step, and the queue of prompts waiting for their prefill), TPOT
   and the throughput;
4. capacity: replicas (and GPUs) for ``rate``;
5. price, energy and CO2e per million tokens: the replica's GPU-time apportioned to input
   tokens (their prefill) and to output tokens (the decode steps), priced with the training
   plans' machinery: the catalog price per GPU-hour, the GPU's power at its busy share plus the
   host's share (:func:`mlcost.energy.accelerator_power`), the region's PUE, electricity price and
   grid intensity, and embodied carbon over the GPU's busy life.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pint

from mlcost import energy
from mlcost.arrays import plain
from mlcost.assumptions import ASSUMPTION_SOURCES, Assumptions
from mlcost.comms.placement import collective_seconds, placement
from mlcost.errors import MlcostError, RunDoesNotFitError
from mlcost.records import replace as record_replace
from mlcost.results import Figure, Result
from mlcost.serving.band import serving_calibration, serving_latency_band
from mlcost.serving.formats import check_format
from mlcost.serving.kv_cache import kv_bytes_per_token, kv_cache_bytes
from mlcost.serving.latency import (
    batching_iteration_seconds,
    closed_loop_steady_state,
    engine_counts,
    expected_accepted_tokens,
    expert_parallel_seconds,
    forward_seconds,
    mean_context,
    prefill_share,
    prompts_per_prefill,
    roofline_seconds,
    serving_ceilings,
    tensor_parallel_seconds,
    time_to_first_token,
)
from mlcost.serving.weights import weight_bytes
from mlcost.serving.workload import (
    check_pipeline_stages,
    check_tensor_parallel,
    decode_operators,
    forward_operators,
    prefill_operators,
)
from mlcost.site import (
    region_electricity,
    region_pue,
    resolve_grid,
    resolve_power,
    resolve_price,
    resolve_system,
)
from mlcost.specs import Accelerator, Catalog, Engine, Grid, ModelSpec, Node, TransformerSpec
from mlcost.specs.catalog import as_model, default_catalog
from mlcost.systems import System
from mlcost.uncertainty import Calibration
from mlcost.units import Q_, in_unit, magnitude_in
from mlcost.workload.table import OperatorTable

if TYPE_CHECKING:
    import pandas as pd

#: What :meth:`ServePlan.sweep` varies.
SWEEP_AXES = ("batch", "prompt", "output", "gpu", "tp", "pp", "weights", "kv_format", "rate")
#: How requests arrive (:attr:`ServePlan.arrivals`).
ARRIVALS = ("poisson", "closed-loop")
MILLION = 1e6
SECONDS_PER_HOUR = 3600.0


def _counts(value: Any, field: str) -> np.ndarray:
    """Token counts (one or a sample of a mix) as a float array, each a whole number >= 1."""
    array = np.atleast_1d(np.asarray(value, dtype=object))
    if array.size == 0 or array.ndim != 1:
        raise MlcostError(f"{field}: got {value!r}, expected a number of tokens or a list of them")
    out = []
    for item in array:
        if isinstance(item, bool) or not isinstance(item, (int, np.integer, float, np.floating)):
            raise MlcostError(f"{field}: got {value!r}, expected whole numbers of tokens >= 1")
        if not (math.isfinite(float(item)) and float(item) >= 1 and float(item).is_integer()):
            raise MlcostError(f"{field}: got {value!r}, expected whole numbers of tokens >= 1")
        out.append(float(item))
    return np.asarray(out)


@dataclass(frozen=True, eq=False)
class ServePlan(Result):
    """A model served on ``gpu`` (or the GPUs of ``system``) with ``tp``-way tensor parallelism,
    for requests of ``prompt`` input and ``output`` generated tokens (one value each, or paired
    samples of a mix). ``batch`` is the number of sequences decoding together (default: the
    smallest that carries ``rate`` requests/s, else the largest that meets the latency
    target); ``weights`` and ``kv_format`` the serving formats (``bf16``, ``fp16``, ``fp8``,
    ``int8``, ``int4``);
    ``draft`` a draft model for speculative decoding with its ``acceptance`` rate and
    ``draft_tokens`` per step; ``engine`` the serving engine (:class:`mlcost.specs.Engine`, a
    catalog name: ``vllm`` by default, ``tensorrt-llm``, ``sglang``, ``hf-generate``,
    ``cuda-graphs``, ``pytorch-eager``, ``pytorch-cuda-graphs``), whose costs per kernel and per
    step, prefill batching and batch cap each forward follows; ``ttft`` and ``tpot`` the latency
    target the default batch meets (default: :attr:`Assumptions.serving_ttft_target`, 450 ms, and
    ``serving_tpot_target``, 40 ms). ``region``, ``price``, ``pue``,
    ``facility`` and ``electricity_price`` as for :class:`mlcost.plan.Plan`. ``calibrated``: the
    GPU's forward seconds multiplied by its vendor's factor, the median of measured / predicted
    time over the published serving rows on that vendor's GPUs (:attr:`calibration`;
    :mod:`mlcost.serving.band`); False: the uncorrected roofline model."""

    model: str | ModelSpec
    _: KW_ONLY
    gpu: str | Path | Accelerator | None = None
    system: str | Path | Node | System | None = None
    tp: int = 1
    pp: int = 1
    ep: int = 1
    prompt: int | Sequence[int] = 1024
    output: int | Sequence[int] = 256
    batch: int | None = None
    rate: float | pint.Quantity | None = None
    arrivals: str = "poisson"
    weights: str = "bf16"
    kv_format: str = "bf16"
    block_size: int | None = None
    group_size: int | None = None
    draft: str | ModelSpec | None = None
    acceptance: float | None = None
    draft_tokens: int = 4
    engine: str | Engine = "vllm"
    disaggregated: bool = False
    ttft: pint.Quantity | str | None = None
    tpot: pint.Quantity | str | None = None
    region: str | Grid = "world"
    price: str | pint.Quantity | None = None
    pue: float | None = None
    facility: str | None = None
    electricity_price: pint.Quantity | None = None
    accounting: str = "utilization"
    power_per_gpu: pint.Quantity | None = None
    calibrated: bool = True
    assumptions: Assumptions = field(default_factory=Assumptions)
    catalog: Catalog | None = None

    # ----- inputs, resolved once -------------------------------------------------------------
    @cached_property
    def _catalog(self) -> Catalog:
        return self.catalog if self.catalog is not None else default_catalog()

    @cached_property
    def transformer(self) -> TransformerSpec:
        model = as_model(self.model, self._catalog)
        if not isinstance(model, TransformerSpec):
            raise MlcostError(f"model: {model.name} is not a transformer; serving needs one")
        if model.architecture != "decoder":
            raise MlcostError(
                f"model: {model.name} is an {model.architecture} (it reads a whole input at "
                "once and generates no tokens), expected a decoder: serving here times "
                "generation token by token (TTFT, TPOT); cost an encoder's forward passes "
                "with 'mlcost step'"
            )
        return model

    @cached_property
    def draft_model(self) -> TransformerSpec | None:
        if self.draft is None:
            return None
        model = as_model(self.draft, self._catalog)
        if not isinstance(model, TransformerSpec) or model.architecture != "decoder":
            raise MlcostError(
                f"draft: {model.name} is not a decoder transformer; expected a small decoder "
                "that proposes tokens"
            )
        target = self.transformer
        if model.vocab_size != target.vocab_size:
            raise MlcostError(
                f"draft: {model.name} has a vocabulary of {model.vocab_size:,} tokens, "
                f"{target.name} {target.vocab_size:,}; expected a draft with the target's "
                "tokenizer (speculative decoding verifies the draft's token ids), e.g. a smaller "
                "model of the same family"
            )
        return model

    @cached_property
    def resolved_engine(self) -> Engine:
        if isinstance(self.engine, Engine):
            return self.engine
        return self._catalog.engine(self.engine)

    @cached_property
    def resolved_system(self) -> System:
        return resolve_system(
            system=self.system, gpu=self.gpu, catalog=self._catalog, assumptions=self.assumptions
        )

    @property
    def accelerator(self) -> Accelerator:
        return self.resolved_system.accelerator

    @cached_property
    def calibration(self) -> Calibration | None:
        """The correction factor of this plan's GPU's forward seconds (``calibrated``; module
        :mod:`mlcost.serving.band`): its vendor's, or the pooled one for a vendor without
        published rows; none for a GPU profile the user measured (what ``mlcost calibrate``
        writes), which says what their hardware does, or when ``calibrated`` is False."""
        measured = self.accelerator.measured
        own = measured is not None and any(
            value is not None for value in (measured.torch, measured.based_on, measured.trace)
        )
        if not self.calibrated or own:
            return None
        return serving_calibration(self.accelerator.vendor)

    @cached_property
    def gpu_time_factor(self) -> float:
        """The factor :attr:`calibration` multiplies a forward's seconds on the GPUs by, its
        kernels and its collectives (1 without)."""
        return 1.0 if self.calibration is None else self.calibration.factor

    @cached_property
    def grid(self) -> Grid:
        return resolve_grid(self.region, self._catalog)

    def __post_init__(self) -> None:
        self._check()

    def _check(self) -> None:
        model = self.transformer
        check_format(self.weights, "weights")
        check_format(self.kv_format, "kv_format")
        engine = self.resolved_engine
        for name, value, served in (("weights", self.weights, engine.weight_formats),
                                    ("kv_format", self.kv_format, engine.kv_formats)):  # fmt: skip
            if served and value not in served:
                raise MlcostError(
                    f"{name}: got {value!r}, but engine {engine.name} serves "
                    f"{', '.join(served)}; choose one of those or another --engine"
                )
        vendor = self.accelerator.vendor
        if engine.vendors and vendor not in engine.vendors:
            raise MlcostError(
                f"engine: {engine.name} runs on {', '.join(engine.vendors)} GPUs, not on "
                f"{self.accelerator.name} ({vendor}); choose --engine vllm or sglang"
            )
        t = check_tensor_parallel(model, self.tp)
        per_node = self.resolved_system.gpus_per_node
        total = per_node * int(self.resolved_system.nodes)
        stages = check_pipeline_stages(model, self.pp)
        if stages > 1 and (self.draft is not None or self.disaggregated):
            raise MlcostError(
                f"pp: got {stages}; pipeline-parallel serving is modelled for aggregated serving "
                "without a draft model; use pp=1 with draft or disaggregated"
            )
        if stages > 1 and not self.resolved_engine.continuous_batching:
            raise MlcostError(
                f"pp: got {stages}, but engine {self.resolved_engine.name} serves a static batch; "
                "pipeline stages need continuous batching (e.g. --engine vllm)"
            )
        self._check_expert_parallel(model, t)
        self._check_arrivals()
        if t > total:
            raise MlcostError(
                f"tp: got {t}, but {self.resolved_system.name} has {total} GPUs "
                f"({per_node} per node); choose --tp <= {per_node} within a node, or --nodes "
                f"{math.ceil(t / per_node)} (or a --system of several nodes, e.g. "
                "dgx-h100-superpod-su) to span nodes"
            )
        if stages > 1 and t * stages > total:
            raise MlcostError(
                f"pp: got tp {t} x pp {stages} = {t * stages} GPUs, but "
                f"{self.resolved_system.name} has {total} ({per_node} per node); choose fewer "
                f"stages or --nodes {math.ceil(t * stages / per_node)}"
            )
        prompt, output = self._prompt, self._output
        if prompt.size != output.size and 1 not in (prompt.size, output.size):
            raise MlcostError(
                f"output: got {output.size} values for {prompt.size} prompts; give one each, "
                "or paired samples of the same length"
            )
        longest = float(np.max(prompt + output))
        if longest > model.max_position_embeddings:
            raise MlcostError(
                f"prompt + output: got {longest:,.0f} tokens, expected at most "
                f"{model.max_position_embeddings:,} (max_position_embeddings of {model.name}); "
                "use a shorter --prompt or --output-tokens"
            )
        if self.batch is not None and (
            isinstance(self.batch, bool) or not isinstance(self.batch, int) or self.batch < 1
        ):
            raise MlcostError(f"batch: got {self.batch!r}, expected a whole number >= 1")
        if self.rate is not None:
            rate = float(magnitude_in(self.rate, "1/s", "rate", bare=True))
            if not (rate > 0 and math.isfinite(rate)):
                raise MlcostError(f"rate: got {self.rate!r}, expected requests per second > 0")
        for name in ("ttft", "tpot"):
            value = getattr(self, name)
            if value is not None and not float(magnitude_in(value, "s", name)) > 0:
                raise MlcostError(f"{name}: got {value!r}, expected a latency > 0, e.g. '500 ms'")
        if self.disaggregated and not self.resolved_engine.continuous_batching:
            raise MlcostError(
                f"disaggregated: engine {self.resolved_engine.name} serves a static batch; "
                "disaggregated prefill and decode need a continuous-batching engine (--engine vllm)"
            )
        if self.draft is None and self.acceptance is not None:
            raise MlcostError(
                f"acceptance: got {self.acceptance!r} without a draft model; give draft= "
                "(--draft) for speculative decoding, or leave acceptance out"
            )
        if self.draft is not None:
            a = self.acceptance
            if a is None or isinstance(a, bool) or not (0 <= float(a) <= 1):
                raise MlcostError(
                    f"acceptance: got {a!r}, expected the draft's token acceptance rate in "
                    "[0, 1] (e.g. 0.7) with draft="
                )
            k = self.draft_tokens
            if isinstance(k, bool) or not isinstance(k, int) or k < 1:
                raise MlcostError(f"draft_tokens: got {k!r}, expected a whole number >= 1")
            _ = self.draft_model  # a decoder with the target's vocabulary
        for name in ("block_size", "group_size"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise MlcostError(f"{name}: got {value!r}, expected a whole number >= 1")

    def _check_expert_parallel(self, model: TransformerSpec, t: int) -> None:
        """``ep`` > 1: the one layout modelled, experts split over the ``tp`` ranks of the
        replica with attention data parallel over them (``ep = tp``; TensorRT-LLM's ``--tp 8
        --ep 8`` with ``enable_attention_dp``), for an MoE model, aggregated, without stages or
        a draft."""
        ep = self.ep
        if isinstance(ep, bool) or not isinstance(ep, (int, np.integer)) or ep < 1:
            raise MlcostError(f"ep: got {ep!r}, expected a whole number >= 1 (e.g. 1 or 8)")
        if ep == 1:
            return
        if model.moe is None:
            raise MlcostError(
                f"ep: got {ep}, but {model.name} is dense (no experts to split); use ep=1"
            )
        if ep != t:
            raise MlcostError(
                f"ep: got {ep} with tp {t}; expert parallelism is modelled with attention data "
                f"parallel over the replica's GPUs (ep = tp); use ep={t} or tp={ep}"
            )
        if model.moe.num_experts % ep:
            raise MlcostError(
                f"ep: got {ep}, expected a divisor of {model.name}'s {model.moe.num_experts} "
                "routed experts (e.g. 8)"
            )
        if self.pp > 1 or self.draft is not None or self.disaggregated:
            raise MlcostError(
                f"ep: got {ep}; expert parallelism with attention data parallel is modelled for "
                "aggregated serving without pipeline stages or a draft model; use ep=1 with pp, "
                "draft or disaggregated"
            )
        if not self.resolved_engine.continuous_batching:
            raise MlcostError(
                f"ep: got {ep}, but engine {self.resolved_engine.name} serves a static batch; "
                "attention data parallel needs continuous batching (e.g. --engine tensorrt-llm)"
            )

    def _check_arrivals(self) -> None:
        """``arrivals``: ``poisson`` (requests at random, the M/D/1 prefill queue) or
        ``closed-loop`` (``batch`` clients each sending the next request when the previous one
        ends), the latter for aggregated continuous batching without pipeline stages."""
        if self.arrivals not in ARRIVALS:
            raise MlcostError(
                f"arrivals: got {self.arrivals!r}, expected one of {', '.join(ARRIVALS)} "
                "(closed-loop: batch = the number of clients, as genai-perf --concurrency)"
            )
        if self.arrivals == "closed-loop" and (
            self.pp > 1 or self.disaggregated or not self.resolved_engine.continuous_batching
        ):
            raise MlcostError(
                "arrivals: got 'closed-loop'; the closed-loop queue is modelled for aggregated "
                "continuous batching without pipeline stages; use arrivals='poisson' with pp, "
                "disaggregated or a static batch"
            )

    # ----- the chain --------------------------------------------------------------------------
    @property
    def _data_parallel(self) -> int:
        """Attention data-parallel ranks of a replica: ``ep`` under expert parallelism (each
        serves ``1/ep`` of the sequences with the whole attention), 1 otherwise."""
        return self.ep

    @property
    def _attention_tp(self) -> int:
        """The tensor-parallel degree of the attention (and of the KV cache): 1 under attention
        data parallel, ``tp`` otherwise."""
        return 1 if self.ep > 1 else self.tp

    def communication_seconds(self, tokens: Any) -> Any:
        """Seconds of a forward's collectives for ``tokens`` tokens on one rank: the
        tensor-parallel all-reduces, or under expert parallelism the MoE dispatch and combine
        all-to-alls (:func:`mlcost.serving.latency.expert_parallel_seconds`), times the vendor's
        factor (:attr:`gpu_time_factor`), as the forward's kernels are."""
        model, system = self.transformer, self.resolved_system
        if self.ep > 1 and model.moe is not None:
            seconds = expert_parallel_seconds(
                system, self.ep, model.hidden_size, model.moe_layers, tokens,
                model.moe.experts_per_token,
            )  # fmt: skip
        else:
            seconds = tensor_parallel_seconds(
                system, self.tp, model.hidden_size, model.num_layers, tokens
            )
        return plain(np.asarray(seconds) * self.gpu_time_factor)

    @cached_property
    def _prompt(self) -> np.ndarray:
        """The prompt lengths as an array, read once (read-only: the plan's, not a caller's)."""
        prompt = _counts(self.prompt, "prompt")
        prompt.flags.writeable = False
        return prompt

    @cached_property
    def _output(self) -> np.ndarray:
        """The output lengths as an array, read once (read-only)."""
        output = _counts(self.output, "output")
        output.flags.writeable = False
        return output

    @cached_property
    def _options(self) -> dict[str, Any]:
        return {
            "weights": self.weights, "kv_format": self.kv_format,
            "tensor_parallel": self._attention_tp, "expert_parallel": self.ep,
            "group_size": self.group_size,
            "grouped_kv_reads": self.resolved_engine.gqa_aware_attention,
            # FP8 attention needs an FP8 KV cache (forward_operators): said so, an engine with
            # it and one without build the same tables under a 16-bit cache, and share them.
            "fp8_attention": self.resolved_engine.fp8_attention and self.kv_format == "fp8",
        }  # fmt: skip

    @cached_property
    def _tables(self) -> dict[tuple[Any, ...], OperatorTable]:
        """The operator tables this plan built, by :meth:`_table`'s key (a search hands one
        dict to all the plans of a model: a table depends on nothing outside its key)."""
        return {}

    @cached_property
    def _forwards(self) -> dict[tuple[Any, ...], Any]:
        """What :meth:`_forward` derived from a table (its roofline seconds per engine grouping,
        GPU and formats; its kernel counts per engine), by key (a search shares one dict, as it
        shares :meth:`_tables`)."""
        return {}

    def _table_key(self, build: Any, model: TransformerSpec, *shape: Any) -> tuple[Any, ...]:
        return (
            build.__name__, model.name, model.num_layers, tuple(self._options.items()),
            *((np.shape(x), np.asarray(x, dtype=np.float64).tobytes()) for x in shape),
        )  # fmt: skip

    def _table(self, build: Any, model: TransformerSpec, *shape: Any) -> OperatorTable:
        """``build(model, *shape, **options)`` (:func:`prefill_operators`,
        :func:`decode_operators`), built once per model, shape and serving options."""
        key = self._table_key(build, model, *shape)
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = build(model, *shape, **self._options)
        return table

    def _evaluated(
        self, build: Any, model: TransformerSpec, *shape: Any
    ) -> tuple[OperatorTable, Any, tuple[float, float]]:
        """``build``'s table (:meth:`_table`), its roofline seconds (:func:`roofline_seconds`)
        and its kernel and host-operation counts under this plan's engine
        (:func:`engine_counts`): what :func:`forward_seconds` reads, the roofline kept beside
        the table (:meth:`_forwards`) for every engine that groups its experts alike on the same
        GPU and formats (the ceilings' key), the counts for each engine."""
        table = self._table(build, model, *shape)
        table_key = self._table_key(build, model, *shape)
        engine = self.resolved_engine
        grouped = engine.grouped_expert_gemm and model.moe is not None  # no experts: no group
        key = ("roofline", table_key, grouped, self.accelerator.name, self.weights, self.kv_format)
        roofline = self._forwards.get(key)
        if roofline is None:
            roofline = self._forwards[key] = roofline_seconds(table, self._ceilings, engine)
        counts_key = ("counts", table_key, engine.name)
        counts = self._forwards.get(counts_key)
        if counts is None:
            counts = self._forwards[counts_key] = engine_counts(engine, table, model.num_layers)
        return table, roofline, counts

    def _prefill_and_decode(
        self,
        model: TransformerSpec,
        together: int,
        prompt: float,
        batch: Any,
        context: float,
        alongside: Any = None,
    ) -> tuple[float, float, Any]:
        """Seconds of the forwards of ``model`` an iteration runs (:func:`forward_seconds` under
        this plan's engine, plus their collectives, :meth:`communication_seconds`): a prompt of
        ``prompt`` tokens prefilled alone, ``together`` of them prefilled in one forward, and,
        unless ``batch`` is None, the decode step of ``batch`` sequences (a number or an array)
        with ``context`` tokens cached, replayed from a graph where the engine decodes from one.
        They are the sequences of one table: its counts are arrays, one element per forward
        (:func:`forward_operators` works element by element, so each is the arithmetic of its
        own table), placed on the roofline once (:meth:`_evaluated`); their collectives, of
        ``prompt``, ``together x prompt`` and ``batch`` tokens, one array too. ``alongside``:
        decode sequences to evaluate in the same table (other plans' of a search, which then
        find it evaluated), the decode sequences each once and in order."""
        if batch is None:
            decode, back = np.zeros(0), np.zeros(0, dtype=np.intp)
        else:  # the distinct decode sequences, and where each of batch's is among them
            wanted = np.ravel(np.asarray(batch, dtype=np.float64))
            extra = np.ravel(np.asarray([] if alongside is None else alongside, dtype=np.float64))
            decode = np.unique(np.concatenate((wanted, extra)))
            back = np.searchsorted(decode, wanted)
        sequences = np.concatenate(([1.0, float(together)], decode))
        new = np.concatenate(([prompt, prompt], np.ones_like(decode)))
        past = np.concatenate(([0.0, 0.0], np.full_like(decode, context)))
        table, roofline, counts = self._evaluated(forward_operators, model, sequences, new, past)
        engine = self.resolved_engine

        def seconds(part: slice, graph: bool) -> Any:
            return forward_seconds(
                table, self._ceilings, engine, layers=model.num_layers, graph=graph,
                roofline=np.asarray(roofline)[part], counts=counts, factor=self.gpu_time_factor,
            )  # fmt: skip

        moved = np.asarray(self.communication_seconds(sequences * new), dtype=np.float64)
        alone, shared = (
            float(x + y) for x, y in zip(seconds(slice(0, 2), False), moved[:2], strict=True)
        )
        if batch is None:
            return alone, shared, None
        step = np.asarray(seconds(slice(2, None), engine.decode_graphs)) + moved[2:]
        return alone, shared, plain(np.reshape(step[back], np.shape(batch)))

    @cached_property
    def _ceilings(self) -> dict[str, Any]:
        return serving_ceilings(self.accelerator, self.weights, self.kv_format)

    def _weight_bytes(self, model: TransformerSpec) -> float:
        """Weight bytes on one GPU: a tensor-parallel rank's share, and with ``pp`` pipeline
        stages the largest stage's: ``ceil(L / pp)`` layers plus everything outside the layers
        (embedding, head, final norm; an upper bound, since the first stage holds the embedding
        and the last the head). A layer's bytes are ``(W(L) - W(1)) / (L - 1)``, the weights of
        the model with all its layers less those of the model with one."""
        whole = self._rank_weight_bytes(model)
        if self.pp == 1 or model.num_layers == 1:
            return whole
        one = self._rank_weight_bytes(model.model_copy(update={"num_layers": 1}))
        layer = (whole - one) / (model.num_layers - 1)
        outside = whole - model.num_layers * layer
        return outside + math.ceil(model.num_layers / self.pp) * layer

    def _rank_weight_bytes(self, model: TransformerSpec) -> float:
        """A tensor-parallel rank's weight bytes, built once per catalog for the model, format,
        degrees and group (:meth:`Catalog.derived`: a search asks for the same on every GPU,
        KV format and engine)."""

        def build() -> float:
            table = decode_operators(model, 1, 1, **self._options)
            held = weight_bytes(
                table, model.parameter_count, self.weights, tensor_parallel=self._attention_tp,
                group_size=self.group_size, expert_parallel=self.ep,
            )  # fmt: skip
            return float(in_unit(held, "byte"))

        key = (
            "serving weight bytes", model.name, self.weights, self.tp, self._attention_tp,
            self.ep, self.group_size,
        )  # fmt: skip
        return self._catalog.derived(key, model, build)

    @property
    def _stage_layers(self) -> float:
        """Share of the model's layers the largest pipeline stage holds, ``ceil(L/pp) / L``."""
        layers = self.transformer.num_layers
        return math.ceil(layers / self.pp) / layers

    def _cache_bytes(
        self, model: TransformerSpec, tokens: float, tensor_parallel: int, block: int
    ) -> float:
        """One sequence's KV cache of ``tokens`` tokens on one of ``tensor_parallel`` ranks in
        this plan's format, paged in blocks of ``block`` tokens (:func:`kv_cache_bytes`), in
        bytes, built once per catalog for the model, tokens, format, degree and block
        (:meth:`Catalog.derived`: a search asks for the same on every GPU and engine)."""

        def build() -> float:
            held = kv_cache_bytes(
                model, tokens, 1, self.kv_format, tensor_parallel=tensor_parallel,
                block_size=block,
            )  # fmt: skip
            return float(in_unit(held, "byte"))

        key = ("serving KV-cache bytes", model.name, tokens, self.kv_format, tensor_parallel, block)
        return self._catalog.derived(key, model, build)

    def _sequence_bytes(self, model: TransformerSpec, tokens: float, block: int) -> float:
        held = self._cache_bytes(model, tokens, self._attention_tp, block)
        return held * self._stage_layers  # the largest stage's layers

    @cached_property
    def memory(self) -> dict[str, float]:
        """Bytes per GPU: weights (target and draft), the engine's budget, the KV cache of one
        sequence at ``P + O`` tokens (paged), and the batch that fits."""
        model, a = self.transformer, self.assumptions
        block = self.block_size or a.kv_block_size
        longest = float(np.max(self._prompt + self._output))
        weights = self._weight_bytes(model)
        sequence = self._sequence_bytes(model, longest, block)
        draft = self.draft_model
        if draft is not None:
            weights += self._weight_bytes(draft)
            sequence += self._sequence_bytes(draft, longest, block)
        capacity = float(in_unit(self.accelerator.memory_available, "byte"))
        budget = capacity * a.gpu_memory_utilization
        free = budget - weights
        return {
            "capacity": capacity, "budget": budget, "weights": weights, "sequence": sequence,
            "free": free,
            # under attention data parallel each of the ep ranks holds its own sequences
            "max_batch": float(max(math.floor(free / sequence), 0) * self._data_parallel),
            "block": float(block), "longest": longest,
        }  # fmt: skip

    @property
    def fits(self) -> bool:
        return self.memory["max_batch"] >= 1

    def require_fit(self) -> None:
        """Raise :class:`MlcostError` (one line) when the weights or the given batch do not fit."""
        if not self.fits:
            m = self.memory
            raise RunDoesNotFitError(
                f"does not fit: {self.transformer.name} needs {m['weights'] / 1e9:.1f} GB of "
                f"weights and {m['sequence'] / 1e9:.2f} GB of KV cache per sequence on each "
                f"{self.accelerator.name} ({m['budget'] / 1e9:.1f} GB usable); use --tp "
                f"{self.tp * 2} (or pp={self.pp * 2}), --weights fp8 or int4, or a GPU with more "
                "memory"
            )
        if self.batch is not None and self.batch > self.memory["max_batch"]:
            raise MlcostError(
                f"batch: got {self.batch}, but at most {self.memory['max_batch']:.0f} sequences "
                f"of {self.memory['longest']:.0f} tokens fit in the KV cache on each "
                f"{self.accelerator.name}; use --concurrency <= "
                f"{self.memory['max_batch']:.0f} or more --tp"
            )

    def decode_sequences(self, batch: Any) -> Any:
        """The sequences one decode forward runs for ``batch`` (:meth:`timing`): a rank's
        ``batch / ep`` under attention data parallel, a micro-batch's ``/ pp`` with pipeline
        stages."""
        return np.asarray(batch, dtype=np.float64) / self._data_parallel / self.pp

    def timing(self, batch: Any, *, alongside: Any = None) -> dict[str, Any]:
        """Seconds of one continuous-batching iteration and its parts for ``batch`` sequences
        (a number or a numpy array): the decode step (with speculation), the prefill per prompt
        token, tokens per step, TPOT, TTFT, output tokens per second and the GPU-seconds an
        output token costs with its share of the prefills (``gpu_s_per_output_token``: the
        replica's ``tp`` GPUs over the iteration, and under disaggregation the prefill pool's
        ``P / O`` prompt tokens per output token besides). ``alongside``: decode sequences
        (:meth:`decode_sequences`) of other plans of the same model, formats and GPU, placed
        on the roofline with this plan's (a search's plans share one evaluation); the answer is
        that of ``batch`` alone."""
        model, system, c = self.transformer, self.resolved_system, self._ceilings
        p, o = float(np.mean(self._prompt)), float(np.mean(self._output))
        context = mean_context(self._prompt, self._output)
        b = np.asarray(batch, dtype=np.float64)

        engine = self.resolved_engine
        graph = engine.decode_graphs

        def comm(tokens: Any) -> Any:
            return self.communication_seconds(tokens)

        # Under attention data parallel (ep > 1) every rank runs the forwards below for its own
        # b / ep sequences (and, prefilling, its own prompts), the experts taking the tokens of
        # all ranks; the replica's tokens per iteration are ep times a rank's.
        dp = self._data_parallel
        b = b / dp

        def seconds(table: OperatorTable, of: TransformerSpec, step: bool) -> Any:
            return forward_seconds(
                table,
                c,
                engine,
                layers=of.num_layers,
                graph=step and graph,
                factor=self.gpu_time_factor,
            )

        # The engine's own work, once per engine step (a prompt's prefill on its own, a decode
        # step with the prefill chunks it carries, a speculative round), not per forward.
        overhead = engine.step_seconds
        # The front end's time per request (HTTP, tokenization, the first chunk streamed): on
        # every first token's path, off the GPU's, so outside every queue's service time.
        frontend = engine.request_seconds
        # A prompt's prefill alone; admitted prompts share forwards of up to prefill_tokens
        # tokens (one weight read); the decode step, of the b / pp sequences of a pipeline's
        # micro-batch (b without stages), unless a draft model proposes the tokens.
        together = prompts_per_prefill(engine.prefill_tokens, p)
        draft = self.draft_model
        alone, batched, decode = self._prefill_and_decode(
            model, together, p, None if draft is not None else self.decode_sequences(batch),
            context, alongside,
        )  # fmt: skip
        prefill = alone + overhead
        per_prompt_token = batched / (together * p)
        if self.pp > 1:
            return self._pipeline_timing(b, p, o, context, prefill, per_prompt_token, decode)
        if draft is None:
            step = decode
            tokens = np.ones_like(b)
        else:
            k = self.draft_tokens
            drafting = seconds(decode_operators(draft, b, context, **self._options), draft, True)
            drafting = k * (drafting + self.gpu_time_factor * tensor_parallel_seconds(
                system, self.tp, draft.hidden_size, draft.num_layers, b))  # fmt: skip
            verify = seconds(
                forward_operators(model, b, k + 1, context, **self._options), model, True
            ) + comm(b * (k + 1))
            step = drafting + verify
            tokens = np.asarray(
                expected_accepted_tokens(float(self.acceptance or 0), k)
            ) * np.ones_like(b)
        step = step + overhead
        if not engine.continuous_batching:
            # A static batch (Hugging Face generate): b prompts prefilled together, then O decode
            # steps; a token every step, the batch's prefill amortized over its O steps.
            batch_prefill = (
                seconds(prefill_operators(model, b, p, **self._options), model, False)
                + comm(b * p)
                + overhead
            )
            per_token: Any = np.asarray(batch_prefill) / (b * p)
            amortized = np.asarray(step + batch_prefill / o, dtype=np.float64)
            return {
                "prefill": batch_prefill, "per_prompt_token": per_token, "step": step,
                "tokens_per_step": tokens, "iteration": amortized, "tpot": step / tokens,
                "ttft": np.asarray(batch_prefill, dtype=np.float64) + frontend,
                "prefill_share": batch_prefill / o / amortized,
                "output_rate": b * tokens / amortized,
                "request_rate": b * tokens / amortized / o, "prompt": p, "output": o,
                "gpu_s_per_output_token": self.tp * amortized / (b * tokens),
                "context": context,
            }  # fmt: skip
        if self.disaggregated:
            parts = {
                "prefill": prefill, "per_prompt_token": per_prompt_token, "step": step,
                "tokens_per_step": tokens, "prompt": p, "output": o, "context": context,
                "frontend": frontend,
            }  # fmt: skip
            return self.disaggregated_timing(parts, b)
        if self.arrivals == "closed-loop":
            # b clients per rank in a closed loop: the response-time law sets the request rate
            # and with it the prefills each iteration carries (closed_loop_steady_state).
            looped, ttft, rate = (
                np.asarray(value, dtype=np.float64)
                for value in closed_loop_steady_state(
                    prefill, step, p * per_prompt_token, np.ceil(b), o, tokens, frontend=frontend
                )
            )
            return {
                "prefill": prefill, "per_prompt_token": per_prompt_token, "step": step,
                "tokens_per_step": tokens, "iteration": looped, "tpot": looped / tokens,
                "ttft": ttft, "prefill_share": rate * prefill,
                "output_rate": dp * rate * o, "request_rate": dp * rate, "prompt": p,
                "output": o, "gpu_s_per_output_token": self.tp / (dp * rate * o),
                "context": context,
            }  # fmt: skip
        iteration = batching_iteration_seconds(step, per_prompt_token, b * tokens, p, o)
        iteration = np.asarray(iteration, dtype=np.float64)
        service = p * np.asarray(per_prompt_token)  # what one admitted prompt adds to it
        return {
            "prefill": prefill, "per_prompt_token": per_prompt_token, "step": step,
            "tokens_per_step": tokens, "iteration": iteration, "tpot": iteration / tokens,
            "ttft": np.asarray(
                time_to_first_token(prefill, step, iteration, b * tokens, o, service)
            )
            + frontend,
            "prefill_share": prefill_share(service, iteration, b * tokens, o),
            "output_rate": dp * b * tokens / iteration,
            "request_rate": dp * b * tokens / iteration / o, "prompt": p, "output": o,
            "gpu_s_per_output_token": self.tp * iteration / (dp * b * tokens),
            "context": context,
        }  # fmt: skip

    def disaggregated_timing(self, parts: dict[str, Any], batch: Any) -> dict[str, Any]:
        """:meth:`timing` of prefill and decode on separate replicas (DistServe, Zhong et al.
        2024, section 3) from its ``parts`` (``prefill``, ``per_prompt_token``, ``step``,
        ``tokens_per_step``, ``prompt``, ``output``, ``context``, as :meth:`timing` of the
        aggregated layout gives them for the same model, GPUs and formats): a decode iteration
        is the decode step alone; the first token waits for the prompt's prefill ``S``, its
        place in the prefill pool's queue, the KV cache's transfer ``T``
        (:attr:`kv_transfer_seconds`), half a step and the front end's time ``F``
        (``frontend``, :attr:`mlcost.specs.Engine.request_overhead`; 0 without it). The prefill
        pool is an M/D/1 queue (prompts at random, one prefill at a time, as
        :func:`mlcost.serving.latency.time_to_first_token` queues them) kept at the utilization
        ``rho`` its TTFT target (:attr:`latency_target`) allows: the mean wait ``rho·S / (2(1 -
        rho))`` (Pollaczek-Khinchine) fills the budget ``W = target - S - T - step/2 - F``, so
        ``rho = 2x / (1 + 2x)`` with ``x = W / S`` (``rho = 1/2``, a wait of ``S/2``, where no
        budget is left: the layout misses its target). An output token costs the decode replica's
        ``tp x step / b`` GPU-seconds and the prefill pool's ``tp x P / O x`` prefill seconds
        per prompt token over ``rho``: a pool kept busier would queue past the target."""
        b = np.asarray(batch, dtype=np.float64)
        prefill, per_prompt_token = parts["prefill"], parts["per_prompt_token"]
        tokens, p, o = parts["tokens_per_step"], parts["prompt"], parts["output"]
        transfer = self.kv_transfer_seconds
        alone = np.asarray(parts["step"], dtype=np.float64)
        s = np.asarray(prefill, dtype=np.float64)
        fixed = s + transfer + alone / 2 + parts.get("frontend", 0.0)
        # the budget shrunk by 1e-9 so that the queue fills it without rounding past it
        budget = (self.latency_target[0] - fixed) * (1 - 1e-9)
        x = np.maximum(budget, 0.0) / s
        rho = np.where(budget > 0, 2 * x / (1 + 2 * x), 0.5)
        wait = rho * s / (2 * (1 - rho))
        return {
            "prefill": prefill, "per_prompt_token": per_prompt_token, "step": parts["step"],
            "tokens_per_step": tokens, "iteration": alone, "tpot": alone / tokens,
            "ttft": fixed + wait, "prefill_share": 0.0 * alone, "prefill_pool_load": rho,
            "output_rate": b * tokens / alone, "request_rate": b * tokens / alone / o,
            "gpu_s_per_output_token": self.tp
            * (alone / (b * tokens) + p / o * per_prompt_token / rho),
            "prompt": p, "output": o, "context": parts["context"], "kv_transfer": transfer,
        }  # fmt: skip

    def stage_hop_seconds(self, tokens: Any) -> Any:
        """Seconds to pass ``tokens`` activations (``tokens · h`` 16-bit values per rank) from
        one pipeline stage to the next, point to point (``alpha + S / beta``, Hockney 1994;
        :mod:`mlcost.comms`) between GPUs ``tp`` apart on the system's links."""
        system = self.resolved_system
        size = np.asarray(tokens, dtype=np.float64) * self.transformer.hidden_size * 2.0
        where = placement(system, 2, stride=self.tp)
        return collective_seconds(system, "point-to-point", size, where)

    def _pipeline_timing(
        self,
        b: Any,
        p: float,
        o: float,
        context: float,
        prefill: Any,
        per_prompt_token: Any,
        decode: Any,
    ) -> dict[str, Any]:
        """Continuous batching over ``pp`` pipeline stages with micro-batched decode (vLLM's
        and TensorRT-LLM's pipeline parallelism: ``pp`` micro-batches of ``m = b / pp``
        sequences in flight, one per stage). Each stage holds ``L / pp`` layers, so a
        micro-batch's pass through all stages takes the whole model's forward at ``m``, and each
        stage's share is ``1/pp`` of it: in one round every micro-batch passes every stage once,

            round = t_decode(m) + m · P / O · t_prefill per token + pp · hop(m)

        (its decode step, the prefill tokens of the ``m · P / O`` prompts that replace its
        finished sequences, and ``pp`` stage-to-stage transfers, the last stage's back to the
        first), and ``b`` tokens come out per round: TPOT is the round, throughput ``b /
        round``. With uneven stages (``L`` not a multiple of ``pp``, as vLLM splits them) the
        largest stage, ``ceil(L / pp)`` layers, sets the pace: the decode and prefill terms
        are scaled by ``pp x ceil(L / pp) / L`` (1 for even stages). Every stage reads its
        weights once per micro-batch, ``pp`` times a round: at small batches the pipeline's
        TPOT is that of one GPU holding the whole model, its gain is memory (Narayanan et al.
        2021, section 2.2; Yu et al. 2022, Orca, section 4.2). The first token waits for its
        prompt's prefill through every stage, ``pp - 1`` transfers, and the prefill queue of
        its micro-batch. ``decode``: the model's decode step at ``m`` with its all-reduces
        (:meth:`timing`)."""
        engine = self.resolved_engine
        m = np.asarray(b, dtype=np.float64) / self.pp
        # Uneven stages (L not a multiple of pp): the largest, ceil(L / pp) layers, sets the
        # pace, so a round takes pp x its share of the model's work instead of the whole.
        slowest = self.pp * self._stage_layers
        step = (
            slowest * np.asarray(decode) + engine.step_seconds
        )  # fmt: skip
        per_prompt_token = slowest * np.asarray(per_prompt_token)
        hops = self.pp * np.asarray(self.stage_hop_seconds(m))
        round_ = (
            np.asarray(
                batching_iteration_seconds(step, per_prompt_token, m, p, o), dtype=np.float64
            )
            + hops
        )
        first = prefill + (self.pp - 1) * np.asarray(self.stage_hop_seconds(p))
        service = p * per_prompt_token  # what one admitted prompt adds to a round
        return {
            "prefill": first, "per_prompt_token": per_prompt_token, "step": step + hops,
            "tokens_per_step": np.ones_like(m), "iteration": round_, "tpot": round_,
            "ttft": np.asarray(time_to_first_token(first, step + hops, round_, m, o, service))
            + engine.request_seconds,
            "prefill_share": prefill_share(service, round_, m, o),
            "output_rate": b / round_, "request_rate": b / round_ / o, "prompt": p,
            "output": o, "gpu_s_per_output_token": self.tp * self.pp * round_ / b,
            "context": context,
        }  # fmt: skip

    def replicas(
        self, rate: float | None, request_rate: float, prefill_per_request: float
    ) -> float:
        """Replicas (of ``tp`` GPUs) that carry ``rate`` requests/s (one without a rate): ``ceil(
        rate / requests per second per replica)``; disaggregated, plus the prefill pool's
        ``ceil(rate x prefill seconds per request)`` (at least one)."""
        decode = 1.0 if rate is None else float(math.ceil(rate / request_rate))
        if not self.disaggregated:
            return decode
        prefill = 1.0 if rate is None else float(math.ceil(rate * prefill_per_request))
        return decode + max(prefill, 1.0)

    @cached_property
    def kv_transfer_seconds(self) -> float:
        """Seconds to move one prompt's KV cache from a prefill replica to a decode replica
        (disaggregated serving): each of the ``tp`` ranks sends its share, ``L`` layers x the
        cache width per rank x ``P`` tokens, point to point (``alpha + S / beta``, Hockney
        1994; :mod:`mlcost.comms`) to its peer on another node when the system has several
        (their inter-node link), else within the node."""
        system = self.resolved_system
        p = float(np.mean(self._prompt))
        size = self._cache_bytes(self.transformer, p, self.tp, 1)
        apart = system.gpus_per_node if int(system.nodes) > 1 else 1
        where = placement(system, 2, stride=apart)
        return float(np.asarray(collective_seconds(system, "point-to-point", size, where)))

    @cached_property
    def largest_batch(self) -> int:
        """The most sequences that decode together: the KV cache's limit
        (``memory["max_batch"]``), capped by the engine's ``max_batch``."""
        self.require_fit()
        largest = int(self.memory["max_batch"])
        cap = self.resolved_engine.max_batch
        return largest if cap is None else min(largest, cap)

    @cached_property
    def latency_target(self) -> tuple[float, float]:
        """The TTFT and TPOT (seconds) the default batch must meet: ``ttft``/``tpot`` when given,
        else :attr:`Assumptions.serving_ttft_target` and ``serving_tpot_target`` (MLPerf
        Inference's interactive constraint); converted once per plan."""
        a = self.assumptions
        ttft = a.serving_ttft_target if self.ttft is None else self.ttft
        tpot = a.serving_tpot_target if self.tpot is None else self.tpot
        return (float(magnitude_in(ttft, "s", "ttft", bare=False)),
                float(magnitude_in(tpot, "s", "tpot", bare=False)))  # fmt: skip

    @cached_property
    def chosen_batch(self) -> tuple[int, str]:
        """The batch and why: given; the smallest carrying ``rate`` (within the latency target
        where one does); else the largest meeting the latency target (:attr:`latency_target`),
        batch 1 when none does. Never the memory limit for its own sake: no deployment decodes
        at the KV cache's limit whatever the latency."""
        self.require_fit()
        if self.batch is not None:
            return self.batch, "given"
        largest = self.largest_batch
        candidates = np.arange(1, largest + 1)
        timing = self.timing(candidates)
        ttft, tpot = self.latency_target
        meets = (np.asarray(timing["ttft"]) <= ttft) & (np.asarray(timing["tpot"]) <= tpot)
        target = f"TTFT <= {ttft * 1e3:g} ms and TPOT <= {tpot * 1e3:g} ms"
        if self.rate is not None:
            rate = float(magnitude_in(self.rate, "1/s", "rate", bare=True))
            carried = np.asarray(timing["request_rate"]) >= rate
            if np.any(carried & meets):
                smallest = int(candidates[np.argmax(carried & meets)])
                return smallest, f"the smallest batch that carries {rate:g} requests/s ({target})"
        if np.any(meets):
            best = int(candidates[len(candidates) - 1 - np.argmax(meets[::-1])])
            return best, f"the largest batch that meets {target}"
        return 1, f"batch 1: no batch meets {target}"

    @cached_property
    def _values(self) -> dict[str, Any]:
        batch, _ = self.chosen_batch
        v = dict(self.timing(batch))
        v = {key: float(np.asarray(value)) for key, value in v.items()}
        v["batch"] = float(batch)
        rate = (
            None if self.rate is None else float(magnitude_in(self.rate, "1/s", "rate", bare=True))
        )
        v["replicas"] = self.replicas(rate, v["request_rate"], v["prompt"] * v["per_prompt_token"])
        v["gpus"] = v["replicas"] * self.tp * self.pp
        # GPU-seconds of one replica per token: input (prefill) and output (decode) apart; an
        # iteration (with pp stages, a round of pp micro-batches of b / pp) carries the prefill
        # of the b / (pp·dp) x tokens x P / O prompt tokens that replace a rank's finished
        # sequences (attention data parallel: dp = ep ranks share the b sequences).
        dp = self._data_parallel
        input_share = (
            batch
            / (self.pp * dp)
            * v["tokens_per_step"]
            * v["prompt"]
            / v["output"]
            * v["per_prompt_token"]
        )
        decode_part = v["iteration"] - (0.0 if self.disaggregated else input_share)
        v["input_gpu_s"] = self.tp / dp * v["per_prompt_token"]
        v["output_gpu_s"] = self.tp * self.pp * decode_part / (batch * v["tokens_per_step"])
        measured = self.accelerator.measured
        based_on = measured.based_on if measured is not None else None
        names = (self.accelerator.name, *([based_on] if based_on else []))
        price, price_source = resolve_price(self.price, catalog=self._catalog, gpu_names=names)
        v["price"], v["price_source"] = price, price_source
        electricity = region_electricity(
            self.electricity_price, grid=self.grid, assumptions=self.assumptions
        )
        pue = region_pue(self.pue, self.facility, grid=self.grid, assumptions=self.assumptions)
        v.update(electricity)
        v.update(pue)
        communication = self.communication_seconds(batch / dp)
        busy = 1.0 - float(np.asarray(communication)) / v["step"] if v["step"] > 0 else 1.0
        convention = resolve_power(
            accounting=self.accounting, power_per_gpu=self.power_per_gpu,
            resolved=self.resolved_system,
        )  # fmt: skip
        v["accounting"], v["power_source"] = convention["accounting"], convention["power_source"]
        if convention["power_per_gpu"] is not None:
            power = float(convention["power_per_gpu"])
        else:
            tdp = self.accelerator.tdp
            if tdp is None:
                raise MlcostError(
                    f"gpu: {self.accelerator.name} has no tdp in its spec; energy needs one"
                )
            gpu_power = energy.accelerator_power(
                busy, tdp, idle_fraction=self.assumptions.gpu_idle_fraction
            )
            power = (gpu_power + self.resolved_system.host_power_per_gpu).to("W").magnitude
        v["utilization"], v["power_w"] = busy, float(power)
        intensity = float(in_unit(self.grid.carbon_intensity, "gCO2e/kWh"))
        # Embodied carbon of the GPU and of its share of the server (Luccioni et al. 2022,
        # section 4.1), as the training plans count it.
        embodied = (
            self.accelerator.embodied_carbon or self.assumptions.embodied_carbon_per_gpu
        ) + self.assumptions.embodied_carbon_per_server / self.resolved_system.gpus_per_node
        life_hours = (self.assumptions.gpu_lifetime * self.assumptions.gpu_use_rate).to("hour")
        for kind in ("input", "output"):
            gpu_hours = v[f"{kind}_gpu_s"] * MILLION / SECONDS_PER_HOUR
            kwh = float(energy.energy(Q_(power, "W"), Q_(gpu_hours, "hour"), pue=v["pue"])
                        .to("kWh").magnitude)  # fmt: skip
            v[f"{kind}_usd"] = price * gpu_hours
            v[f"{kind}_kwh"] = kwh
            operational = float(
                energy.operational_carbon(Q_(kwh, "kWh"), Q_(intensity, "gCO2e/kWh"))
                .to("gCO2e")
                .magnitude
            )
            v[f"{kind}_gco2e"] = operational + float(
                energy.embodied_carbon(Q_(gpu_hours, "hour"), embodied, life_hours)
                .to("gCO2e")
                .magnitude
            )
        v["intensity"] = intensity
        return v

    # ----- the result vocabulary -------------------------------------------------------------
    @property
    def description(self) -> str:
        spec = (
            ""
            if self.draft is None
            else f", draft {self.draft_model.name if self.draft_model else ''}"
        )
        return (
            f"{self.transformer.name} on {self.accelerator.name}"
            + (f" x{self.tp} (tensor parallel)" if self.tp > 1 and self.ep == 1 else "")
            + (f" x{self.ep} (expert parallel, attention data parallel)" if self.ep > 1 else "")
            + (f" x{self.pp} (pipeline stages)" if self.pp > 1 else "")
            + f", weights {self.weights}, KV cache {self.kv_format}, prompt "
            f"{np.mean(self._prompt):.0f} / output {np.mean(self._output):.0f} tokens{spec}"
        )

    #: The short answer: fits?, the batch, TTFT, TPOT, throughput, GPUs, $ and CO2e per
    #: million output tokens.
    VERDICT: ClassVar[tuple[str, ...]] = (
        "fit", "batch", "time to first token", "time per output token",
        "output throughput per replica", "GPUs", "USD per million output tokens",
        "CO2e per million output tokens",
    )  # fmt: skip

    def title(self) -> str:
        return f"ServePlan: {self.description}"

    @cached_property
    def _figures(self) -> tuple[Figure, ...]:
        m = self.memory
        model = self.transformer
        gb = 1e9
        verdict = (
            f"fits: up to {m['max_batch']:.0f} sequences of {m['longest']:.0f} tokens"
            if self.fits
            else "does not fit"
        )
        kv_source = (
            "Kwon et al. 2023 (PagedAttention) section 4.2; " + ASSUMPTION_SOURCES["kv_block_size"]
        )
        memory = [
            Figure("fit", verdict, "weights + b x KV per sequence <= memory x utilization"),
            Figure("weights per GPU", Q_(m["weights"] / gb, "GB"),
                   "GEMM weights in the serving format (+ scales) + the rest in 16 bits, / tp",
                   f"{self.weights}, tp={self.tp}", "mlcost.serving.weights (AWQ/GPTQ layouts)"),
            Figure("KV cache per token", kv_bytes_per_token(model, self.kv_format,
                                                             tensor_parallel=self._attention_tp).to("KiB/token"),
                   "L x width x e (width 2 x n_kv x d per rank; d_c + d_rope for MLA)",
                   f"{self.kv_format}",
                   "mlcost.serving.kv_cache"),
            Figure("KV cache per sequence", Q_(m["sequence"] / gb, "GB"),
                   "paged: block x ceil(cached tokens / block) per layer, windows capped",
                   f"{m['longest']:.0f} tokens, blocks of {m['block']:.0f}", kv_source),
            Figure("memory for the KV cache", Q_(max(m["free"], 0.0) / gb, "GB"),
                   "max(0, memory x utilization - weights)",
                   f"{m['capacity'] / gb:.1f} GB x {self.assumptions.gpu_memory_utilization} - "
                   f"{m['weights'] / gb:.1f} GB", ASSUMPTION_SOURCES["gpu_memory_utilization"]),
            Figure("largest batch", Q_(m["max_batch"], "dimensionless"),
                   "floor(memory for the KV cache / KV cache per sequence)"
                   + (f" x {self.ep} attention data-parallel ranks" if self.ep > 1 else "")),
        ]  # fmt: skip
        if not self.fits:
            return tuple(memory)
        v = self._values
        batch, why = self.chosen_batch
        ceilings = self._ceilings[""]
        engine = self.resolved_engine
        roofline = (
            "Williams et al. 2009 (roofline); ceilings: " + ceilings.source
            + f"; engine {engine.name}: " + "; ".join(engine.references.values())
        )  # fmt: skip
        launched = ("max(sum over forward operators of max(compute, memory) + K x kernel "
                    "overhead, host ops x dispatch overhead) + TP all-reduces")  # fmt: skip
        replayed = ("sum over forward operators of max(compute, memory) + K x graph kernel "
                    "overhead + TP all-reduces")  # fmt: skip
        figures = [
            *memory,
            Figure("batch", Q_(batch, "dimensionless"), why),
            Figure("prefill (one prompt)", Q_(v["prefill"], "s").to("ms"), launched,
                   f"{v['prompt']:.0f} tokens, engine {engine.name}", roofline),
            Figure("decode step", Q_(v["step"], "s").to("ms"),
                   (replayed if engine.decode_graphs else launched)
                   + (" (k drafts + one verification)" if self.draft else ""),
                   f"batch {batch}, mean context {v['context']:.0f} tokens, engine {engine.name}",
                   roofline),
            Figure("tokens per decode step", v["tokens_per_step"],
                   "(1 - a^(k+1)) / (1 - a) with a draft, else 1", "",
                   "Leviathan et al. 2023, eq. 1" if self.draft else ""),
            Figure("iteration", Q_(v["iteration"], "s").to("ms"),
                   "decode step + prefill of the b x tokens x P / O prompt tokens admitted",
                   f"P {v['prompt']:.0f}, O {v['output']:.0f}", "Yu et al. 2022 (Orca); vLLM"),
            *([Figure("KV transfer (prefill to decode)", Q_(v["kv_transfer"], "s").to("ms"),
                      "alpha + KV bytes per rank / link bandwidth, to a decode replica",
                      "disaggregated prefill and decode", "Hockney 1994; Zhong et al. 2024")]
              if self.disaggregated else []),
            *([Figure("GPU-time correction", Q_(self.calibration.factor, "dimensionless"),
                      "a forward's seconds on the GPUs (kernels, collectives) x the factor; "
                      "calibrated=False: the uncorrected model", self.calibration.note,
                      self.calibration.derivation)]
              if self.calibration is not None else []),
            banded(Figure("time to first token", Q_(v["ttft"], "s").to("ms"),
                   "prefill + KV transfer + step / 2 + front end (prefill pool sized for its "
                   "load)" if self.disaggregated else
                   "R(N) + front end F: R(n) = prefill x (1 + Q(n-1)), Q(n) = n R(n) / (R(n) + "
                   "(O-1) x iteration + F), N = batch clients" if self.arrivals == "closed-loop"
                   else "prefill + step / 2 + rho x prefill / (2 (1 - rho)) + front end, rho "
                   "the prefill share",
                   f"rho {v['prefill_share']:.2f}, front end F "
                   f"{engine.request_seconds * 1e3:g} ms ({engine.name})",
                   "mean value analysis of the closed loop (Reiser and Lavenberg 1980)"
                   if self.arrivals == "closed-loop" else
                   "Pollaczek-Khinchine mean wait of an M/D/1 queue (Kleinrock 1975, "
                   "section 5.7)")),
            banded(Figure("time per output token", Q_(v["tpot"], "s").to("ms"),
                   "iteration / tokens per decode step")),
            banded(Figure("output throughput per replica", Q_(v["output_rate"], "token/s"),
                   "b x tokens per step / iteration"), rate=True),
            Figure("requests per second per replica", Q_(v["request_rate"], "1/s"),
                   "output throughput / O"),
            Figure("GPUs", Q_(v["gpus"], "dimensionless"),
                   "(ceil(rate / requests per second per decode replica) + ceil(rate x P x "
                   "prefill seconds per prompt token)) x tp" if self.disaggregated else
                   "ceil(rate / requests per second per replica) x tp",
                   "" if self.rate is None else f"rate {self.rate}"),
            Figure("price per GPU-hour", Q_(v["price"], "USD/hour"), "", "", v["price_source"]),
            Figure("USD per million input tokens", Q_(v["input_usd"], "USD"),
                   "price x tp x prefill seconds per prompt token x 1e6 / 3600"),
            Figure("USD per million output tokens", Q_(v["output_usd"], "USD"),
                   "price x tp x decode seconds per output token x 1e6 / 3600"),
            Figure("power per GPU", Q_(v["power_w"], "W"),
                   f"the {v['accounting']} convention (utilization: P_idle + (TDP - P_idle) x "
                   "busy share + host share)", f"busy {v['utilization']:.0%}", v["power_source"]),
            Figure("energy per million input tokens", Q_(v["input_kwh"], "kWh"),
                   "power x GPU-hours x PUE", f"PUE {v['pue']}", v["pue_source"]),
            Figure("energy per million output tokens", Q_(v["output_kwh"], "kWh"),
                   "power x GPU-hours x PUE", f"PUE {v['pue']}", v["pue_source"]),
            Figure("CO2e per million input tokens", Q_(v["input_gco2e"], "gCO2e"),
                   "energy x grid intensity + embodied (GPU, server share) x GPU-h / busy life",
                   f"{v['intensity']:.0f} gCO2e/kWh ({self.grid.name})",
                   "Luccioni et al. 2022, section 4.1"),
            Figure("CO2e per million output tokens", Q_(v["output_gco2e"], "gCO2e"),
                   "energy x grid intensity + embodied (GPU, server share) x GPU-h / busy life",
                   f"{v['intensity']:.0f} gCO2e/kWh ({self.grid.name})",
                   "Luccioni et al. 2022, section 4.1"),
        ]  # fmt: skip
        return tuple(figures)

    def figures(self) -> list[Figure]:
        return list(self._figures)

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data.update(
            {
                "model": self.transformer.name, "gpu": self.accelerator.name, "tp": self.tp,
                "pp": self.pp, "ep": self.ep, "nodes": int(self.resolved_system.nodes),
                "weights": self.weights, "kv_format": self.kv_format, "fits": self.fits,
                "region": self.grid.name,
            }
        )  # fmt: skip
        return data

    def row(self) -> dict[str, Any]:
        """The headline numbers as plain values (what :meth:`sweep` tabulates)."""
        v = self._values
        return {
            "batch": int(v["batch"]), "ttft_ms": v["ttft"] * 1e3, "tpot_ms": v["tpot"] * 1e3,
            "output_tokens_per_s": v["output_rate"], "requests_per_s": v["request_rate"],
            "gpus": int(v["gpus"]), "usd_per_m_input": v["input_usd"],
            "usd_per_m_output": v["output_usd"], "kwh_per_m_output": v["output_kwh"],
            "gco2e_per_m_output": v["output_gco2e"],
            "weights_gb": self.memory["weights"] / 1e9, "max_batch": int(self.memory["max_batch"]),
        }  # fmt: skip

    def sweep(self, **axes: Iterable[Any]) -> pd.DataFrame:
        """Every combination of the given axes (:data:`SWEEP_AXES`), one row each; a combination
        that cannot run (does not fit, bad degree) says why in ``problem``."""
        import pandas as pd

        for name in axes:
            if name not in SWEEP_AXES:
                raise MlcostError(
                    f"sweep: unknown axis {name!r}; expected one of {', '.join(SWEEP_AXES)}"
                )
        names = list(axes)
        values = [list(axes[name]) for name in names]
        rows = []
        for combination in itertools.product(*values):
            setting = dict(zip(names, combination, strict=True))
            record: dict[str, Any] = {name: _label(value) for name, value in setting.items()}
            try:
                record.update(replace(self, **setting).row())
                record["problem"] = ""
            except MlcostError as error:
                record["problem"] = str(error)
            rows.append(record)
        return pd.DataFrame(rows)


def banded(figure: Figure, *, rate: bool = False) -> Figure:
    """``figure`` with the serving band (:func:`mlcost.serving.band.serving_latency_band`): a
    time times ``[low, high]``, a rate divided by ``[high, low]``."""
    band = serving_latency_band()
    low, high = (
        (figure.value / band.high, figure.value / band.low) if rate else band.apply(figure.value)
    )
    return record_replace(figure, band=(low, high), band_note=band.note)


def _label(value: Any) -> Any:
    return getattr(value, "name", value)


__all__ = ["ARRIVALS", "SWEEP_AXES", "ServePlan"]
