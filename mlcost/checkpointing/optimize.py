"""The exact optimizer of activation checkpoint placement: the Pareto curve of peak activation
memory against recomputation of a layer chain, and the cheapest placement within a budget.

For a cap ``S`` on the largest transient a dynamic program over segments keeps the Pareto set of
(stored bytes, recompute time) of every prefix (Chen et al. 2016 section 4.2 solve the same
problem by a search over a memory threshold; Griewank's revolve is the limit with no stored
layers); a branch and bound over the candidate caps runs it only where it can improve on what
was found (:mod:`mlcost.checkpointing.segment_search`). Chains of identical layers (every dense
transformer) are solved by enumerating the counts of kept, selective and recomputed layers and
the number of segments, one vectorized call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pint

from mlcost.checkpointing.placement import (
    STATES,
    LayerChain,
    Placement,
    PlacementCost,
    placement_cost,
)
from mlcost.checkpointing.segment_search import best_placement_codes, pareto_placement_codes
from mlcost.errors import MlcostError
from mlcost.results import Figure, Result
from mlcost.units import in_unit, magnitude_in

if TYPE_CHECKING:
    import pandas as pd

SOURCE = "exact Pareto set over the layer chain (mlcost.checkpointing.optimize; Chen et al. 2016)"


# ----- the optimizer -------------------------------------------------------------------------
@dataclass(frozen=True)
class TradeoffCurve(Result):
    """The Pareto-optimal placements: least recomputation for each memory level."""

    points: tuple[PlacementCost, ...]
    chain: LayerChain = field(repr=False)

    def title(self) -> str:
        what = f": {self.chain.description}" if self.chain.description else ""
        return f"activation memory against recomputation, {self.chain.layers} layers{what}"

    def figures(self) -> list[Figure]:
        most, least = self.points[0], self.least_memory
        return [
            Figure("Pareto points", len(self.points), "placements no other beats on both", "",
                   SOURCE),
            Figure("most memory (no recomputation)", most.memory.to("GiB"),
                   "peak activation bytes per micro-batch", str(most.placement), SOURCE),
            Figure("least memory", least.memory.to("GiB"), "peak activation bytes per micro-batch",
                   str(least.placement), SOURCE),
            Figure("recomputation at least memory", least.recompute_flops,
                   "forward FLOPs replayed per micro-batch", "", SOURCE),
        ]  # fmt: skip

    def to_frame(self) -> pd.DataFrame:
        """One row per Pareto point: memory (GiB), recomputed FLOPs and ms, placement."""
        import pandas as pd

        return pd.DataFrame([p.to_dict() for p in self.points])

    def to_json(self) -> dict[str, Any]:
        """The figures and every Pareto point."""
        return {**super().to_json(), "points": [p.to_dict() for p in self.points]}

    def best_within(self, budget: pint.Quantity) -> PlacementCost | None:
        """The least-recompute point with memory within ``budget`` (None if none fits)."""
        limit = float(magnitude_in(budget, "byte", "budget"))
        fitting = [p for p in self.points if in_unit(p.memory, "byte") <= limit * (1 + 1e-12)]
        return fitting[0] if fitting else None

    @property
    def least_memory(self) -> PlacementCost:
        return self.points[-1]

    def plot(self, ax: Any = None) -> Any:
        """Recomputation against peak activation memory (:func:`mlcost.plot.tradeoff`)."""
        from mlcost import plot

        return plot.tradeoff(self, ax=ax)


def tradeoff_curve(chain: LayerChain, *, method: str = "auto") -> TradeoffCurve:
    """Every Pareto-optimal (memory, recompute) placement of ``chain``, least memory last.

    Exact: identical layers by enumerating counts (``method="enumeration"``: kept ``n_k``,
    selective ``n_s``, recomputed ``n_r`` in ``g`` segments of at most ``ceil(n_r/g)`` layers;
    memory ``m·(n_k·a + n_s·a_sel + g·c) + max(ceil(n_r/g)·a, a - a_sel)``); any chain by the
    dynamic program of the module docstring (``method="dynamic-program"``); ``auto`` takes the
    enumeration for uniform chains.
    """
    if method not in ("auto", "enumeration", "dynamic-program"):
        raise MlcostError(f"method: got {method!r}, expected auto, enumeration or dynamic-program")
    if method == "enumeration" and not chain.is_uniform():
        raise MlcostError("method: the enumeration needs identical layers (a uniform chain)")
    enumerate_counts = method == "enumeration" or (method == "auto" and chain.is_uniform())
    candidates = _uniform_frontier(chain) if enumerate_counts else _general_frontier(chain)
    costs = [placement_cost(chain, placement) for placement in candidates]
    return TradeoffCurve(points=tuple(_pareto_costs(chain, costs)), chain=chain)


def optimal_placement(chain: LayerChain, budget: pint.Quantity) -> PlacementCost:
    """The placement of least recomputation whose peak activation memory is within ``budget``
    (the least memory among equal recomputation); the least-memory placement when none is
    (check ``memory`` against the budget).

    Identical layers: the enumeration of :func:`tradeoff_curve`, one row picked. Otherwise the
    branch and bound of :mod:`mlcost.checkpointing.segment_search`, pruned by the budget, without
    the whole curve.
    """
    limit = float(magnitude_in(budget, "byte", "budget"))
    if chain.is_uniform():
        return placement_cost(chain, _uniform_best(chain, limit))
    return placement_cost(chain, _placement_of(best_placement_codes(chain, limit)))


def _pareto_costs(chain: LayerChain, costs: list[PlacementCost]) -> list[PlacementCost]:
    """Pareto filter on (memory, recompute cost); sorted by recompute ascending. Costs within a
    relative 1e-12 are one cost (the same forwards summed in another order), the least memory
    kept."""

    def objective(p: PlacementCost) -> float:
        if p.recompute_time is not None:
            return float(in_unit(p.recompute_time, "s"))
        return float(in_unit(p.recompute_flops, "flop"))

    ordered = sorted(costs, key=lambda p: (objective(p), in_unit(p.memory, "byte")))
    result: list[PlacementCost] = []
    best_memory = math.inf
    for cost in ordered:
        memory = float(in_unit(cost.memory, "byte"))
        if memory < best_memory * (1 - 1e-12):
            same = result and objective(cost) <= objective(result[-1]) * (1 + 1e-12)
            if same:
                result[-1] = cost
            else:
                result.append(cost)
            best_memory = memory
    return result


def _uniform_rows(chain: LayerChain) -> dict[str, np.ndarray]:
    """Every (n_k kept, n_s selective, n_r recomputed) count of a chain of identical layers with
    its best segment count ``g`` and its memory and cost (the formula of :func:`tradeoff_curve`).

    The cost ``n_s·t_sel + n_r·t`` does not depend on ``g``, so only the ``g`` of least memory,
    ``argmin_g m·g·c + max(ceil(n_r/g)·a, a - a_sel if n_s > 0)``, can be on the curve (the
    smallest such ``g`` on ties): one ``L x L`` table instead of an ``L^3`` grid."""
    big_l = chain.layers
    a, c = float(chain.saved[0]), float(chain.boundary[0])
    t = float(chain.cost()[0])
    a_sel = float(chain._selective("saved")[0])
    t_sel = float(chain.selective_cost()[0])
    m = chain.in_flight
    counts = np.arange(big_l + 1)
    n_k, n_s = np.meshgrid(counts, counts if chain.has_selective else np.zeros(1, int),
                           indexing="ij")  # fmt: skip
    n_k, n_s = n_k.ravel(), n_s.ravel()
    n_r = big_l - n_k - n_s
    n_k, n_s, n_r = n_k[n_r >= 0], n_s[n_r >= 0], n_r[n_r >= 0]
    # segment table: rows n_r = 0..L, columns g = 1..L (g <= n_r), with and without selective
    g_all = counts[1:]
    longest = -(-counts[:, None] // g_all[None, :]) * a
    allowed = g_all[None, :] <= counts[:, None]
    best_g, best_part = [], []
    for floor in (0.0, a - a_sel):
        part = np.where(allowed, m * g_all[None, :] * c + np.maximum(longest, floor), np.inf)
        pick = np.argmin(part, axis=1)
        best_g.append(np.where(counts > 0, g_all[pick], 0))
        best_part.append(np.where(counts > 0, part[counts, pick], floor))
    selective = (n_s > 0).astype(int)
    g = np.where(selective, best_g[1][n_r], best_g[0][n_r])
    part = np.where(selective, best_part[1][n_r], best_part[0][n_r])
    memory = m * (n_k * a + n_s * a_sel) + part
    cost = n_s * t_sel + n_r * t
    return {"n_k": n_k, "n_s": n_s, "n_r": n_r, "g": g, "memory": memory, "cost": cost}


def _uniform_placement(rows: dict[str, np.ndarray], row: int) -> Placement:
    """The placement of one row of :func:`_uniform_rows`: ``g`` (nearly) equal recomputed
    segments, then the selective layers, then the kept ones."""
    states: list[str] = []
    if rows["n_r"][row]:
        for part in np.array_split(np.arange(rows["n_r"][row]), rows["g"][row]):
            states += ["checkpoint"] + ["recompute"] * (len(part) - 1)
    states += ["selective"] * int(rows["n_s"][row]) + ["keep"] * int(rows["n_k"][row])
    return Placement(tuple(states))


def _uniform_frontier(chain: LayerChain) -> list[Placement]:
    """Candidate placements of a chain of identical layers: every count of :func:`_uniform_rows`,
    Pareto-filtered in one vectorized pass before placements are built."""
    rows = _uniform_rows(chain)
    memory, cost = rows["memory"], rows["cost"]
    order = np.lexsort((memory, cost))
    keep_rows = []
    best = math.inf
    for row in order:
        if memory[row] < best * (1 - 1e-12):
            keep_rows.append(row)
            best = memory[row]
    return [_uniform_placement(rows, row) for row in keep_rows]


def _uniform_best(chain: LayerChain, limit: float) -> Placement:
    """:func:`optimal_placement` on identical layers: the least cost within ``limit`` bytes (the
    least memory among costs within a relative 1e-12), or the least memory (then cost)."""
    rows = _uniform_rows(chain)
    memory, cost = rows["memory"], rows["cost"]
    fits = memory <= limit * (1 + 1e-12)
    if fits.any():
        tied = fits & (cost <= cost[fits].min() * (1 + 1e-12))
        row = int(np.flatnonzero(tied)[np.argmin(memory[tied])])
    else:
        tied = memory <= memory.min() * (1 + 1e-12)
        row = int(np.flatnonzero(tied)[np.argmin(cost[tied])])
    return _uniform_placement(rows, row)


def _general_frontier(chain: LayerChain) -> list[Placement]:
    """Candidate placements of any chain: the branch and bound over caps of
    :mod:`mlcost.checkpointing.segment_search` (a superset of the Pareto points)."""
    return [_placement_of(row) for row in pareto_placement_codes(chain)]


def _placement_of(codes: np.ndarray) -> Placement:
    """A placement from state codes (0 keep, 1 selective, 2 checkpoint, 3 recompute)."""
    return Placement(tuple(STATES[int(code)] for code in codes))
