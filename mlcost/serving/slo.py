"""Serve to a latency target: the cheapest configuration that meets it, the Pareto front of cost
against latency, and why the runner-up lost.

A configuration is a GPU type of the catalog on its standard node (several of them, joined by
the node's network, where the layout needs more GPUs than one holds), a tensor-parallel degree
and a number of pipeline stages (``tp x pp`` GPUs a replica, up to ``max_nodes`` nodes: the
tensor-parallel all-reduces and the stage-to-stage transfers on the system's links), the
weight and KV-cache formats, the engine (:class:`mlcost.specs.Engine`) and the layout:
aggregated, or prefill and decode on separate replicas with each prompt's KV cache sent from
one to the other (:class:`mlcost.ServePlan` ``disaggregated``).
For each, the batch is the largest that meets ``TTFT <= ttft`` and ``TPOT <= tpot`` after the
serving band's margin (:func:`serving_latency_band`: a prediction ``t`` meets a target ``T``
when ``t x high <= T``, ``high`` the 90th percentile of measured / predicted latency over the
published serving rows), within the KV cache and the engine's batch cap
(:attr:`mlcost.ServePlan.largest_batch`): decoding more sequences together only lowers the cost
per token while the latency holds. Its cost is the GPU price times the GPU-seconds an output
token takes with its share of the prefills (``gpu_s_per_output_token`` of
:meth:`mlcost.ServePlan.timing`) per million output tokens, or with ``rate`` the USD per hour of
the replicas that carry it (:meth:`mlcost.ServePlan.replicas`).

Pipeline stages are searched only where they can win. Take ``tp`` GPUs with ``pp`` stages at a
batch ``b``: each round passes ``pp`` micro-batches of ``m = b / pp`` through the whole model
(:meth:`mlcost.ServePlan._pipeline_timing`), so its TPOT is at least the round of ``tp`` GPUs
without stages at batch ``m``, and its cost per token, ``tp x pp x round / b = tp x round /
m``, at least theirs; only its memory differs: a stage holds ``1/pp`` of the layers, so the
unstaged replica needs ``W (1 - 1/pp)`` more bytes for the same ``m``. ``pp`` stages are
therefore tried only where ``pp / 2`` stages (or none) do not fit, or the KV cache, not the
latency target or the engine's cap, stops their batch; the others are counted as pruned. (A
stage's transfers also shift the prefill queue by microseconds; ``prune=False`` searches every
layout, and a test checks the two agree.) Disaggregated serving is searched without stages
(:class:`mlcost.ServePlan` models it with ``pp = 1``); its two replicas are placed on one node
when ``2 x tp`` GPUs fit there (the KV cache over the node's links), else on two (over the
network).

The engines tried on one GPU, formats, degrees and layout evaluate their forwards together:
their prefills and decode steps at every batch tried are the sequences of one operator table,
placed on the roofline once (:meth:`mlcost.ServePlan.timing` with ``alongside``), each
configuration's answer its own.

The cheapest configuration is chosen; the runner-up is the cheapest other deployment, and the
reason it lost is its cost, what stops its batch and the latency it gives away. The Pareto
front holds the configurations that no other beats on both cost and TPOT (at their batch).

Not searched: expert parallelism (not modelled by :class:`mlcost.ServePlan`), and pipeline
stages under disaggregation.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pint

from mlcost.checks import counts
from mlcost.errors import MlcostError
from mlcost.results import Figure, Result
from mlcost.serving.band import serving_latency_band
from mlcost.serving.latency import serving_ceilings
from mlcost.serving.plan import ServePlan
from mlcost.site import resolve_price
from mlcost.specs import Accelerator, Catalog, ModelSpec, default_catalog
from mlcost.specs.catalog import as_model
from mlcost.systems import System
from mlcost.systems import system as system_of
from mlcost.units import Q_, magnitude_in

if TYPE_CHECKING:
    import pandas as pd

#: What the search varies by default (every catalog GPU as well).
DEFAULT_TP = (1, 2, 4, 8, 16)
DEFAULT_PP = (1, 2, 4)
DEFAULT_MAX_NODES = 2
DEFAULT_WEIGHTS = ("bf16", "fp8", "int4")
DEFAULT_KV_FORMATS = ("bf16", "fp8")
DEFAULT_ENGINES = ("vllm", "tensorrt-llm", "sglang")
DEFAULT_LAYOUTS = (False, True)
#: What the plans of a search share: operator tables and what the plans derive from them (by
#: :meth:`mlcost.ServePlan._table`'s key), and the batch grids by largest batch.
Shared = tuple[dict[tuple[Any, ...], Any], dict[tuple[Any, ...], Any], dict[int, np.ndarray]]
#: Why a GPU without a catalog price is not searched.
NO_PRICE = "no price for this GPU"


@dataclass(frozen=True)
class Candidate:
    """One configuration and what it gives at its batch (``problem`` says why none);
    ``limit`` what stops its batch: ``memory`` (the KV cache), ``cap`` (the engine's batch
    cap) or ``latency`` (the target)."""

    gpu: str
    tp: int
    weights: str
    kv_format: str
    engine: str
    disaggregated: bool = False
    pp: int = 1
    nodes: int = 1
    batch: int = 0
    ttft_ms: float = math.nan
    tpot_ms: float = math.nan
    tokens_per_s: float = math.nan
    gpus: int = 0
    usd_per_m_output: float = math.nan
    usd_per_hour: float = math.nan
    largest: int = 0
    limit: str = ""
    problem: str = ""

    @property
    def feasible(self) -> bool:
        return not self.problem

    @property
    def hardware(self) -> tuple[str, int, int, str, str]:
        """The GPU, the degrees and the formats: what a runner-up must differ in."""
        return (self.gpu, self.tp, self.pp, self.weights, self.kv_format)

    @property
    def label(self) -> str:
        layout = " disaggregated" if self.disaggregated else ""
        stages = f" pp{self.pp}" if self.pp > 1 else ""
        nodes = f" on {self.nodes} nodes" if self.nodes > 1 else ""
        return (f"{self.gpu} x{self.tp}{stages}{nodes} {self.weights}/{self.kv_format} "
                f"{self.engine}{layout} b={self.batch}")  # fmt: skip


@dataclass(frozen=True)
class SloSearch(Result):
    """The configurations searched for ``model`` under a TTFT and TPOT target (module
    docstring): :attr:`chosen`, :attr:`runner_up`, :meth:`pareto`, :meth:`plot`."""

    model: str
    ttft_s: float
    tpot_s: float
    rate: float | None
    prompt: int
    output: int
    margin: float
    candidates: tuple[Candidate, ...] = field(default_factory=tuple)
    #: Pipeline layouts not evaluated because a layout with fewer stages dominates them
    #: (module docstring).
    pruned: int = 0

    def _cost(self, c: Candidate) -> float:
        return c.usd_per_hour if self.rate is not None else c.usd_per_m_output

    @property
    def feasible(self) -> list[Candidate]:
        """The configurations that meet the target, cheapest first."""
        return sorted((c for c in self.candidates if c.feasible), key=self._cost)

    @property
    def chosen(self) -> Candidate | None:
        ranked = self.feasible
        return ranked[0] if ranked else None

    @property
    def runner_up(self) -> Candidate | None:
        """The cheapest feasible deployment other than the chosen one's hardware and formats
        (another GPU, degree or format; the chosen deployment under another engine is not a
        runner-up but a variant, :meth:`why_runner_up_lost` names its premium)."""
        best = self.chosen
        if best is None:
            return None
        others = [c for c in self.feasible if c.hardware != best.hardware]
        return others[0] if others else None

    def _limit(self, c: Candidate) -> str:
        if c.limit == "memory":
            return f"the KV cache stops its batch at {c.batch}"
        if c.limit == "cap":
            return f"the engine's batch cap stops its batch at {c.batch}"
        return f"the latency target stops its batch at {c.batch} (of {c.largest} that fit)"

    def why_runner_up_lost(self) -> str:
        """Why the runner-up lost: its cost against the choice's, what limits its batch (the KV
        cache, the engine's cap or the latency target) and the latency it would buy; the
        premium of the choice's hardware under the other engines and layouts, nearest and
        dearest."""
        best, second = self.chosen, self.runner_up
        if best is None or second is None:
            return "no runner-up: no other deployment meets the target"
        unit = "USD/hour" if self.rate is not None else "USD per million output tokens"
        more = self._cost(second) / self._cost(best) - 1
        faster = ""
        if second.tpot_ms < best.tpot_ms:
            faster = (f"; it is faster (TPOT {second.tpot_ms:.1f} against {best.tpot_ms:.1f} "
                      "ms), which the target does not reward")  # fmt: skip
        variants = [c for c in self.feasible if c is not best and c.hardware == best.hardware]
        engines = ""
        if variants:  # feasible is sorted by cost: the first is the nearest, the last the dearest

            def premium(c: Candidate) -> str:
                layout = "disaggregated" if c.disaggregated else "aggregated"
                return f"{self._cost(c) / self._cost(best) - 1:+.1%} ({c.engine} {layout})"

            near, far = variants[0], variants[-1]
            engines = ("; under another engine or layout the choice costs "
                       + (premium(near) if near is far else
                          f"{premium(near)} to {premium(far)}"))  # fmt: skip
        return (f"the runner-up, {second.label}, costs {self._cost(second):.4g} {unit} against "
                f"{self._cost(best):.4g} ({more:+.1%}): {second.tokens_per_s:,.0f} against "
                f"{best.tokens_per_s:,.0f} output tokens/s on {second.gpus} against {best.gpus} "
                f"GPUs, {self._limit(second)}{faster}{engines}")  # fmt: skip

    def pareto(self) -> list[Candidate]:
        """Feasible configurations no other beats on both cost and TPOT, by TPOT."""
        ranked = sorted(self.feasible, key=lambda c: (c.tpot_ms, self._cost(c)))
        front: list[Candidate] = []
        for c in ranked:
            if not front or self._cost(c) < self._cost(front[-1]):
                front.append(c)
        return front

    def title(self) -> str:
        rate = "" if self.rate is None else f", {self.rate:g} requests/s"
        return (f"cheapest serving of {self.model} with TTFT <= {self.ttft_s * 1e3:g} ms and "
                f"TPOT <= {self.tpot_s * 1e3:g} ms (prompt {self.prompt}, output "
                f"{self.output}{rate})")  # fmt: skip

    def figures(self) -> list[Figure]:
        best = self.chosen
        band = serving_latency_band()
        searched = (f"{len(self.candidates)} configurations, {len(self.feasible)} meet the "
                    f"target; {self.pruned} pipeline layouts pruned as dominated")  # fmt: skip
        if best is None:
            problems = Counter(c.problem for c in self.candidates if c.problem != NO_PRICE)
            common = f" (most often: {problems.most_common(1)[0][0]})" if problems else ""
            return [Figure("chosen", "none meets the target" + common, "", searched)]
        margin = (f"predicted latency x {self.margin:.3f} <= target ({band.note})"
                  if self.margin != 1 else "predicted latency <= target")  # fmt: skip
        figures = [
            Figure("chosen", best.label, "the cheapest configuration that meets the target",
                   searched),
            Figure("time to first token", Q_(best.ttft_ms, "ms"), margin),
            Figure("time per output token", Q_(best.tpot_ms, "ms"), margin),
            Figure("output throughput per replica", Q_(best.tokens_per_s, "token/s"),
                   "b / iteration"),
            Figure("GPUs", Q_(best.gpus, "dimensionless"),
                   "tp x pp, or ceil(rate / requests per second per replica) x tp x pp"),
            Figure("USD per million output tokens", Q_(best.usd_per_m_output, "USD"),
                   "price per GPU-hour / 3600 x GPU-seconds per output token (tp x pp x "
                   "iteration / b; disaggregated, plus the prefill pool's P / O prompt tokens) "
                   "x 1e6"),
        ]  # fmt: skip
        if self.rate is not None:
            figures.append(Figure("USD per hour", Q_(best.usd_per_hour, "USD/hour"),
                                  "price per GPU-hour x GPUs"))  # fmt: skip
        figures.append(Figure("runner-up", self.why_runner_up_lost(), ""))
        return figures

    def to_frame(self) -> pd.DataFrame:
        """Every configuration searched, one row each (``problem`` empty where it meets the
        target), cheapest feasible first."""
        import pandas as pd

        rows = [c.__dict__ | {"feasible": c.feasible} for c in self.candidates]
        frame = pd.DataFrame(rows)
        key = "usd_per_hour" if self.rate is not None else "usd_per_m_output"
        return frame.sort_values(["feasible", key], ascending=[False, True]).reset_index(drop=True)

    def plot(self, ax: Any = None) -> Any:
        """Cost against TPOT: every feasible configuration, the Pareto front, the choice."""
        from mlcost import plot

        return plot.slo_front(self, ax=ax)


def batch_grid(largest: int, points: int = 64) -> np.ndarray:
    """Batches the search tries: every batch up to ``points``, then ``points`` geometric steps
    to ``largest`` (steps of at most ``(largest / points)^(1/points)``, under 10% for the
    catalog's batch caps): the chosen batch is within one step of the largest meeting the
    target."""
    counts(largest, "largest")
    counts(points, "points")
    dense = np.arange(1, min(largest, points) + 1)
    if largest <= points:
        return dense
    sparse = np.unique(np.round(np.geomspace(points, largest, points)).astype(int))
    return np.unique(np.concatenate([dense, sparse]))


def _gpus(catalog: Catalog, names: Any) -> list[str]:
    if names is not None:
        return [catalog.accelerator(str(n)).name for n in names]
    return sorted(s.name for s in catalog.items("accelerators") if isinstance(s, Accelerator))


def search_slo(
    model: str | ModelSpec,
    *,
    ttft: pint.Quantity | str,
    tpot: pint.Quantity | str,
    rate: pint.Quantity | float | None = None,
    prompt: int = 1024,
    output: int = 256,
    gpus: Any = None,
    tp: tuple[int, ...] = DEFAULT_TP,
    pp: tuple[int, ...] = DEFAULT_PP,
    max_nodes: int = DEFAULT_MAX_NODES,
    weights: tuple[str, ...] = DEFAULT_WEIGHTS,
    kv_formats: tuple[str, ...] = DEFAULT_KV_FORMATS,
    engines: tuple[str, ...] = DEFAULT_ENGINES,
    layouts: tuple[bool, ...] = DEFAULT_LAYOUTS,
    margin: bool = True,
    prune: bool = True,
    catalog: Catalog | None = None,
) -> SloSearch:
    """The cheapest configuration of ``model`` that meets ``ttft`` and ``tpot`` (module
    docstring); ``tp`` and ``pp`` the degrees tried, a replica on at most ``max_nodes`` of the
    GPU's standard node; ``layouts``: aggregated (False) and disaggregated prefill and decode
    (True); ``margin`` applies the serving latency band (False: the bare prediction);
    ``prune=False`` evaluates every pipeline layout, the dominated ones too."""
    catalog = catalog or default_catalog()
    spec = as_model(model, catalog)
    ttft_s = float(magnitude_in(ttft, "s", "ttft"))
    tpot_s = float(magnitude_in(tpot, "s", "tpot"))
    if not (ttft_s > 0 and tpot_s > 0):
        raise MlcostError(f"ttft, tpot: got {ttft!r} and {tpot!r}, expected latencies > 0")
    rate_value = None if rate is None else float(magnitude_in(rate, "1/s", "rate", bare=True))
    if rate_value is not None and not rate_value > 0:
        raise MlcostError(f"rate: got {rate!r}, expected requests per second > 0")
    counts(max_nodes, "max_nodes")
    for name, degrees in (("tp", tp), ("pp", pp)):
        for degree in degrees:
            counts(degree, name)
    factor = serving_latency_band().high if margin else 1.0
    target = (ttft_s, tpot_s, factor, rate_value)
    # each configuration's candidates by its place in the order gpu, weights, KV format, engine,
    # tp, pp (the engines of a layout are evaluated together, below)
    found_at: list[tuple[tuple[int, ...], list[Candidate]]] = []
    pruned = 0
    # operator tables and what the plans derive from them, shared by every plan of the search,
    # and the batch grids by largest batch
    shared: Shared = ({}, {}, {})
    for g, gpu in enumerate(_gpus(catalog, gpus)):
        price, _ = resolve_price(None, catalog=catalog, gpu_names=(gpu,))
        node = system_of(gpu, catalog=catalog)
        per_node = node.gpus_per_node
        for (i, w), (j, kv) in itertools.product(enumerate(weights), enumerate(kv_formats)):
            # the GPU's ceilings for the formats, or why there are none
            ceilings: dict[str, Any] | str = NO_PRICE
            if math.isfinite(price):
                try:
                    ceilings = serving_ceilings(catalog.accelerator(gpu), w, kv)
                except MlcostError as error:
                    ceilings = str(error)
            for t in sorted(set(tp)):
                if t > per_node * max_nodes:
                    continue
                # each engine's layouts are tried by stages, the first always (no stages yet);
                # an engine whose layouts have no stages to show is done
                memory_stops = [True] * len(engines)
                done = [False] * len(engines)
                for stages in sorted(set(pp)):
                    if t * stages > per_node * max_nodes:
                        continue
                    shown = [x for x in layouts if stages == 1 or not x]
                    tried: list[tuple[int, Candidate, Planned]] = []
                    for e, engine in enumerate(engines):
                        if done[e]:
                            continue
                        if prune and not memory_stops[e]:
                            pruned += not isinstance(ceilings, str)
                            continue
                        if not shown:  # disaggregated alone is searched without stages
                            done[e] = True
                            continue
                        base = Candidate(gpu, t, w, kv, engine, pp=stages)
                        tried.append((e, base, _plan(spec, base, node, (prompt, output), catalog,
                                                     ceilings, shared)))  # fmt: skip
                    # the engines' plans of this layout evaluate their decode steps together
                    alongside = [plan.decode_sequences(grid) for plan, grid in _planned(tried)]
                    for e, base, planned in tried:
                        found = _candidates(spec, base, shown, node, (prompt, output), target,
                                            price, catalog, planned, alongside)  # fmt: skip
                        found_at.append(((g, i, j, e, t, stages), list(found.values())))
                        aggregated = found.get(False)
                        memory_stops[e] = (
                            aggregated is None
                            or aggregated.problem == "does not fit"
                            or (aggregated.feasible and aggregated.limit == "memory")
                        )
    # in the order of the loops gpu, weights, KV format, engine, tp, pp
    candidates = [c for _, found in sorted(found_at, key=lambda item: item[0]) for c in found]
    return SloSearch(
        model=spec.name, ttft_s=ttft_s, tpot_s=tpot_s, rate=rate_value, prompt=prompt,
        output=output, margin=factor, candidates=tuple(candidates), pruned=pruned,
    )  # fmt: skip


#: A configuration's aggregated plan and its batch grid, or why there is none.
Planned = tuple[ServePlan, np.ndarray] | str


def _planned(tried: list[tuple[int, Candidate, Planned]]) -> list[tuple[ServePlan, np.ndarray]]:
    return [planned for _, _, planned in tried if not isinstance(planned, str)]


def _plan(
    spec: ModelSpec,
    base: Candidate,
    node: System,
    tokens: tuple[int, int],
    catalog: Catalog,
    ceilings: dict[str, Any] | str,
    shared: Shared,
) -> Planned:
    """``base``'s aggregated plan, on as many nodes of ``node`` as its GPUs take, and the
    batches it tries (:func:`batch_grid` of its largest), or why there is none: ``ceilings``,
    the GPU's for the formats, or why there are none; ``shared`` the search's operator tables
    and what the plans derive from them (:meth:`mlcost.ServePlan._table`,
    :meth:`mlcost.ServePlan._evaluated`) and the batch grids by largest batch."""
    if isinstance(ceilings, str):
        return ceilings
    prompt, output = tokens
    try:
        nodes = math.ceil(base.tp * base.pp / node.gpus_per_node)
        plan = ServePlan(spec, system=node.with_nodes(nodes), tp=base.tp, pp=base.pp,
                         weights=base.weights, kv_format=base.kv_format, engine=base.engine,
                         prompt=prompt, output=output, catalog=catalog)  # fmt: skip
        if not plan.fits:
            return "does not fit"
        # The plan's ceilings are those of its GPU and formats (ServePlan._ceilings, a cached
        # property): every configuration on that GPU and those formats shares one set.
        plan.__dict__["_ceilings"] = ceilings
        # Likewise its operator tables and their roofline seconds and kernel counts: the
        # search's plans of this model share them.
        plan.__dict__["_tables"], plan.__dict__["_forwards"], grids = shared
        batches = grids.get(plan.largest_batch)
        if batches is None:
            batches = grids[plan.largest_batch] = batch_grid(plan.largest_batch)
    except MlcostError as error:
        return str(error)
    return plan, batches


def _candidates(
    spec: ModelSpec,
    base: Candidate,
    layouts: list[bool],
    node: System,
    tokens: tuple[int, int],
    target: tuple[float, float, float, float | None],
    price: float,
    catalog: Catalog,
    planned: Planned,
    alongside: list[Any],
) -> dict[bool, Candidate]:
    """``base`` in each of ``layouts`` (False: aggregated, True: disaggregated), each at the
    largest batch that meets ``target`` (TTFT and TPOT in seconds, the band's factor, the
    rate), or why none does; a replica on as many nodes of ``node`` as its GPUs take (a
    disaggregated pair: twice the GPUs). ``planned``: its aggregated plan and batches
    (:func:`_plan`), or why there are none; ``alongside`` the decode sequences of the plans
    evaluated with it (:meth:`mlcost.ServePlan.timing`).
    Both layouts share one plan's memory, forwards and decode steps: the disaggregated timing
    is :meth:`mlcost.ServePlan.disaggregated_timing` of the aggregated one's parts."""
    per_node = node.gpus_per_node
    nodes = {apart: math.ceil((2 if apart else 1) * base.tp * base.pp / per_node)
             for apart in layouts}  # fmt: skip
    if isinstance(planned, str):
        return {apart: replace(base, disaggregated=apart, nodes=n, problem=planned)
                for apart, n in nodes.items()}  # fmt: skip
    bases = {apart: replace(base, disaggregated=apart, nodes=n) for apart, n in nodes.items()}
    prompt, output = tokens
    plan, batches = planned
    try:
        timing = plan.timing(batches, alongside=np.concatenate(alongside))
    except MlcostError as error:
        return {apart: replace(b, problem=str(error)) for apart, b in bases.items()}
    limits = (plan.largest_batch, int(plan.memory["max_batch"]))
    found: dict[bool, Candidate] = {}
    for apart, b in bases.items():
        if not apart:
            found[apart] = _at_target(b, plan, batches, timing, limits, target, price)
            continue
        try:
            # its prefill pool kept as busy as the TTFT target (less the band's margin) allows
            split = ServePlan(spec, system=node.with_nodes(b.nodes), tp=base.tp,
                              weights=base.weights, kv_format=base.kv_format,
                              engine=base.engine, disaggregated=True, prompt=prompt,
                              output=output, catalog=catalog,
                              ttft=Q_(target[0] / target[2], "s"))  # fmt: skip
            times = split.disaggregated_timing(timing, batches)
        except MlcostError as error:
            found[apart] = replace(b, problem=str(error))
            continue
        found[apart] = _at_target(b, split, batches, times, limits, target, price)
    return found


def _at_target(
    base: Candidate,
    plan: ServePlan,
    batches: np.ndarray,
    timing: dict[str, Any],
    limits: tuple[int, int],
    target: tuple[float, float, float, float | None],
    price: float,
) -> Candidate:
    """``base`` at the largest of ``batches`` whose ``timing`` meets ``target``; ``limits``:
    the largest batch (the KV cache's, capped by the engine) and the KV cache's alone."""
    ttft_s, tpot_s, factor, rate = target
    ttft, tpot = np.asarray(timing["ttft"]), np.asarray(timing["tpot"])
    meets = (ttft * factor <= ttft_s) & (tpot * factor <= tpot_s)
    if not np.any(meets):
        reason = "TTFT" if ttft[0] * factor > ttft_s else "TPOT"
        return replace(base, problem=f"{reason} above target at batch 1")
    i = len(meets) - 1 - int(np.argmax(meets[::-1]))

    def at(key: str) -> float:  # the value at the chosen batch (scalars such as P as they are)
        value = np.asarray(timing[key], dtype=np.float64)
        return float(value[i] if value.ndim else value)

    largest, memory = limits
    limit = "latency"
    if int(batches[i]) >= largest:
        limit = "memory" if largest >= memory else "cap"
    replicas = plan.replicas(rate, at("request_rate"), at("prompt") * at("per_prompt_token"))
    gpus = base.tp * base.pp
    return replace(
        base, batch=int(batches[i]), ttft_ms=at("ttft") * 1e3, tpot_ms=at("tpot") * 1e3,
        tokens_per_s=at("output_rate"), gpus=int(replicas) * gpus,
        usd_per_m_output=price / 3600.0 * at("gpu_s_per_output_token") * 1e6,
        usd_per_hour=price * replicas * gpus, largest=largest, limit=limit,
    )  # fmt: skip


__all__ = [
    "DEFAULT_ENGINES",
    "DEFAULT_KV_FORMATS",
    "DEFAULT_LAYOUTS",
    "DEFAULT_MAX_NODES",
    "DEFAULT_PP",
    "DEFAULT_TP",
    "DEFAULT_WEIGHTS",
    "Candidate",
    "SloSearch",
    "batch_grid",
    "search_slo",
]
