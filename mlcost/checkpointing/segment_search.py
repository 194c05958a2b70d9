"""The exact placement search on chains of differing layers: a dynamic program over segments for
each candidate largest transient, inside a branch and bound over those candidates.

Formulation (the cost model of :mod:`mlcost.checkpointing.placement`): a placement's memory is
``m·stored + T`` with ``T`` its largest transient (a recomputed segment's saved bytes, or a
selective layer's dropped bytes). For a cap ``S`` on ``T``, the dynamic program walks the chain
and keeps, for every prefix ``0..j``, the Pareto set of (``m·stored``, recompute cost) of the
placements of that prefix whose segments and selective deltas stay within ``S``; a prefix ends
with a kept layer, a selective layer, or a segment ``i..j-1`` of saved sum ``<= S`` (Chen et al.
2016 section 4.2 search the same memory threshold; Griewank and Walther 2000 for the segment
recursion). The sets of segment starts ``i`` allowed for an end ``j`` form a sliding window (the
saved sums are monotone), aggregated with two stacks so that every prefix costs O(1) merges of
Pareto sets (vectorized with numpy), not O(L).

The candidate caps are the ``O(L^2)`` segment sums and the selective deltas. Instead of running
the program for each, a best-first branch and bound searches intervals ``[S_lo, S_hi]`` of the
sorted caps (first one per doubling of the cap). An interval's bound is first free: the least
cost within ``m·stored <= budget - S_lo`` with no cap at all (a backward program over suffixes,
run once); when the interval comes first, the program at ``S_hi`` tightens it (more segments
allowed, memory ``>= m·stored + S_lo``) and records what fits, and the interval splits in two,
the upper half reusing that program. Intervals whose bound cannot beat (or tie) the best found are
dropped whole. Within one program, partial placements are pruned by the stored-bytes budget, the
best cost found, and that same backward bound on the rest of the chain.

Exactness: every pruning rule drops only placements that cannot beat, or tie, one already found,
so the result is the optimum (memory compared to a relative 1e-12, costs to 1e-12 for ties and
1e-9 for pruning slack, for float sums in different orders). The problem is a knapsack in general
(with the cap at the largest layer and positive checkpoint inputs, each layer is kept or
recomputed alone under a byte budget), so no exact method is polynomial in ``L`` alone on
arbitrary real costs: the running time depends on the sizes of the Pareto sets, small on chains
of a few layer kinds (local/global attention, uneven stages) and a few hundred to a few thousand
points per prefix on 128 layers of random costs (``benchmarks/checkpoint_placement.py``).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mlcost.checkpointing.placement import LayerChain

#: Relative tolerance of memory comparisons (float sums in a different order).
MEMORY_TOLERANCE = 1e-12
#: Relative slack of cost comparisons in the pruning bounds (never prunes a tie).
COST_TOLERANCE = 1e-9
#: Multiples of the no-cap lower bound tried as a first cost limit, then no limit.
_GUESSES = (1.02, 1.1, 1.3, 2.0)

#: A suffix's Pareto set: (m·stored ascending, cost descending).
_Bound = tuple[np.ndarray, np.ndarray]


def _pareto(block: np.ndarray) -> np.ndarray:
    """The columns of ``block`` (rows: stored, cost, ...) that no other column matches or beats on
    both stored and cost (one column per distinct point)."""
    if block.shape[1] <= 1:
        return block
    order = np.lexsort((block[1], block[0]))
    cost = block[1, order]
    running = np.minimum.accumulate(cost)
    keep = np.empty(cost.size, dtype=bool)
    keep[0] = True
    keep[1:] = cost[1:] < running[:-1]
    return block[:, order[keep]]


@dataclass(frozen=True)
class ChainArrays:
    """The magnitudes of a :class:`LayerChain` the search uses (bytes, seconds or FLOPs)."""

    a: np.ndarray
    c: np.ndarray
    a_sel: np.ndarray
    t_sel: np.ndarray
    delta: np.ndarray
    use_sel: bool
    m: float
    prefix_a: np.ndarray
    prefix_t: np.ndarray

    @classmethod
    def of(cls, chain: LayerChain) -> ChainArrays:
        a = np.asarray(chain.saved, dtype=float)
        a_sel = np.asarray(chain._selective("saved"), dtype=float)
        cost = np.asarray(chain.cost(), dtype=float)
        return cls(
            a=a,
            c=np.asarray(chain.boundary, dtype=float),
            a_sel=a_sel,
            t_sel=np.asarray(chain.selective_cost(), dtype=float),
            delta=a - a_sel,
            use_sel=chain.has_selective,
            m=float(chain.in_flight),
            prefix_a=np.concatenate([[0.0], np.cumsum(a)]),
            prefix_t=np.concatenate([[0.0], np.cumsum(cost)]),
        )

    @property
    def layers(self) -> int:
        return int(self.a.size)

    def caps(self) -> np.ndarray:
        """Every candidate largest transient, sorted: 0, the segment sums and the selective
        deltas; values within :data:`MEMORY_TOLERANCE` of a kept one merged into it."""
        p = self.prefix_a
        sums = (p[None, :] - p[:, None])[np.triu_indices(p.size, 1)]
        values = [np.zeros(1), sums]
        if self.use_sel:
            values.append(self.delta[self.delta > 0])
        unique = np.unique(np.concatenate(values))
        kept = [float(unique[0])]
        for value in unique[1:].tolist():
            if value > kept[-1] * (1 + MEMORY_TOLERANCE):
                kept.append(value)
        return np.array(kept)

    def suffix_fronts(self, stored_limit: float = math.inf) -> list[_Bound]:
        """For every suffix ``j..L-1`` (``j = 0..L``), the Pareto set of (``m·stored``, cost) of
        its placements with no cap on the transient, stored ascending: a lower bound on the
        cost of completing any prefix within a stored budget, for every cap. Backward program:
        a suffix starts with a kept or selective layer, or a segment ``j..k-1`` (any ``k``)."""
        m, pt = self.m, self.prefix_t
        fronts: list[_Bound] = [(np.zeros(1), np.zeros(1))] * (self.layers + 1)
        ends = np.array([[0.0], [pt[-1]]])  # segment ends k > j: stored of H_k, cost + P_t[k]
        for j in range(self.layers - 1, -1, -1):
            stored, cost = fronts[j + 1]
            pieces = [np.vstack([stored + m * self.a[j], cost])]
            if self.use_sel and self.delta[j] > 0:
                pieces.append(np.vstack([stored + m * self.a_sel[j], cost + self.t_sel[j]]))
            pieces.append(np.vstack([ends[0] + m * self.c[j], ends[1] - pt[j]]))
            block = np.hstack(pieces)
            block = _pareto(block[:, block[0] <= stored_limit])
            fronts[j] = (block[0], block[1])
            ends = _pareto(np.hstack([ends, np.vstack([block[0], block[1] + pt[j]])]))
        return fronts


@dataclass(frozen=True)
class Front:
    """The Pareto set of whole placements for one cap (``stored`` is ``m·stored bytes``), and
    the node store (parent node, state code, position) to rebuild them."""

    stored: np.ndarray
    cost: np.ndarray
    ids: np.ndarray
    parent: np.ndarray
    kind: np.ndarray
    position: np.ndarray


def segment_program(
    chain: ChainArrays,
    cap: float,
    stored_limit: float = math.inf,
    cost_limit: float = math.inf,
    *,
    staircase: tuple[np.ndarray, np.ndarray, float] | None = None,
    bounds: list[_Bound] | None = None,
) -> Front:
    """The dynamic program of the module docstring for one cap: Pareto sets of (``m·stored``,
    cost) per prefix, dropping partial placements above ``stored_limit`` or ``cost_limit``
    (with the rest-of-chain bound when ``bounds`` is given), or matched by a point of
    ``staircase`` = (memory ascending, cost, memory shift)."""
    m, pa, pt = chain.m, chain.prefix_a, chain.prefix_t
    within = cap * (1 + MEMORY_TOLERANCE)
    parents = [np.full(1, -1, dtype=np.int64)]
    kinds = [np.full(1, -1, dtype=np.int64)]
    positions = [np.zeros(1, dtype=np.int64)]
    next_id = 1
    front = np.zeros((3, 1))  # rows: stored, cost, node id; the empty prefix
    back: list[np.ndarray] = []  # segment starts, newest last: stored + m c_i, cost - P_t[i], id
    back_all: np.ndarray | None = None
    older: list[np.ndarray] = []  # aggregates of the older starts, the oldest last
    oldest = 0
    bounded = bounds is not None and math.isfinite(cost_limit) and math.isfinite(stored_limit)
    for j in range(1, chain.layers + 1):
        i = j - 1
        start = np.empty_like(front)
        np.add(front[0], m * chain.c[i], out=start[0])
        np.subtract(front[1], pt[i], out=start[1])
        start[2] = front[2]
        back.append(start)
        back_all = start if back_all is None else _pareto(np.hstack([back_all, start]))
        while oldest < j and pa[j] - pa[oldest] > within:
            if not older:
                merged: np.ndarray | None = None
                for item in reversed(back):
                    merged = item if merged is None else _pareto(np.hstack([item, merged]))
                    older.append(merged)
                back, back_all = [], None
            older.pop()
            oldest += 1
        # candidates (rows: stored, cost, parent id, state code): keep, selective, segments
        n = front.shape[1]
        selective = chain.use_sel and 0 < chain.delta[i] <= cap
        windows = [w for w in (older[-1] if older else None, back_all) if w is not None]
        total = n * (2 if selective else 1) + sum(w.shape[1] for w in windows)
        candidates = np.empty((4, total))
        np.add(front[0], m * chain.a[i], out=candidates[0, :n])
        candidates[1:3, :n] = front[1:3]
        candidates[3, :n] = 0.0
        at = n
        if selective:
            np.add(front[0], m * chain.a_sel[i], out=candidates[0, n : 2 * n])
            np.add(front[1], chain.t_sel[i], out=candidates[1, n : 2 * n])
            candidates[2, n : 2 * n] = front[2]
            candidates[3, n : 2 * n] = 1.0
            at = 2 * n
        for window in windows:
            size = window.shape[1]
            candidates[0, at : at + size] = window[0]
            np.add(window[1], pt[j], out=candidates[1, at : at + size])
            candidates[2, at : at + size] = window[2]
            candidates[3, at : at + size] = 2.0
            at += size
        # The cost limit with its tolerance: a placement tying the best cost (its forwards
        # summed in another order) must survive to be compared on memory.
        mask = (candidates[0] <= stored_limit) & (
            candidates[1] <= cost_limit * (1 + COST_TOLERANCE)
        )
        if bounded and bounds is not None:
            rest_stored, rest_cost = bounds[j]
            room = (stored_limit - candidates[0]) * (1 + MEMORY_TOLERANCE) + 1e-300
            at = np.searchsorted(rest_stored, room, side="right") - 1
            if rest_cost.size:
                rest = np.where(at >= 0, rest_cost[np.maximum(at, 0)], math.inf)
            else:  # no suffix fits the budget at all
                rest = np.full(at.size, math.inf)
            mask &= candidates[1] + rest <= cost_limit * (1 + COST_TOLERANCE)
        if staircase is not None:
            memory, cost, shift = staircase
            at = np.searchsorted(memory, candidates[0] + shift, side="right") - 1
            mask &= ~((at >= 0) & (cost[np.maximum(at, 0)] <= candidates[1]))
        chosen = _pareto(candidates[:, mask])
        size = chosen.shape[1]
        parents.append(chosen[2].astype(np.int64))
        kinds.append(chosen[3].astype(np.int64))
        positions.append(np.full(size, j, dtype=np.int64))
        front = np.empty((3, size))
        front[:2] = chosen[:2]
        front[2] = np.arange(next_id, next_id + size, dtype=float)
        next_id += size
    return Front(
        stored=front[0],
        cost=front[1],
        ids=front[2].astype(np.int64),
        parent=np.concatenate(parents),
        kind=np.concatenate(kinds),
        position=np.concatenate(positions),
    )


def rebuild_codes(front: Front, nodes: np.ndarray, layers: int) -> np.ndarray:
    """State codes (0 keep, 1 selective, 2 checkpoint, 3 recompute), one row per final node:
    every layer a node's parent position names gets the node's code; the rest recompute."""
    codes = np.full((nodes.size, layers), 3, dtype=np.int64)
    rows = np.arange(nodes.size)
    node = nodes.astype(np.int64).copy()
    for _ in range(layers):
        live = node > 0
        if not live.any():
            break
        parent = front.parent[node[live]]
        codes[rows[live], front.position[parent]] = front.kind[node[live]]
        node[live] = parent
    return codes


@dataclass(frozen=True)
class _Found:
    value: float
    memory: float
    node: int
    front: Front


def _cap_bins(caps: np.ndarray) -> list[tuple[int, int]]:
    """Index ranges of the sorted caps, one per doubling of the cap (0 alone): the first
    intervals of the branch and bound."""
    positive = caps[caps > 0]
    if positive.size == 0:
        return [(0, caps.size - 1)]
    level = np.where(caps > 0, np.floor(np.log2(np.maximum(caps, positive[0]) / positive[0])), -1)
    starts = np.flatnonzero(np.concatenate([[True], level[1:] != level[:-1]]))
    stops = np.concatenate([starts[1:] - 1, [caps.size - 1]])
    return list(zip(starts.tolist(), stops.tolist(), strict=True))


_Pair = tuple[float, float]


def _tighter(*bounds: _Pair) -> _Pair:
    """The componentwise largest of lower bounds on the same interval."""
    return (max(b[0] for b in bounds), max(b[1] for b in bounds))


def _branch_and_bound(
    caps: np.ndarray,
    evaluate: Callable[[int, int], tuple[_Pair, Front]],
    split_bound: Callable[[Front, int], _Pair],
    free_bound: Callable[[int], _Pair],
    promising: Callable[[_Pair], bool],
) -> None:
    """Best-first search over intervals ``[lo, hi]`` of the sorted caps. An interval's bound is
    first ``free_bound(lo)`` (no program run); when it comes first, ``evaluate(hi, lo)`` runs the
    program at ``S_hi`` (recording what fits) and tightens it; then it splits in two, the upper
    half reusing that program's front (``split_bound``). Stops at the first bound that is not
    ``promising``. Bounds are pairs (objective, tie-break), searched lexicographically."""
    heap: list[tuple[_Pair, int, int, int, Front | None]] = []
    for serial, (lo, hi) in enumerate(_cap_bins(caps)):
        heap.append((free_bound(lo), lo, hi, serial, None))
    heapq.heapify(heap)
    serial = len(heap)
    while heap:
        bound, lo, hi, _, front = heapq.heappop(heap)
        if not promising(bound):
            break
        if front is None:
            program_bound, front = evaluate(hi, lo)
            bound = _tighter(bound, program_bound)
            if promising(bound):
                heapq.heappush(heap, (bound, lo, hi, serial, front))
                serial += 1
            continue
        if lo == hi:
            continue
        mid = (lo + hi) // 2
        right = _tighter(bound, free_bound(mid + 1), split_bound(front, mid + 1))
        for entry in ((right, mid + 1, hi, serial, front), (bound, lo, mid, serial + 1, None)):
            if promising(entry[0]):
                heapq.heappush(heap, entry)
        serial += 2


def _least_cost(
    chain: ChainArrays, caps: np.ndarray, budget: float, bounds: list[_Bound], guess: float
) -> _Found | None:
    """Least cost with memory <= ``budget`` among placements of cost <= ``guess``, the least
    memory among costs within :data:`MEMORY_TOLERANCE` (intervals whose bound ties the best
    cost are searched too)."""
    caps = caps[caps <= budget]
    if caps.size == 0:
        return None
    found: list[_Found] = []
    upper = [guess]
    rest_stored, rest_cost = bounds[0]

    def ties(front: Front, within: np.ndarray, lo: int) -> _Pair:
        """Least cost, and least memory among costs tying the best, of ``within``."""
        if not within.any():
            return math.inf, math.inf
        tied = within & (front.cost <= upper[0] * (1 + MEMORY_TOLERANCE))
        memory = float(front.stored[tied].min() + caps[lo]) if tied.any() else math.inf
        return float(front.cost[within].min()), memory

    def evaluate(k: int, lo: int) -> tuple[_Pair, Front]:
        front = segment_program(chain, caps[k], budget - caps[lo], upper[0], bounds=bounds)
        fits = front.stored + caps[k] <= budget
        if fits.any():
            least = float(front.cost[fits].min())
            tied = np.flatnonzero(fits & (front.cost <= least * (1 + MEMORY_TOLERANCE)))
            pick = tied[np.argmin(front.stored[tied])]
            memory = float(front.stored[pick] + caps[k])
            best = found[-1] if found else None
            if (least <= upper[0] and best is None) or (
                best is not None
                and (
                    least < best.value * (1 - MEMORY_TOLERANCE)
                    or (least <= best.value * (1 + MEMORY_TOLERANCE) and memory < best.memory)
                )
            ):
                upper[0] = min(upper[0], least)
                found.append(_Found(least, memory, int(front.ids[pick]), front))
        return ties(front, np.ones(front.cost.size, dtype=bool), lo), front

    def split_bound(front: Front, lo: int) -> _Pair:
        return ties(front, front.stored <= budget - caps[lo], lo)

    def free_bound(lo: int) -> _Pair:
        at = int(np.searchsorted(rest_stored, budget - caps[lo], side="right")) - 1
        return (float(rest_cost[at]) if at >= 0 else math.inf), float(caps[lo])

    def promising(bound: _Pair) -> bool:
        """Could beat the best cost, or tie it with less memory."""
        if bound[0] < upper[0] * (1 - MEMORY_TOLERANCE):
            return True
        best = found[-1].memory if found else math.inf
        return bound[0] <= upper[0] * (1 + MEMORY_TOLERANCE) and bound[1] < best

    _branch_and_bound(caps, evaluate, split_bound, free_bound, promising)
    return found[-1] if found else None


def least_cost(chain: ChainArrays, caps: np.ndarray, budget: float) -> _Found | None:
    """The least-cost placement of memory <= ``budget`` (None when none fits): first under cost
    limits a little above the no-cap bound (cheap programs), then without one."""
    budget = budget * (1 + MEMORY_TOLERANCE)
    bounds = chain.suffix_fronts(budget)
    stored, cost = bounds[0]
    if not stored.size:
        return None
    floor = float(cost[np.searchsorted(stored, budget, side="right") - 1])
    for guess in [*sorted({floor * factor for factor in _GUESSES}), math.inf]:
        found = _least_cost(chain, caps, budget, bounds, guess)
        if found is not None:
            return found
    return None


def least_memory(
    chain: ChainArrays, caps: np.ndarray, cost_limit: float, memory_limit: float = math.inf
) -> _Found | None:
    """The least-memory placement of cost <= ``cost_limit`` and memory < ``memory_limit``."""
    bounds = chain.suffix_fronts(memory_limit)
    rest_stored, rest_cost = bounds[0]
    cheap = rest_cost <= cost_limit * (1 + COST_TOLERANCE)
    least_stored = float(rest_stored[np.argmax(cheap)]) if cheap.any() else math.inf
    caps = caps[caps < memory_limit]
    if caps.size == 0 or not math.isfinite(least_stored):
        return None
    found: list[_Found] = []
    upper = [memory_limit]

    def evaluate(k: int, lo: int) -> tuple[_Pair, Front]:
        front = segment_program(chain, caps[k], upper[0] - caps[lo], cost_limit, bounds=bounds)
        if not front.stored.size:
            return (math.inf, 0.0), front
        pick = int(np.argmin(front.stored))
        value = float(front.stored[pick] + caps[k])
        if value < upper[0]:
            upper[0] = value
            found.append(_Found(float(front.cost[pick]), value, int(front.ids[pick]), front))
        return (float(front.stored[pick] + caps[lo]), 0.0), front

    def split_bound(front: Front, lo: int) -> _Pair:
        return (float(front.stored.min() + caps[lo]) if front.stored.size else math.inf), 0.0

    def free_bound(lo: int) -> _Pair:
        return least_stored + float(caps[lo]), 0.0

    def promising(bound: _Pair) -> bool:
        return bound[0] < upper[0] * (1 - MEMORY_TOLERANCE)

    _branch_and_bound(caps, evaluate, split_bound, free_bound, promising)
    return found[-1] if found else None


def best_placement_codes(chain: LayerChain, budget: float) -> np.ndarray:
    """State codes of the least-cost placement within ``budget`` bytes, the least memory among
    equal costs; when nothing fits, the least-memory placement, the least cost among those."""
    arrays = ChainArrays.of(chain)
    caps = arrays.caps()
    found = least_cost(arrays, caps, budget)
    if found is None:
        least = least_memory(arrays, caps, math.inf)
        if least is None:  # pragma: no cover - keeping every layer always has a finite memory
            raise RuntimeError("no placement found")
        found = least_cost(arrays, caps, least.memory) or least
    return rebuild_codes(found.front, np.array([found.node]), arrays.layers)[0]


def pareto_placement_codes(chain: LayerChain) -> np.ndarray:
    """State codes of a superset of the Pareto-optimal placements (memory against cost):
    the branch and bound keeps a staircase of the best points found and drops every interval
    of caps, and every partial placement, that staircase already matches or beats."""
    arrays = ChainArrays.of(chain)
    caps = arrays.caps()
    memory, cost = np.zeros(0), np.zeros(0)
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray, Front]] = []

    def matched(x: np.ndarray, y: np.ndarray, strictly: bool = False) -> np.ndarray:
        if memory.size == 0:
            return np.zeros(x.size, dtype=bool)
        at = np.searchsorted(memory, x, side="right") - 1
        best = cost[np.maximum(at, 0)]
        return (at >= 0) & ((best < y) if strictly else (best <= y))

    def evaluate(k: int, lo: int) -> Front:
        nonlocal memory, cost
        stair = (memory, cost, float(caps[lo])) if memory.size else None
        front = segment_program(arrays, caps[k], staircase=stair)
        x, y = front.stored + caps[k], front.cost
        new = ~matched(x, y)
        if new.any():
            found.append((x[new], y[new], front.ids[new], front))
            points = _pareto(np.vstack([np.concatenate([memory, x[new]]),
                                        np.concatenate([cost, y[new]])]))  # fmt: skip
            memory, cost = points[0], points[1]
        return front

    top = caps.size - 1
    stack = [(0, top, evaluate(top, 0))]
    while stack:
        lo, hi, front = stack.pop()
        if lo == hi or matched(front.stored + caps[lo], front.cost).all():
            continue
        mid = (lo + hi) // 2
        stack.append((lo, mid, evaluate(mid, lo)))
        stack.append((mid + 1, hi, front))
    rows = [
        rebuild_codes(front, ids[~matched(x, y, strictly=True)], arrays.layers)
        for x, y, ids, front in found
    ]
    return np.concatenate(rows) if rows else np.zeros((0, arrays.layers), dtype=np.int64)
