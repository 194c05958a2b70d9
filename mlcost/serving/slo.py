"""Serve to a latency target: the cheapest configuration that meets it, the Pareto front of cost
against latency, and why the runner-up lost.

A configuration is a GPU type of the catalog (on its standard node), a tensor-parallel degree
within the node, the weight and KV-cache formats and the engine (:class:`mlcost.specs.Engine`).
For each, the batch is the largest that meets ``TTFT <= ttft`` and ``TPOT <= tpot`` after the
serving band's margin (:func:`serving_latency_band`: a prediction ``t`` meets a target ``T``
when ``t x high <= T``, ``high`` the 90th percentile of measured / predicted latency over the
published serving rows), within the KV cache and the engine's batch cap
(:attr:`mlcost.ServePlan.largest_batch`): decoding more sequences together only lowers the cost
per token while the latency holds. Its cost is the GPU price times the GPU-seconds an output
token takes with its share of the prefills (``gpu_s_per_output_token`` of
:meth:`mlcost.ServePlan.timing`) per million output tokens, or with ``rate`` the USD per hour of
the replicas that carry it (:meth:`mlcost.ServePlan.replicas`). ``layouts`` adds disaggregated
prefill and decode (:class:`mlcost.ServePlan` ``disaggregated``) beside the aggregated layout.

The cheapest configuration is chosen; the runner-up is the cheapest other deployment, and the
reason it lost is its cost, what stops its batch and the latency it gives away. The Pareto
front holds the configurations that no other beats on both cost and TPOT (at their batch).

Not searched (issue 63, left for later): pipeline and expert parallelism, and tensor
parallelism across nodes.
"""

from __future__ import annotations

import itertools
import math
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
from mlcost.units import Q_, magnitude_in

if TYPE_CHECKING:
    import pandas as pd

#: What the search varies by default (every catalog GPU as well).
DEFAULT_TP = (1, 2, 4, 8)
DEFAULT_WEIGHTS = ("bf16", "fp8", "int4")
DEFAULT_KV_FORMATS = ("bf16", "fp8")
DEFAULT_ENGINES = ("vllm", "tensorrt-llm", "sglang")


@dataclass(frozen=True)
class Candidate:
    """One configuration and what it gives at its batch (``problem`` says why none)."""

    gpu: str
    tp: int
    weights: str
    kv_format: str
    engine: str
    disaggregated: bool = False
    batch: int = 0
    ttft_ms: float = math.nan
    tpot_ms: float = math.nan
    tokens_per_s: float = math.nan
    gpus: int = 0
    usd_per_m_output: float = math.nan
    usd_per_hour: float = math.nan
    largest: int = 0
    problem: str = ""

    @property
    def feasible(self) -> bool:
        return not self.problem

    @property
    def label(self) -> str:
        layout = " disaggregated" if self.disaggregated else ""
        return (f"{self.gpu} x{self.tp} {self.weights}/{self.kv_format} {self.engine}{layout}"
                f" b={self.batch}")  # fmt: skip


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
        key = (best.gpu, best.tp, best.weights, best.kv_format)
        others = [c for c in self.feasible if (c.gpu, c.tp, c.weights, c.kv_format) != key]
        return others[0] if others else None

    def _limit(self, c: Candidate) -> str:
        if c.batch >= c.largest:
            return f"the KV cache or the engine's cap stops its batch at {c.batch}"
        return f"the latency target stops its batch at {c.batch} (of {c.largest} that fit)"

    def why_runner_up_lost(self) -> str:
        """Why the runner-up lost: its cost against the choice's, what limits its throughput,
        and the latency it would buy; the premium of the choice under the other engines."""
        best, second = self.chosen, self.runner_up
        if best is None or second is None:
            return "no runner-up: no other deployment meets the target"
        unit = "USD/hour" if self.rate is not None else "USD per million output tokens"
        more = self._cost(second) / self._cost(best) - 1
        faster = ""
        if second.tpot_ms < best.tpot_ms:
            faster = (f"; it is faster (TPOT {second.tpot_ms:.1f} against {best.tpot_ms:.1f} "
                      "ms), which the target does not reward")  # fmt: skip
        key = (best.gpu, best.tp, best.weights, best.kv_format)
        variants = [c for c in self.feasible
                    if c is not best and (c.gpu, c.tp, c.weights, c.kv_format) == key]  # fmt: skip
        engines = "; ".join(
            f"under {c.engine}{' disaggregated' if c.disaggregated else ''} the choice costs "
            f"{self._cost(c) / self._cost(best) - 1:+.1%}"
            for c in variants
        )
        return (f"the runner-up, {second.label}, costs {self._cost(second):.4g} {unit} against "
                f"{self._cost(best):.4g} ({more:+.1%}): {second.tokens_per_s:,.0f} against "
                f"{best.tokens_per_s:,.0f} output tokens/s on {second.gpus} against {best.gpus} "
                f"GPUs, {self._limit(second)}{faster}"
                + (f"; {engines}" if engines else ""))  # fmt: skip

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
        searched = f"{len(self.candidates)} configurations, {len(self.feasible)} meet the target"
        if best is None:
            return [Figure("chosen", "none meets the target", "", searched)]
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
                   "tp, or ceil(rate / requests per second per replica) x tp"),
            Figure("USD per million output tokens", Q_(best.usd_per_m_output, "USD"),
                   "price per GPU-hour / 3600 x GPU-seconds per output token (tp x iteration / b; "
                   "disaggregated, plus the prefill pool's P / O prompt tokens) x 1e6"),
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
    weights: tuple[str, ...] = DEFAULT_WEIGHTS,
    kv_formats: tuple[str, ...] = DEFAULT_KV_FORMATS,
    engines: tuple[str, ...] = DEFAULT_ENGINES,
    layouts: tuple[bool, ...] = (False,),
    margin: bool = True,
    catalog: Catalog | None = None,
) -> SloSearch:
    """The cheapest configuration of ``model`` that meets ``ttft`` and ``tpot`` (module
    docstring); ``layouts``: aggregated (False) and, with True, disaggregated prefill and decode
    (twice the work: about 2 s instead of 1); ``margin`` applies the serving latency band
    (False: the bare prediction)."""
    catalog = catalog or default_catalog()
    spec = as_model(model, catalog)
    ttft_s = float(magnitude_in(ttft, "s", "ttft"))
    tpot_s = float(magnitude_in(tpot, "s", "tpot"))
    if not (ttft_s > 0 and tpot_s > 0):
        raise MlcostError(f"ttft, tpot: got {ttft!r} and {tpot!r}, expected latencies > 0")
    rate_value = None if rate is None else float(magnitude_in(rate, "1/s", "rate", bare=True))
    if rate_value is not None and not rate_value > 0:
        raise MlcostError(f"rate: got {rate!r}, expected requests per second > 0")
    factor = serving_latency_band().high if margin else 1.0
    candidates: list[Candidate] = []
    for gpu in _gpus(catalog, gpus):
        price, _ = resolve_price(None, catalog=catalog, gpu_names=(gpu,))
        # the GPU's ceilings per weight and KV-cache format, built once
        ceilings: dict[tuple[str, str], Any] = {}
        for t, w, kv, engine, apart in itertools.product(tp, weights, kv_formats, engines, layouts):
            problem = "" if math.isfinite(price) else "no price for this GPU"
            if not problem and (w, kv) not in ceilings:
                try:
                    ceilings[w, kv] = serving_ceilings(catalog.accelerator(gpu), w, kv)
                except MlcostError as error:
                    ceilings[w, kv] = str(error)
            if not problem and isinstance(ceilings[w, kv], str):
                problem = ceilings[w, kv]
            base = Candidate(gpu, t, w, kv, engine, apart)
            if problem:
                candidates.append(replace(base, problem=problem))
                continue
            target = (ttft_s, tpot_s, factor, rate_value)
            candidates.append(
                _candidate(spec, base, prompt, output, target, price, catalog, ceilings[w, kv])
            )
    return SloSearch(
        model=spec.name, ttft_s=ttft_s, tpot_s=tpot_s, rate=rate_value, prompt=prompt,
        output=output, margin=factor, candidates=tuple(candidates),
    )  # fmt: skip


