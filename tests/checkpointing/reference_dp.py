"""The placement optimizer as it was before the branch and bound (commit b6fda51): one dynamic
program per candidate cap, every cap. Kept as a second oracle for chains too long for the
exhaustive search (4^L placements); slow (about L^4 numpy operations)."""

from __future__ import annotations

import math

import numpy as np

from mlcost.checkpointing.placement import LayerChain, Placement


def reference_frontier(chain: LayerChain) -> list[Placement]:
    """The dynamic program: for each candidate transient cap ``S``, the Pareto set of (stored
    bytes, cost) of every prefix, extended by keep, selective, or a segment of sum <= ``S``.
    Each prefix's Pareto set is a set of numpy arrays (vectorized extension and filtering)."""
    big_l = chain.layers
    a, c, cost = chain.saved, chain.boundary, chain.cost()
    a_sel, cost_sel = chain._selective("saved"), chain.selective_cost()
    use_sel = chain.has_selective
    delta = a - a_sel
    prefix_a = np.concatenate([[0.0], np.cumsum(a)])
    prefix_t = np.concatenate([[0.0], np.cumsum(cost)])
    caps_set = {0.0}
    for i in range(big_l):
        caps_set.update((prefix_a[i + 1 :] - prefix_a[i]).tolist())
    if use_sel:
        caps_set.update(delta[delta > 0].tolist())
    caps = sorted(caps_set)
    m = chain.in_flight
    # Per cap: the finalized fronts, each (stored, spent, parent position, parent index, kind);
    # kind 0 keep, 1 selective, 2 segment from the parent position to here.
    all_fronts: list[list[tuple[np.ndarray, ...]]] = []
    finals = []
    for cap_index, cap in enumerate(caps):
        pending: list[list[tuple[np.ndarray, ...]]] = [[] for _ in range(big_l + 1)]
        root = (np.zeros(1), np.zeros(1), np.full(1, -1), np.full(1, -1), np.full(1, -1))
        pending[0].append(root)
        fronts: list[tuple[np.ndarray, ...]] = []
        for i in range(big_l + 1):
            front = _pareto_arrays(pending[i])
            fronts.append(front)
            pending[i] = []
            if i == big_l or front[0].size == 0:
                continue
            stored, spent = front[0], front[1]
            size = stored.size
            parents = np.arange(size)
            here = np.full(size, i)
            pending[i + 1].append((stored + m * a[i], spent, here, parents, np.zeros(size, int)))
            if use_sel and 0 < delta[i] <= cap:
                pending[i + 1].append(
                    (stored + m * a_sel[i], spent + cost_sel[i], here, parents, np.ones(size, int))
                )
            with_input = stored + m * c[i]
            for j in range(i + 1, big_l + 1):
                if prefix_a[j] - prefix_a[i] > cap * (1 + 1e-12):
                    break
                pending[j].append(
                    (
                        with_input,
                        spent + (prefix_t[j] - prefix_t[i]),
                        here,
                        parents,
                        np.full(size, 2),
                    )
                )
        all_fronts.append(fronts)
        last = fronts[big_l]
        finals.append(
            (last[0] + cap, last[1], np.full(last[0].size, cap_index), np.arange(last[0].size))
        )
    memory = np.concatenate([f[0] for f in finals])
    spent = np.concatenate([f[1] for f in finals])
    cap_of = np.concatenate([f[2] for f in finals])
    index_of = np.concatenate([f[3] for f in finals])
    order = np.lexsort((memory, spent))
    placements = []
    best = math.inf
    for row in order:
        if memory[row] < best * (1 - 1e-12):
            best = memory[row]
            placements.append(_rebuild(all_fronts[cap_of[row]], int(index_of[row]), big_l))
    return placements


def _pareto_arrays(pieces: list[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
    """Concatenate candidate pieces and keep the (stored, spent) Pareto-optimal entries."""
    if not pieces:
        empty_f, empty_i = np.zeros(0), np.zeros(0, int)
        return (empty_f, empty_f, empty_i, empty_i, empty_i)
    columns = [np.concatenate([piece[k] for piece in pieces]) for k in range(5)]
    order = np.lexsort((columns[1], columns[0]))
    spent = columns[1][order]
    running = np.minimum.accumulate(spent)
    keep = np.concatenate([[True], spent[1:] < running[:-1]])
    chosen = order[keep]
    return tuple(column[chosen] for column in columns)


def _rebuild(fronts: list[tuple[np.ndarray, ...]], index: int, layers: int) -> Placement:
    states = [""] * layers
    position = layers
    while position > 0:
        front = fronts[position]
        parent_position = int(front[2][index])
        parent_index = int(front[3][index])
        kind = int(front[4][index])
        if kind == 2:
            states[parent_position] = "checkpoint"
            for layer in range(parent_position + 1, position):
                states[layer] = "recompute"
        else:
            states[parent_position] = "keep" if kind == 0 else "selective"
        position, index = parent_position, parent_index
    return Placement(tuple(states))
