"""Activation checkpointing: which layers keep their activations and which recompute them.

The model (Chen et al. 2016, "Training Deep Nets with Sublinear Memory Cost", section 4.1, with
per-layer costs as in Griewank and Walther 2000, "Algorithm 799: revolve", and Korthikanti et al.
2022, "Reducing Activation Recomputation in Large Transformer Models", section 4): the layers of
one pipeline stage form a chain ``1..L``. Layer ``i`` saves ``a_i`` bytes for backward when it is
kept, its input (the residual stream, ``b·s·h`` elements) is ``c_i`` bytes, and its forward costs
``f_i`` FLOPs and ``t_i`` seconds. Each layer is in one of four states:

* ``keep``: its activations are stored (``a_i`` bytes, nothing recomputed);
* ``selective``: only the operators outside a chosen set are stored (``a_i^sel`` bytes); the chosen
  operators (by default the attention core, Korthikanti et al. 2022 section 4.2) are recomputed in
  the backward pass (``f_i^sel`` FLOPs, ``t_i^sel`` seconds);
* ``checkpoint``: the first layer of a recomputed segment; only its input is stored (``c_i``);
* ``recompute``: a later layer of the same segment; nothing is stored.

Peak activation memory of a placement, with ``m`` micro-batches in flight on the stage (1F1B
pipelining, Narayanan et al. 2021 section 2.2; 1 without pipelining)::

    M = m · (sum_keep a_i + sum_selective a_i^sel + sum_checkpoint c_i)
        + max(max over segments of sum_{i in segment} a_i,  max over selective (a_i - a_i^sel))

i.e. what is stored for every micro-batch plus the largest transient, one segment (or one
selective layer) rematerialized at a time during backward: Chen et al. 2016's cost
``sum checkpoints + max segment``. Recomputation costs ``sum over recomputed layers f_i`` (plus the
selective parts), once per micro-batch. Assumptions: the backward pass holds one rematerialized
segment at a time; the gradient buffers and the transient peaks of the loss are outside the chain
(they are terms of :mod:`mlcost.memory`); a segment's recomputation needs only its checkpointed
input.

The textbook chapter's abstraction (its Table "Checkpointing Memory-Compute Tradeoffs", T-14 in
the seed catalog) prices a checkpoint at a whole layer's activations ``A``:
``k·A + (L/k)·A`` memory and ``L - k`` recomputed forwards, minimized at ``k = sqrt(L)``; its
functions are :func:`chapter_checkpoint_memory` and :func:`chapter_recompute_forwards`.

:func:`optimal_placement` finds the placement of least recomputation time within a memory budget
exactly: for every candidate largest transient ``S`` a dynamic program over the chain keeps the
Pareto set of (stored bytes, recompute time) of every prefix (Chen et al. 2016 section 4.2 solve
the same problem by a search over a memory threshold; Griewank's revolve is the limit with no
stored layers). Chains of identical layers (every dense transformer) are solved by enumerating
the counts of kept, selective and recomputed layers and the number of segments, one vectorized
call.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
import pandas as pd
import pint

from mlcost.errors import MlcostError
from mlcost.roofline import Ceilings
from mlcost.specs import Accelerator, Spec, TransformerSpec
from mlcost.units import Q_
from mlcost.workload import Operator, OperatorTable, TrainingConfig, transformer_operators

Number = Any
State = Literal["keep", "selective", "checkpoint", "recompute"]
STATES: tuple[str, ...] = ("keep", "selective", "checkpoint", "recompute")
_SYMBOL = {"keep": "K", "selective": "S", "checkpoint": "C", "recompute": "R"}

#: Operators recomputed under selective checkpointing, by preset. ``attention-core``: the
#: attention scores, softmax, attention dropout and scores x V (Korthikanti et al. 2022,
#: section 4.2; the operators ``TrainingConfig(recompute="selective")`` marks). ``attention-and-
#: elementwise``: also the norms, activation functions, residual dropouts and adds, keeping only
#: the GEMM inputs (the chapter's "checkpoint before attention, skip FFN and norms" heuristic).
SELECTIVE_PRESETS: dict[str, tuple[str, ...]] = {
    "attention-core": ("attention", "softmax", "attention dropout"),
    "attention-and-elementwise": (
        "attention",
        "softmax",
        "attention dropout",
        "norm",
        "activation",
        "elementwise",
        "dropout",
    ),
}


# ----- the chapter's uniform strategies (T-14, F-55) ----------------------------------------
def chapter_checkpoint_memory(layers: Number, checkpoints: Number, activation: Number) -> Number:
    """Memory of ``k`` evenly spaced checkpoints: ``k·A + (L/k)·A``.

    Source: the textbook chapter, table "Checkpointing Memory-Compute Tradeoffs" (seed catalog
    T-14, F-55). Assumes every layer stores ``A`` (a quantity or a number) and a checkpoint costs
    a whole layer's ``A``; ``L/k`` is the segment rematerialized during backward.
    """
    return checkpoints * activation + (layers / checkpoints) * activation


def chapter_recompute_forwards(layers: Number, checkpoints: Number) -> Number:
    """Layer forwards recomputed with ``k`` checkpoints: ``L - k`` (chapter T-14): every layer but
    the checkpointed ones is run forward twice."""
    return layers - checkpoints


def chapter_optimal_checkpoints(layers: Number) -> Number:
    """``k = sqrt(L)``: where ``d/dk (k·A + L·A/k) = A - L·A/k^2 = 0`` (chapter, L3037). Rounded
    to the nearest whole checkpoint (the chapter's "sqrt(48) approximately equals 7")."""
    return np.rint(np.sqrt(layers)).astype(int)


def chapter_strategy_table(layers: int, activation: pint.Quantity | float = 1.0) -> pd.DataFrame:
    """The chapter's table T-14 for ``L`` layers with the optimal ``k = round(sqrt(L))``.

    The "checkpoint every layer" row is the chapter's literal (memory ``A``, ``L - 1``
    forwards). It is not the ``k = L`` case of the chapter's own ``k``-checkpoint formula, which
    gives ``L·A + A`` and 0 forwards; it holds when a checkpoint (a layer input) is small next to
    ``A``: memory ``L·c + A ~ A``, every layer recomputed but the last.
    """
    k = int(chapter_optimal_checkpoints(layers))
    unit = activation if isinstance(activation, pint.Quantity) else Q_(activation, "")
    rows = [
        ("no checkpointing", layers * unit, 0, "L x A"),
        ("checkpoint every layer", unit, layers - 1, "A (chapter's literal)"),
        (
            f"k = {k} checkpoints",
            chapter_checkpoint_memory(layers, k, unit),
            chapter_recompute_forwards(layers, k),
            "k x A + (L/k) x A",
        ),
    ]
    frame = pd.DataFrame(
        [
            {
                "strategy": name,
                "memory": memory.magnitude,
                "memory / A": (memory / unit).to("").magnitude,
                "saving": 1 - (memory / (layers * unit)).to("").magnitude,
                "recomputed forwards": forwards,
                "formula": formula,
            }
            for name, memory, forwards, formula in rows
        ]
    )
    frame.attrs["unit"] = str(unit.units)
    return frame


# ----- the layer chain -----------------------------------------------------------------------
@dataclass(frozen=True)
class LayerChain:
    """Per-layer costs of one pipeline stage, per micro-batch and per GPU (module docstring).

    Arrays of length ``L`` in bytes, FLOPs and seconds; ``forward_time`` may be absent (no GPU
    given), and the optimizer then minimizes recomputed FLOPs instead of time.
    """

    saved: np.ndarray
    boundary: np.ndarray
    forward_flops: np.ndarray
    forward_time: np.ndarray | None = None
    selective_saved: np.ndarray | None = None
    selective_flops: np.ndarray | None = None
    selective_time: np.ndarray | None = None
    in_flight: int = 1
    micro_batches: int = 1
    description: str = ""

    def __post_init__(self) -> None:
        length = len(self.saved)
        if length == 0:
            raise MlcostError("layers: got an empty chain, expected at least one layer")
        for name in ("boundary", "forward_flops", "forward_time", "selective_saved"):
            value = getattr(self, name)
            if value is not None and len(value) != length:
                raise MlcostError(f"{name}: got {len(value)} values, expected one per layer")
        for name in ("saved", "boundary", "forward_flops"):
            if np.any(np.asarray(getattr(self, name)) < 0):
                raise MlcostError(f"{name}: got a negative value, expected bytes/FLOPs >= 0")
        if self.in_flight < 1:
            raise MlcostError(f"in_flight: got {self.in_flight}, expected a count >= 1")

    @property
    def layers(self) -> int:
        return len(self.saved)

    @property
    def has_selective(self) -> bool:
        """True when some layer saves less under selective recomputation than kept in full."""
        return self.selective_saved is not None and bool(np.any(self.selective_saved < self.saved))

    def cost(self) -> np.ndarray:
        """What the optimizer minimizes per layer: forward seconds, or FLOPs without a GPU."""
        return self.forward_time if self.forward_time is not None else self.forward_flops

    def selective_cost(self) -> np.ndarray:
        if self.forward_time is not None and self.selective_time is not None:
            return self.selective_time
        return self._selective("flops")

    def _selective(self, what: str) -> np.ndarray:
        value = {
            "saved": self.selective_saved,
            "flops": self.selective_flops,
            "time": self.selective_time,
        }[what]
        if value is None:
            base = {"saved": self.saved, "flops": 0 * self.forward_flops}[what]
            return np.asarray(base, dtype=float) if what == "saved" else base
        return value

    def is_uniform(self) -> bool:
        """All layers identical (every dense transformer): the closed-form search applies."""
        arrays = [self.saved, self.boundary, self.forward_flops]
        arrays += [a for a in (self.forward_time, self.selective_saved) if a is not None]
        arrays += [a for a in (self.selective_flops, self.selective_time) if a is not None]
        return all(np.allclose(a, a[0], rtol=1e-12, atol=0) for a in arrays)


def layer_chain(
    saved: pint.Quantity,
    boundary: pint.Quantity,
    forward_flops: pint.Quantity,
    *,
    forward_time: pint.Quantity | None = None,
    selective_saved: pint.Quantity | None = None,
    selective_flops: pint.Quantity | None = None,
    selective_time: pint.Quantity | None = None,
    in_flight: int = 1,
    layers: int | None = None,
) -> LayerChain:
    """A chain from per-layer quantities (arrays of length ``L``, or scalars with ``layers``)."""

    def array(value: pint.Quantity | None, unit: str, name: str) -> np.ndarray | None:
        if value is None:
            return None
        if not isinstance(value, pint.Quantity):
            raise MlcostError(f"{name}: got {value!r}, expected a quantity in {unit}")
        magnitude = np.atleast_1d(np.asarray(value.to(unit).magnitude, dtype=float))
        if layers is not None and magnitude.size == 1:
            magnitude = np.full(layers, magnitude[0])
        return magnitude

    saved_a = array(saved, "byte", "saved")
    assert saved_a is not None  # for the type checker; a required argument
    return LayerChain(
        saved=saved_a,
        boundary=array(boundary, "byte", "boundary"),  # type: ignore[arg-type]
        forward_flops=array(forward_flops, "flop", "forward_flops"),  # type: ignore[arg-type]
        forward_time=array(forward_time, "s", "forward_time"),
        selective_saved=array(selective_saved, "byte", "selective_saved"),
        selective_flops=array(selective_flops, "flop", "selective_flops"),
        selective_time=array(selective_time, "s", "selective_time"),
        in_flight=in_flight,
    )


def uniform_chain(
    layers: int,
    activation: pint.Quantity,
    *,
    boundary: pint.Quantity | None = None,
    forward_flops: pint.Quantity | None = None,
) -> LayerChain:
    """``L`` identical layers of ``A`` bytes each (the chapter's abstraction). ``boundary``
    (a layer input) defaults to 0 bytes, the limit in which checkpoints are free; each layer's
    forward defaults to 1 FLOP, so recomputation is counted in layer forwards."""
    return layer_chain(
        activation,
        boundary if boundary is not None else Q_(0, "byte"),
        forward_flops if forward_flops is not None else Q_(1, "flop"),
        layers=layers,
    )


# ----- placements ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Placement:
    """A state per layer: ``keep``, ``selective``, ``checkpoint`` (starts a recomputed segment)
    or ``recompute`` (continues one)."""

    states: tuple[str, ...]

    def __post_init__(self) -> None:
        for index, state in enumerate(self.states):
            if state not in STATES:
                raise MlcostError(f"placement[{index}]: got {state!r}, expected one of {STATES}")
            if state == "recompute" and (
                index == 0
                or self.states[index - 1]
                not in (
                    "checkpoint",
                    "recompute",
                )
            ):
                raise MlcostError(
                    f"placement[{index}]: 'recompute' must follow 'checkpoint' or 'recompute'"
                )

    def __str__(self) -> str:
        return "".join(_SYMBOL[s] for s in self.states)

    @classmethod
    def parse(cls, text: str) -> Placement:
        """From the compact form ``"KKSCRRCRR"`` (K keep, S selective, C checkpoint, R
        recompute)."""
        inverse = {v: k for k, v in _SYMBOL.items()}
        try:
            return cls(tuple(inverse[ch] for ch in text.strip().upper()))
        except KeyError:
            raise MlcostError(f"placement: got {text!r}, expected letters K, S, C, R") from None

    def segments(self) -> list[tuple[int, int]]:
        """``(start, stop)`` of every recomputed segment."""
        result: list[tuple[int, int]] = []
        for index, state in enumerate(self.states):
            if state == "checkpoint":
                result.append((index, index + 1))
            elif state == "recompute":
                start, _ = result[-1]
                result[-1] = (start, index + 1)
        return result

    def count(self, state: str) -> int:
        return sum(1 for s in self.states if s == state)

    @property
    def recomputed_layers(self) -> int:
        """Layers whose whole forward is replayed (checkpoint and recompute states)."""
        return self.count("checkpoint") + self.count("recompute")


def no_recompute_placement(layers: int) -> Placement:
    """Every layer keeps its activations (the chapter's "no checkpointing": ``L·A``)."""
    return Placement(("keep",) * layers)


def uniform_placement(layers: int, segments: int) -> Placement:
    """``segments`` recomputed segments of (nearly) equal length covering all ``L`` layers, each
    starting at a checkpointed layer input: Chen et al. 2016 section 4.1, Megatron-LM's
    ``--recompute-method uniform``. ``segments = L`` recomputes every layer from its own input
    (Megatron "full" recomputation)."""
    if not 1 <= segments <= layers:
        raise MlcostError(f"segments: got {segments}, expected 1..{layers} (the layer count)")
    states: list[str] = []
    for part in np.array_split(np.arange(layers), segments):
        states += ["checkpoint"] + ["recompute"] * (len(part) - 1)
    return Placement(tuple(states))


def sqrt_placement(layers: int) -> Placement:
    """``round(sqrt(L))`` uniform segments (Chen et al. 2016's ``sqrt(n)`` strategy; the
    chapter's ``k = sqrt(L)``)."""
    return uniform_placement(layers, int(chapter_optimal_checkpoints(layers)))


def selective_placement(layers: int) -> Placement:
    """Every layer selective (``TrainingConfig(recompute="selective")``)."""
    return Placement(("selective",) * layers)


@dataclass(frozen=True)
class PlacementCost:
    """Peak activation bytes and recomputation per micro-batch of a placement on a chain."""

    placement: Placement
    memory: pint.Quantity
    recompute_flops: pint.Quantity
    recompute_time: pint.Quantity | None
    stored: pint.Quantity
    transient: pint.Quantity

    def to_dict(self) -> dict[str, Any]:
        return {
            "placement": str(self.placement),
            "memory_GiB": self.memory.to("GiB").magnitude,
            "recompute_flops": self.recompute_flops.to("flop").magnitude,
            "recompute_ms": None
            if self.recompute_time is None
            else self.recompute_time.to("ms").magnitude,
        }


def placement_cost(chain: LayerChain, placement: Placement) -> PlacementCost:
    """Memory and recomputation of ``placement`` on ``chain`` (formula in the module docstring)."""
    if len(placement.states) != chain.layers:
        raise MlcostError(
            f"placement: got {len(placement.states)} states, expected {chain.layers} (one per "
            "layer)"
        )
    states = np.array(placement.states)
    keep, sel = states == "keep", states == "selective"
    ckpt, recomputed = states == "checkpoint", np.isin(states, ("checkpoint", "recompute"))
    sel_saved = chain._selective("saved")
    stored = (
        chain.saved[keep].sum() + sel_saved[sel].sum() + chain.boundary[ckpt].sum()
    ) * chain.in_flight
    transient = 0.0
    for start, stop in placement.segments():
        transient = max(transient, float(chain.saved[start:stop].sum()))
    if np.any(sel):
        transient = max(transient, float((chain.saved - sel_saved)[sel].max()))
    flops = chain.forward_flops[recomputed].sum() + chain._selective("flops")[sel].sum()
    time = None
    if chain.forward_time is not None:
        sel_time = chain.selective_time if chain.selective_time is not None else 0 * chain.saved
        time = Q_(chain.forward_time[recomputed].sum() + sel_time[sel].sum(), "s")
    return PlacementCost(
        placement=placement,
        memory=Q_(stored + transient, "byte"),
        recompute_flops=Q_(flops, "flop"),
        recompute_time=time,
        stored=Q_(stored, "byte"),
        transient=Q_(transient, "byte"),
    )


# ----- the optimizer -------------------------------------------------------------------------
@dataclass(frozen=True)
class TradeoffCurve:
    """The Pareto-optimal placements: least recomputation for each memory level."""

    points: tuple[PlacementCost, ...]
    chain: LayerChain = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per Pareto point: memory (GiB), recomputed FLOPs and ms, placement."""
        return pd.DataFrame([p.to_dict() for p in self.points])

    def best_within(self, budget: pint.Quantity) -> PlacementCost | None:
        """The least-recompute point with memory within ``budget`` (None if none fits)."""
        limit = _bytes(budget, "budget")
        fitting = [p for p in self.points if p.memory.to("byte").magnitude <= limit * (1 + 1e-12)]
        return fitting[0] if fitting else None

    @property
    def least_memory(self) -> PlacementCost:
        return self.points[-1]

    def _repr_html_(self) -> str:
        return self.to_frame().to_html()


def tradeoff_curve(chain: LayerChain) -> TradeoffCurve:
    """Every Pareto-optimal (memory, recompute) placement of ``chain``, least memory last.

    Exact: identical layers by enumerating counts (kept ``n_k``, selective ``n_s``, recomputed
    ``n_r`` in ``g`` segments of at most ``ceil(n_r/g)`` layers; memory
    ``m·(n_k·a + n_s·a_sel + g·c) + max(ceil(n_r/g)·a, a - a_sel)``); other chains by the dynamic
    program of the module docstring.
    """
    candidates = _uniform_frontier(chain) if chain.is_uniform() else _general_frontier(chain)
    costs = [placement_cost(chain, placement) for placement in candidates]
    return TradeoffCurve(points=tuple(_pareto_costs(chain, costs)), chain=chain)


def optimal_placement(chain: LayerChain, budget: pint.Quantity) -> PlacementCost:
    """The placement of least recomputation whose peak activation memory is within ``budget``;
    the least-memory placement when none is (check ``memory`` against the budget)."""
    curve = tradeoff_curve(chain)
    best = curve.best_within(budget)
    return best if best is not None else curve.least_memory


def _pareto_costs(chain: LayerChain, costs: list[PlacementCost]) -> list[PlacementCost]:
    """Pareto filter on (memory, recompute cost); sorted by recompute ascending."""

    def objective(p: PlacementCost) -> float:
        if p.recompute_time is not None:
            return float(p.recompute_time.to("s").magnitude)
        return float(p.recompute_flops.to("flop").magnitude)

    ordered = sorted(costs, key=lambda p: (objective(p), p.memory.to("byte").magnitude))
    result: list[PlacementCost] = []
    best_memory = math.inf
    for cost in ordered:
        memory = float(cost.memory.to("byte").magnitude)
        if memory < best_memory * (1 - 1e-12):
            result.append(cost)
            best_memory = memory
    return result


def _uniform_frontier(chain: LayerChain) -> list[Placement]:
    """Candidate placements of a chain of identical layers: all (n_k, n_s, g) combinations,
    Pareto-filtered in one vectorized pass before placements are built."""
    big_l = chain.layers
    a, c = float(chain.saved[0]), float(chain.boundary[0])
    t = float(chain.cost()[0])
    a_sel = float(chain._selective("saved")[0])
    t_sel = float(chain.selective_cost()[0])
    use_sel = chain.has_selective
    n_k, n_s, g = np.meshgrid(
        np.arange(big_l + 1),
        np.arange(big_l + 1) if use_sel else np.zeros(1, dtype=int),
        np.arange(big_l + 1),
        indexing="ij",
    )
    n_k, n_s, g = n_k.ravel(), n_s.ravel(), g.ravel()
    n_r = big_l - n_k - n_s
    valid = (n_r >= 0) & (((n_r == 0) & (g == 0)) | ((n_r > 0) & (g >= 1) & (g <= n_r)))
    n_k, n_s, g, n_r = n_k[valid], n_s[valid], g[valid], n_r[valid]
    longest = np.where(g > 0, -(-n_r // np.maximum(g, 1)), 0)
    transient = np.maximum(longest * a, np.where(n_s > 0, a - a_sel, 0.0))
    memory = chain.in_flight * (n_k * a + n_s * a_sel + g * c) + transient
    cost = n_s * t_sel + n_r * t
    order = np.lexsort((memory, cost))
    keep_rows = []
    best = math.inf
    for row in order:
        if memory[row] < best * (1 - 1e-12):
            keep_rows.append(row)
            best = memory[row]
    placements = []
    for row in keep_rows:
        states: list[str] = []
        if n_r[row]:
            for part in np.array_split(np.arange(n_r[row]), g[row]):
                states += ["checkpoint"] + ["recompute"] * (len(part) - 1)
        states += ["selective"] * int(n_s[row]) + ["keep"] * int(n_k[row])
        placements.append(Placement(tuple(states)))
    return placements


def _general_frontier(chain: LayerChain) -> list[Placement]:
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


def _bytes(value: pint.Quantity, name: str) -> float:
    if not isinstance(value, pint.Quantity) or value.dimensionality != Q_(1, "byte").dimensionality:
        raise MlcostError(f"{name}: got {value!r}, expected a quantity in bytes (e.g. 70 GiB)")
    return float(value.to("byte").magnitude)


# ----- selective checkpointing of chosen operators -------------------------------------------
def _selected(op: Operator, selection: Sequence[str]) -> bool:
    """An operator is selected by its kind or by its name, with or without a pattern suffix
    (``"attention dropout"`` selects ``"attention dropout (local)"`` but not the residual
    dropouts)."""
    return any(
        item == op.kind or op.name == item or op.name.startswith(item + " (") for item in selection
    )


def selective_selection(selective: str | Iterable[str]) -> tuple[str, ...]:
    """A preset name from :data:`SELECTIVE_PRESETS` or operator kinds/names as given."""
    if isinstance(selective, str):
        if selective not in SELECTIVE_PRESETS:
            raise MlcostError(
                f"selective: got {selective!r}, expected one of {sorted(SELECTIVE_PRESETS)} or "
                "a list of operator kinds/names"
            )
        return SELECTIVE_PRESETS[selective]
    return tuple(selective)


# ----- from the operator table ---------------------------------------------------------------
def _forward_seconds(table: OperatorTable, ceilings: Ceilings) -> list[float]:
    """Forward seconds per execution of every operator: the step-time model (roofline, launch
    overhead) on a copy of the table with the backward pass and recomputation removed."""
    from mlcost.timing import operator_times

    forward_only = OperatorTable(
        operators=tuple(
            replace(
                op,
                backward_input_flops=0 * op.backward_input_flops,
                backward_weight_flops=0 * op.backward_weight_flops,
                backward_bytes=0 * op.backward_bytes,
                recompute_fraction=0.0,
            )
            for op in table.operators
        ),
        description=table.description,
        tokens_per_step=table.tokens_per_step,
        metadata=table.metadata,
    )
    rows = operator_times(forward_only, ceilings).rows
    return [
        float(row.total / op.count) if op.count else 0.0
        for row, op in zip(rows, table.operators, strict=True)
    ]


def transformer_layer_chain(
    model: Spec,
    config: TrainingConfig,
    gpu: Accelerator | Ceilings | None = None,
    *,
    micro_batch_size: int | None = None,
    sequence_length: int | None = None,
    tensor_parallel: int = 1,
    pipeline_parallel: int = 1,
    selective: str | Iterable[str] = "attention-core",
) -> LayerChain:
    """The layer chain of ``model`` under ``config`` from the operator table.

    Per layer and micro-batch: ``a`` = bytes the layer's operators save for backward (recompute
    ``none``), ``c`` = the layer input ``b·s·h`` elements in the activation format, ``f`` = forward
    FLOPs, ``t`` = forward seconds on ``gpu`` (:mod:`mlcost.timing`'s roofline); the selective
    state recomputes the operators named by ``selective`` (their saved bytes dropped, their forward
    replayed; assumes the inputs they need are kept by their neighbours, as Korthikanti et al.
    2022 section 4.2 argue for the attention core). Tensor parallelism divides bytes, FLOPs and
    time by ``t`` (as :func:`mlcost.memory.memory_breakdown`'s pytorch profile does); pipeline
    parallelism keeps the first stage's ``L/p`` layers with ``min(p, micro-batches)`` in flight.
    Layers of Gemma-2-style models differ (local and global attention) and are placed with the
    global layer every ``global_attention_every``.
    """
    if not isinstance(model, TransformerSpec):
        raise MlcostError(f"model: {model.name!r} is a {model.KIND}, expected a transformer")
    if tensor_parallel < 1 or pipeline_parallel < 1:
        raise MlcostError("tensor_parallel/pipeline_parallel: expected counts >= 1")
    plain = config.model_copy(update={"recompute": "none", "recompute_every": None})
    table = transformer_operators(
        model, plain, micro_batch_size=micro_batch_size, sequence_length=sequence_length
    )
    micro = plain.gradient_accumulation_steps
    big_l = model.num_layers
    if big_l % pipeline_parallel:
        raise MlcostError(
            f"pipeline_parallel: got {pipeline_parallel}, expected a divisor of {big_l} layers"
        )
    selection = selective_selection(selective)
    seconds: list[float] | None = None
    if gpu is not None:
        ceilings = (
            gpu
            if isinstance(gpu, Ceilings)
            else Ceilings.from_accelerator(gpu, plain.policy.compute_format)
        )
        seconds = _forward_seconds(table, ceilings)
    names = ("saved", "flops", "time", "sel_saved", "sel_flops", "sel_time")
    per = {name: np.zeros(big_l) for name in names}
    every = model.global_attention_every or 0
    is_global = np.array([(every > 0) and ((i + 1) % every == 0) for i in range(big_l)])
    for index, op in enumerate(table.operators):
        if op.block != "layer" or op.kind == "checkpoint":
            continue
        per_micro = float(op.count) / micro
        if "(global)" in op.name:
            mask = is_global.astype(float)
        elif "(local)" in op.name:
            mask = (~is_global).astype(float)
        else:
            mask = np.full(big_l, per_micro / big_l)  # every layer (or spread evenly)
        saved = float(op.saved_bytes)
        flops = float(op.forward_flops)
        time = seconds[index] if seconds is not None else 0.0
        chosen = _selected(op, selection)
        per["saved"] += mask * saved
        per["flops"] += mask * flops
        per["time"] += mask * time
        per["sel_saved"] += mask * (0.0 if chosen else saved)
        per["sel_flops"] += mask * (flops if chosen else 0.0)
        per["sel_time"] += mask * (time if chosen else 0.0)
    tokens = float(table.tokens_per_step) / micro
    t = tensor_parallel
    stage = slice(0, big_l // pipeline_parallel)
    boundary = np.full(big_l, tokens * model.hidden_size * plain.policy.activation)
    in_flight = min(pipeline_parallel, micro) if pipeline_parallel > 1 else 1
    return LayerChain(
        saved=per["saved"][stage] / t,
        boundary=boundary[stage] / t,
        forward_flops=per["flops"][stage] / t,
        forward_time=None if seconds is None else per["time"][stage] / t,
        selective_saved=per["sel_saved"][stage] / t,
        selective_flops=per["sel_flops"][stage] / t,
        selective_time=None if seconds is None else per["sel_time"][stage] / t,
        in_flight=in_flight,
        micro_batches=micro,
        description=f"{table.description}; t={t}, p={pipeline_parallel}",
    )


# ----- plugged into the memory and step-time models ------------------------------------------
@dataclass(frozen=True)
class RecomputePlan:
    """The cheapest recomputation that makes a step fit: placement, memory, recompute cost.

    ``memory`` is the per-GPU total of :func:`mlcost.memory.memory_breakdown` with the layer
    activations replaced by the placement's peak (fragmentation applied to the sum);
    ``recompute_flops`` and ``recompute_time`` are per optimizer step (all micro-batches);
    ``step_time`` is :func:`mlcost.timing.step_time` without recomputation plus
    ``recompute_time`` (single GPU only: ``None`` under tensor or pipeline parallelism).
    """

    placement: Placement
    chain_cost: PlacementCost
    memory: pint.Quantity
    capacity: pint.Quantity
    activation_budget: pint.Quantity
    other_memory: pint.Quantity
    fragmentation: float
    recompute_flops: pint.Quantity
    recompute_time: pint.Quantity | None
    model_flops: pint.Quantity
    step_time: pint.Quantity | None
    alternatives: dict[str, PlacementCost]
    description: str = ""

    @property
    def fits(self) -> bool:
        return bool(self.memory.to("byte").magnitude <= self.capacity.to("byte").magnitude)

    @property
    def recompute_overhead(self) -> float:
        """Recomputed FLOPs over model FLOPs (forward + backward) of the step."""
        return float((self.recompute_flops / self.model_flops).to("").magnitude)

    def to_dict(self) -> dict[str, Any]:
        return {
            "placement": str(self.placement),
            "kept": self.placement.count("keep"),
            "selective": self.placement.count("selective"),
            "recomputed": self.placement.recomputed_layers,
            "segments": len(self.placement.segments()),
            "activation_memory": self.chain_cost.memory.to("GiB"),
            "activation_budget": self.activation_budget.to("GiB"),
            "memory": self.memory.to("GiB"),
            "capacity": self.capacity.to("GiB"),
            "fits": self.fits,
            "recompute_flops": self.recompute_flops.to("flop"),
            "recompute_overhead": self.recompute_overhead,
            "recompute_time": None if self.recompute_time is None else self.recompute_time.to("ms"),
            "step_time": None if self.step_time is None else self.step_time.to("ms"),
        }

    def explain(self) -> str:
        """The chosen placement, its memory and recompute arithmetic, and the alternatives."""
        p = self.placement
        cost = self.chain_cost
        lines = [
            self.description,
            f"placement ({len(p.states)} layers; K keep, S selective, C checkpoint, R recompute): "
            f"{p}",
            f"activations: stored {_gib(cost.stored)} + largest transient {_gib(cost.transient)} "
            f"= {_gib(cost.memory)} (budget {_gib(self.activation_budget)} = capacity "
            f"{_gib(self.capacity)} / (1 + {self.fragmentation:g}) - other terms "
            f"{_gib(self.other_memory)})  [Chen et al. 2016 section 4.1: sum of checkpoints + "
            "max segment]",
            f"per-GPU total: ({_gib(self.other_memory)} + {_gib(cost.memory)}) x "
            f"(1 + {self.fragmentation:g}) = {_gib(self.memory)} -> "
            + ("fits" if self.fits else "does NOT fit"),
            f"recomputation per step: {self.recompute_flops.to('flop').magnitude:.4g} FLOP "
            f"= {self.recompute_overhead:.1%} of model FLOPs"
            + (
                f", {self.recompute_time.to('ms').magnitude:.2f} ms"
                if self.recompute_time is not None
                else ""
            ),
        ]
        if self.step_time is not None:
            lines.append(
                f"step time with recomputation: {self.step_time.to('ms').magnitude:.2f} ms"
            )
        lines.append("alternatives (activation peak, recomputed FLOPs per micro-batch):")
        for name, alt in self.alternatives.items():
            lines.append(
                f"  {name}: {_gib(alt.memory)}, {alt.recompute_flops.to('flop').magnitude:.4g} FLOP"
            )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return "<pre>" + self.explain().replace("<", "&lt;") + "</pre>"


def _gib(value: pint.Quantity) -> str:
    return f"{value.to('GiB').magnitude:.2f} GiB"


def cheapest_recompute(
    model: Spec,
    config: TrainingConfig,
    gpu: Accelerator,
    budget: pint.Quantity | None = None,
    *,
    micro_batch_size: int | None = None,
    sequence_length: int | None = None,
    parallel: Any = None,
    overheads: Any = None,
    memory_limit: pint.Quantity | None = None,
    selective: str | Iterable[str] = "attention-core",
) -> RecomputePlan:
    """The placement that fits ``gpu`` at the least recomputation time.

    ``budget`` is the memory the layer activations may use; by default
    ``memory_limit / (1 + fragmentation) - (every other term of the memory breakdown)``, with
    ``memory_limit`` the GPU's capacity unless given. Everything else (model states, head and
    logits, overheads) comes from :func:`mlcost.memory.memory_breakdown` (pytorch profile) with
    ``config.recompute`` ignored; the placement replaces it (module docstring).
    """
    from mlcost.memory import Overheads, Parallelism, memory_breakdown
    from mlcost.timing import step_time

    if not isinstance(model, TransformerSpec):
        raise MlcostError(f"model: {model.name!r} is a {model.KIND}, expected a transformer")
    parallel = parallel or Parallelism()
    overheads = overheads or Overheads()
    plain = config.model_copy(update={"recompute": "none", "recompute_every": None})
    if micro_batch_size is not None:
        plain = plain.model_copy(update={"micro_batch_size": int(micro_batch_size)})
    if sequence_length is not None:
        plain = plain.model_copy(update={"sequence_length": int(sequence_length)})
    breakdown = memory_breakdown(
        model, plain, gpu, parallel=parallel, profile="pytorch", overheads=overheads
    )
    other = Q_(0.0, "byte")
    for term in breakdown.terms:
        if term.name not in ("activations", "allocator fragmentation"):
            other = other + term.bytes
    capacity = memory_limit if memory_limit is not None else breakdown.capacity
    if capacity is None:
        raise MlcostError(f"gpu: {gpu.name} has no memory capacity")
    _bytes(capacity, "memory_limit")
    fragmentation = float(overheads.fragmentation)
    if budget is None:
        budget = (capacity / (1 + fragmentation) - other).to("GiB")
    _bytes(budget, "budget")
    chain = transformer_layer_chain(
        model,
        plain,
        gpu,
        tensor_parallel=parallel.tensor_parallel,
        pipeline_parallel=parallel.pipeline_parallel,
        selective=selective,
    )
    best = optimal_placement(chain, budget)
    big_l = chain.layers
    alternatives = {
        "no recomputation": placement_cost(chain, no_recompute_placement(big_l)),
        f"sqrt(L) uniform ({int(chapter_optimal_checkpoints(big_l))} segments)": placement_cost(
            chain, sqrt_placement(big_l)
        ),
        "every layer (full)": placement_cost(chain, uniform_placement(big_l, big_l)),
    }
    if chain.has_selective:
        alternatives["selective, every layer"] = placement_cost(chain, selective_placement(big_l))
    micro = chain.micro_batches
    total = ((other + best.memory) * (1 + fragmentation)).to("GiB")
    recompute_time = None if best.recompute_time is None else best.recompute_time * micro
    single = parallel.tensor_parallel == 1 and parallel.pipeline_parallel == 1
    step = None
    if single and recompute_time is not None:
        step = (step_time(model, plain, gpu).total + recompute_time).to("ms")
    model_flops = transformer_operators(model, plain).model_flops / parallel.tensor_parallel
    return RecomputePlan(
        placement=best.placement,
        chain_cost=best,
        memory=total,
        capacity=capacity.to("GiB"),
        activation_budget=budget.to("GiB"),
        other_memory=other.to("GiB"),
        fragmentation=fragmentation,
        recompute_flops=best.recompute_flops * micro,
        recompute_time=recompute_time,
        model_flops=model_flops,
        step_time=step,
        alternatives=alternatives,
        description=f"cheapest recomputation: {model.name} on {gpu.name}, {chain.description}",
    )