def _candidate(
    spec: ModelSpec,
    base: Candidate,
    prompt: int,
    output: int,
    target: tuple[float, float, float, float | None],
    price: float,
    catalog: Catalog,
    ceilings: dict[str, Any],
) -> Candidate:
    """``base`` at the largest batch that meets ``target`` (TTFT and TPOT in seconds, the
    band's factor, the rate), or why none does."""
    ttft_s, tpot_s, factor, rate = target
    try:
        plan = ServePlan(spec, gpu=base.gpu, tp=base.tp, weights=base.weights,
                         kv_format=base.kv_format, engine=base.engine,
                         disaggregated=base.disaggregated, prompt=prompt, output=output,
                         catalog=catalog)  # fmt: skip
        if not plan.fits:
            return replace(base, problem="does not fit")
        # The plan's ceilings are those of its GPU and formats (ServePlan._ceilings, a cached
        # property): every configuration on that GPU and those formats shares one set.
        plan.__dict__["_ceilings"] = ceilings
        batches = batch_grid(plan.largest_batch)
        timing = plan.timing(batches)
        ttft, tpot = np.asarray(timing["ttft"]), np.asarray(timing["tpot"])
        meets = (ttft * factor <= ttft_s) & (tpot * factor <= tpot_s)
    except MlcostError as error:
        return replace(base, problem=str(error))
    if not np.any(meets):
        reason = "TTFT" if ttft[0] * factor > ttft_s else "TPOT"
        return replace(base, problem=f"{reason} above target at batch 1")
    i = len(meets) - 1 - int(np.argmax(meets[::-1]))

    def at(key: str) -> float:  # the value at the chosen batch (scalars such as P as they are)
        value = np.asarray(timing[key], dtype=np.float64)
        return float(value[i] if value.ndim else value)

    replicas = plan.replicas(rate, at("request_rate"), at("prompt") * at("per_prompt_token"))
    return replace(
        base, batch=int(batches[i]), ttft_ms=at("ttft") * 1e3, tpot_ms=at("tpot") * 1e3,
        tokens_per_s=at("output_rate"), gpus=int(replicas) * base.tp,
        usd_per_m_output=price / 3600.0 * at("gpu_s_per_output_token") * 1e6,
        usd_per_hour=price * replicas * base.tp, largest=plan.largest_batch,
    )  # fmt: skip


__all__ = [
    "DEFAULT_ENGINES",
    "DEFAULT_KV_FORMATS",
    "DEFAULT_TP",
    "DEFAULT_WEIGHTS",
    "Candidate",
    "SloSearch",
    "batch_grid",
    "search_slo",
]
