"""Activation checkpointing: the layer chain, placements (which layers keep their activations
and which recompute them) and their memory and recomputation cost.

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
exactly: for a candidate largest transient ``S`` a dynamic program over segments keeps the Pareto
set of (stored bytes, recompute time) of every prefix (Chen et al. 2016 section 4.2 solve the
same problem by a search over a memory threshold; Griewank's revolve is the limit with no stored
layers), and a branch and bound over the candidates ``S`` skips those that cannot improve
(:mod:`mlcost.checkpointing.segment_search`). Chains of identical layers (every dense
transformer) are solved by enumerating the counts of kept, selective and recomputed layers and
the number of segments, one vectorized call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pint

from mlcost.checkpointing.chapter import chapter_optimal_checkpoints
from mlcost.errors import MlcostError
from mlcost.records import Record
from mlcost.units import Q_, in_unit, magnitude_in

State = Literal["keep", "selective", "checkpoint", "recompute"]
STATES: tuple[str, ...] = ("keep", "selective", "checkpoint", "recompute")
_SYMBOL = {"keep": "K", "selective": "S", "checkpoint": "C", "recompute": "R"}


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
    in_flight: float = 1
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
            raise MlcostError(f"in_flight: got {self.in_flight}, expected >= 1 micro-batch")

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
    in_flight: float = 1,
    layers: int | None = None,
) -> LayerChain:
    """A chain from per-layer quantities (arrays of length ``L``, or scalars with ``layers``)."""

    def array(value: pint.Quantity, unit: str, name: str) -> np.ndarray:
        magnitude = np.atleast_1d(np.asarray(magnitude_in(value, unit, name), dtype=float))
        if layers is not None and magnitude.size == 1:
            magnitude = np.full(layers, magnitude[0])
        return magnitude

    def optional(value: pint.Quantity | None, unit: str, name: str) -> np.ndarray | None:
        return None if value is None else array(value, unit, name)

    return LayerChain(
        saved=array(saved, "byte", "saved"),
        boundary=array(boundary, "byte", "boundary"),
        forward_flops=array(forward_flops, "flop", "forward_flops"),
        forward_time=optional(forward_time, "s", "forward_time"),
        selective_saved=optional(selective_saved, "byte", "selective_saved"),
        selective_flops=optional(selective_flops, "flop", "selective_flops"),
        selective_time=optional(selective_time, "s", "selective_time"),
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


class PlacementCost(Record, frozen=True):
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
            "memory_GiB": in_unit(self.memory, "GiB"),
            "recompute_flops": in_unit(self.recompute_flops, "flop"),
            "recompute_ms": None
            if self.recompute_time is None
            else in_unit(self.recompute_time, "ms"),
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
