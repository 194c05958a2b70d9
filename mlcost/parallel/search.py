"""Search the parallel layouts of a system for a model and a global batch.

Every combination of tensor (``t``), pipeline (``p``, with ``v`` virtual stages), context
(``c``) and data (``d``) parallel degrees, micro-batch ``b``, ZeRO stage, sequence parallelism and
recomputation is enumerated with numpy (no Python loop over candidates); what cannot run is
dropped (``t`` must divide the heads and stay inside a node, ``p·v`` at most the layers, ``c``
divide the sequence, ``d·b`` divide the global batch; interleaving needs ``m`` to be a multiple of
``p``, as Megatron-LM requires). Pipeline degrees are by default the divisors of the layer count
and the powers of two (uneven stages are split as :mod:`mlcost.layout` says). Then:

* **memory per GPU** is :func:`mlcost.memory.per_gpu_memory`, the same composition as
  :func:`mlcost.memory.memory_breakdown` for one layout, vectorized over the candidates (one
  activation table per distinct recomputation, over the sequence lengths its context-parallel
  degrees leave a GPU and the micro-batch sizes; one stage split per distinct pipeline);
* **step time** is the same vectorized evaluation as :func:`mlcost.parallel.
  multi_gpu_step_time` (:func:`mlcost.parallel.step.evaluate`).

For a mixture-of-experts model each candidate is also tried at every expert-parallel degree
``e`` that divides both ``d`` and the number of experts (by default; ``SearchSpace.
expert_parallel`` narrows them): ``e`` shards the routed experts' states and adds the
all-to-all of :func:`mlcost.parallel.traffic.expert_parallel_terms`. Dense models keep ``e = 1``.

Candidates that do not fit are dropped (unless ``keep_unfit``) before their step is timed (the
memory is computed first); the rest are ranked by step time or by cost (GPU-seconds per token,
proportional to dollars at a fixed price per GPU-hour). Each candidate's memory and step depend
on its own degrees only, so both are evaluated in blocks of rows (:mod:`mlcost.blocks`: the
same values, intermediates that stay in the CPU's cache).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pint

from mlcost.arrays import distinct
from mlcost.blocks import row_blocks, rows_of
from mlcost.checks import argument, counts
from mlcost.errors import MlcostError
from mlcost.finetune import dequantized_weight_bytes
from mlcost.implementation import Software, SoftwareLike
from mlcost.implementation import implementation as implementation_of
from mlcost.layout import Layout
from mlcost.memory import DEFAULT_OVERHEADS, Overheads, Profile, activation_parts, per_gpu_memory
from mlcost.memory.activations import ActivationParts
from mlcost.memory.states import model_state_bytes_per_parameter
from mlcost.parallel.compute import ComputeParts, compute_parts_by_shard, model_dims
from mlcost.parallel.degrees import CommOptions, Degrees, ModelDims, stage_layer_profile
from mlcost.parallel.step import evaluate
from mlcost.records import Record, replace
from mlcost.results import Figure, Result
from mlcost.specs import Implementation, ModelSpec, TransformerSpec
from mlcost.specs.catalog import as_model
from mlcost.systems import System, SystemLike, system
from mlcost.timing import Mode
from mlcost.units import Q_, in_unit, magnitude_in
from mlcost.workload import TrainingConfig

if TYPE_CHECKING:
    import pandas as pd

RECOMPUTE_CODES = ("none", "selective", "full")
#: The knobs a published run rarely states, at Megatron-LM's defaults (megatron/training/
#: arguments.py at commit 937571cf: --micro-batch-size as its examples run it, 1; no
#: recomputation, --recompute-granularity None; --tp-comm-overlap off): what
#: :meth:`SearchResult.simplest_of_ties` prefers among layouts the model cannot tell apart
#: (interleaving, --num-layers-per-virtual-pipeline-stage None, counts as a dimension there).
DEFAULT_KNOBS = {"micro_batch": 1, "recompute": 0, "tp_overlap": False}


def unstated_knobs(software: SoftwareLike = None) -> dict[str, Any]:
    """The layout knobs a run's configuration rarely states, at what the implementation runs when
    it is not told: no interleaving (Megatron-LM's --num-layers-per-virtual-pipeline-stage
    defaults to None), no TP communication overlap (--tp-comm-overlap is opt-in) and the
    profile's ``default_micro_batch_size`` where it has one (Megatron-Core: 1). A plan holds
    them there unless asked to search them (:meth:`SearchResult.simplest_of_ties`, ``held``;
    ``Assumptions.search_layout_knobs``): the published runs measure none of their effects, so
    the model's gain from them is not a gain anyone has checked (docs/validation.md, "The
    search")."""
    knobs: dict[str, Any] = {"v": 1, "tp_overlap": False}
    size = implementation_of(software).spec.default_micro_batch_size
    if size is not None:
        knobs["micro_batch"] = size
    return knobs


def _divisors(n: int) -> np.ndarray:
    values = np.arange(1, n + 1)
    return values[n % values == 0]


def default_pipeline_degrees(layers: int, gpus: int) -> np.ndarray:
    """The divisors of the layer count and the powers of two, up to the layers and the GPUs."""
    powers = 2 ** np.arange(0, int(np.log2(max(gpus, 1))) + 1)
    options = distinct(np.concatenate((_divisors(layers), powers)))
    return options[(options <= layers) & (options <= gpus)]


class SearchSpace(Record, frozen=True):
    """The options :func:`search` enumerates (``None``: the defaults in the module docstring)."""

    tensor_parallel: Sequence[int] = (1, 2, 4, 8)
    pipeline_parallel: Sequence[int] | None = None
    context_parallel: Sequence[int] = (1, 2, 4)
    micro_batch_sizes: Sequence[int] | None = None
    zero_stages: Sequence[int] = (0, 1, 2, 3)
    recompute: Sequence[str] = RECOMPUTE_CODES
    sequence_parallel: Sequence[bool] = (False, True)
    virtual_stages: Sequence[int] = (1, 2)
    tp_overlap: Sequence[bool] = (False, True)
    expert_parallel: Sequence[int] | None = None

    def checked(self) -> SearchSpace:
        """This space, when every option list is non-empty and holds values a layout can take
        (issue 65: a 0 degree reached a division); else one line naming the option. What
        :func:`search` runs first."""
        for field in ("tensor_parallel", "pipeline_parallel", "context_parallel",
                      "micro_batch_sizes", "virtual_stages", "expert_parallel"):  # fmt: skip
            values = getattr(self, field)
            if values is not None:
                counts(tuple(values), field)
        for field, allowed in (
            ("zero_stages", (0, 1, 2, 3)),
            ("recompute", RECOMPUTE_CODES),
            ("sequence_parallel", (False, True)),
            ("tp_overlap", (False, True)),
        ):
            values = tuple(getattr(self, field))
            if not values or any(v not in allowed for v in values):
                raise MlcostError(
                    f"{field}: got {values!r}, expected a non-empty selection of "
                    f"{', '.join(map(str, allowed))}"
                )
        return self


def candidate_degrees(
    *,
    layers: int,
    heads: int,
    sequence: int,
    gpus: int,
    gpus_per_node: int,
    global_batch_size: int,
    space: SearchSpace,
    use_all_gpus: bool,
) -> dict[str, np.ndarray]:
    """The valid candidates as columns (see the module docstring for the rules)."""
    tp = np.asarray([t for t in space.tensor_parallel if t <= gpus_per_node and heads % t == 0])
    pp = (
        default_pipeline_degrees(layers, gpus)
        if space.pipeline_parallel is None
        else np.asarray([p for p in space.pipeline_parallel if 1 <= p <= layers])
    )
    cp = np.asarray([c for c in space.context_parallel if sequence % c == 0])
    dp_options = _divisors(global_batch_size)
    dp_options = dp_options[dp_options <= gpus]
    for name, values in (("tensor_parallel", tp), ("pipeline_parallel", pp), ("cp", cp)):
        if values.size == 0:
            raise MlcostError(f"{name}: no valid degree among the options given")
    t, p, c, d = (a.ravel() for a in np.meshgrid(tp, pp, cp, dp_options, indexing="ij"))
    used = t * p * c * d
    keep = used == gpus if use_all_gpus else used <= gpus
    t, p, c, d = t[keep], p[keep], c[keep], d[keep]
    if t.size == 0:
        raise MlcostError(
            f"search: no t x p x c x d equals the {gpus} GPUs with these options; "
            "try use_all_gpus=False"
        )
    mbs = (
        _divisors(global_batch_size) if space.micro_batch_sizes is None else space.micro_batch_sizes
    )
    mb = np.asarray(mbs, dtype=np.int64)
    s_idx, m_idx = (a.ravel() for a in np.meshgrid(np.arange(t.size), np.arange(mb.size)))
    b = mb[m_idx]
    keep = global_batch_size % (d[s_idx] * b) == 0
    s_idx, b = s_idx[keep], b[keep]
    structure = {"tp": t[s_idx], "pp": p[s_idx], "cp": c[s_idx], "dp": d[s_idx], "mb": b}
    m = global_batch_size // (structure["dp"] * b)
    z = np.asarray(space.zero_stages, dtype=np.int64)
    r = np.asarray([RECOMPUTE_CODES.index(x) for x in space.recompute], dtype=np.int64)
    q = np.asarray(space.sequence_parallel, dtype=bool)
    v = np.asarray(space.virtual_stages, dtype=np.int64)
    o = np.asarray(space.tp_overlap, dtype=bool)
    # Every structure (axis 0) with every ZeRO stage, recomputation, sequence parallelism,
    # virtual stages and overlap (axes 1-5), in that order: the rules on the grid's axes, each
    # option broadcast along its own, then the valid cells in row-major order (the order of the
    # grid flattened) and only their columns gathered.
    axes = (b.size, z.size, r.size, q.size, v.size, o.size)

    def along(values: np.ndarray, axis: int) -> np.ndarray:
        return values.reshape([-1 if i == axis else 1 for i in range(len(axes))])

    tp_, pp_ = along(structure["tp"], 0), along(structure["pp"], 0)
    replicas_, m_ = along(structure["dp"] * structure["cp"], 0), along(m, 0)
    sp_, v_, o_ = along(q, 3), along(v, 4), along(o, 5)
    valid = (
        ~(sp_ & (tp_ == 1))
        & ~(o_ & ~sp_)
        & ~((along(z, 1) > 0) & (replicas_ == 1))
        & ((v_ == 1) | ((pp_ > 1) & (m_ % pp_ == 0)))
        & (pp_ * v_ <= layers)
    )
    valid = np.broadcast_to(valid, axes)
    row, zi, ri, qi, vi, oi = np.unravel_index(np.flatnonzero(valid), axes)
    result = {key: value[row] for key, value in structure.items()}
    result.update({"zero": z[zi], "recompute": r[ri], "sp": q[qi], "v": v[vi], "tpo": o[oi]})
    result["m"] = m[row]
    if result["m"].size == 0:
        raise MlcostError(
            f"search: no layout of the {gpus} GPUs satisfies the rules with these options "
            f"(micro-batches {mb.tolist()} for a global batch of {global_batch_size}, virtual "
            f"stages {v.tolist()}, pipeline degrees {pp.tolist()}); widen the SearchSpace, e.g. "
            "micro_batch_sizes=None or virtual_stages=(1, 2)"
        )
    return result


def _code(*keys: np.ndarray) -> tuple[np.ndarray, tuple[int, ...]]:
    """One mixed-radix code per row of equal-length non-negative integer ``keys``, and the
    radices (each key's largest value + 1)."""
    columns = [np.asarray(k, dtype=np.int64) for k in keys]
    radices = tuple(int(c.max()) + 1 for c in columns)
    return np.ravel_multi_index(columns, radices), radices


def _distinct(*keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique`` of the rows of non-negative integer ``keys`` with ``return_inverse``: the
    distinct key tuples (one column each, in ascending code order) and each row's index into
    them, by counting (``np.bincount`` of the row codes) in O(rows + codes), not by sorting the
    rows (a sort of a million rows is most of a search's time otherwise)."""
    code, radices = _code(*keys)
    present = np.bincount(code) > 0
    found = np.flatnonzero(present)
    position = np.cumsum(present) - 1
    return np.stack(np.unravel_index(found, radices)), position[code]


def _groups(*keys: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Rows grouped by equal non-negative integer ``keys``: the distinct key tuples (one column
    each) and the row indices of each group (ascending). One mixed-radix code and a stable sort
    of it instead of ``np.unique(axis=...)`` and a boolean mask per group (both O(rows) per
    group); the groups start where the sorted code changes."""
    code, radices = _code(*keys)
    order = np.argsort(code, kind="stable")
    ordered = code[order]
    starts = np.flatnonzero(np.diff(ordered)) + 1
    members = np.split(order, starts)
    firsts = ordered[np.concatenate(([0], starts))]
    return np.stack(np.unravel_index(firsts, radices)), members


def _part_columns(parts: ActivationParts, shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    """The numeric fields of ``parts`` (computed over a vector of micro-batch sizes) as float64
    arrays of ``shape``: what :func:`_select` takes rows of, converted once per ``parts``."""
    return {
        name: np.broadcast_to(np.asarray(getattr(parts, name), dtype=np.float64), shape)
        for name in ActivationParts.__struct_fields__
        if name not in ("formula", "source")
    }


def _select(
    parts: ActivationParts, columns: dict[str, np.ndarray], index: np.ndarray
) -> ActivationParts:
    """``parts`` with its numbers taken from ``columns`` at ``index`` (``columns``: its fields
    as arrays, :func:`_part_columns`, or every candidate's)."""
    return replace(parts, **{name: column[index] for name, column in columns.items()})


def with_expert_parallel(
    cand: dict[str, np.ndarray], experts: int, options: Sequence[int] | None
) -> dict[str, np.ndarray]:
    """``cand`` repeated at each expert-parallel degree ``e`` among ``options`` (default: the
    divisors of ``experts``) that divides the candidate's ``d`` and ``experts``, as column
    ``ep``; one ``e = 1`` for a dense model (``experts = 0``)."""
    size = cand["tp"].size
    if experts == 0:
        return {**cand, "ep": np.ones(size, dtype=np.int64)}
    degrees = _divisors(experts) if options is None else np.asarray(options, dtype=np.int64)
    degrees = degrees[(degrees >= 1) & (experts % np.maximum(degrees, 1) == 0)]
    if degrees.size == 0:
        raise MlcostError(
            f"expert_parallel: no degree among {list(options or [])} divides the {experts} experts"
        )
    row, e = (a.ravel() for a in np.meshgrid(np.arange(size), degrees, indexing="ij"))
    keep = cand["dp"][row] % e == 0
    row, e = row[keep], e[keep]
    if row.size == 0:
        raise MlcostError(
            f"expert_parallel: no degree among {degrees.tolist()} divides the data-parallel "
            f"degree of any candidate (data-parallel degrees {distinct(cand['dp']).tolist()}); "
            "include 1, or leave expert_parallel=None"
        )
    return {**{key: value[row] for key, value in cand.items()}, "ep": e}


def _stage_columns(cand: dict[str, np.ndarray], layers: int) -> dict[str, np.ndarray]:
    """First, last and most loaded middle stage layers of every candidate (per distinct p, v)."""
    out = {name: np.zeros(cand["pp"].size, dtype=np.int64) for name in ("first", "last", "middle")}
    groups, rows = _groups(cand["pp"], cand["v"])
    for g, members in enumerate(rows):
        p, v = (int(x) for x in groups[:, g])
        profile = stage_layer_profile(layers, Layout(pp=p, virtual_stages=v))
        for name, value in zip(("first", "last", "middle"), profile, strict=True):
            out[name][members] = value
    return out


def _memory_bytes(
    model: TransformerSpec,
    config: TrainingConfig,
    cand: dict[str, np.ndarray],
    profile: Profile,
    overheads: Overheads,
    gradient_bytes: float | None = None,
    implementation: Implementation | None = None,
) -> np.ndarray:
    """Per-GPU bytes of every candidate (:func:`mlcost.memory.per_gpu_memory`; gradients held
    in ``gradient_bytes`` under mixed precision where the software says, MoE layers keeping
    what ``implementation`` says): the saved
    activations of one operator table per distinct (recompute, cp) over the micro-batch sizes,
    taken at each candidate's; then one composition per distinct pipeline split (p, v), whose
    stage layers are the same for all its candidates whatever their recomputation and cp."""
    n = cand["tp"].size
    out = np.zeros(n)
    per_parameter = model_state_bytes_per_parameter(
        config.precision, config.optimizer, model=model, finetune=config.finetune,
        gradient_bytes=gradient_bytes,
    )  # fmt: skip
    (mbs,), mb_index = _distinct(cand["mb"])
    modes, mode_of = _distinct(cand["recompute"], cand["cp"])
    # Every (recompute, cp) mode's activation parts over the micro-batch sizes, one row each
    # (flattened: a candidate's are at its mode's row and its micro-batch's column): one table
    # per recomputation, over the sequence lengths its modes' cp leave a GPU (rows) and the
    # micro-batch sizes (columns).
    columns: dict[str, np.ndarray] = {}
    for rc in distinct(modes[0]).tolist():
        rows = np.flatnonzero(modes[0] == rc)
        parts = activation_parts(
            model, config, Layout(recompute=RECOMPUTE_CODES[rc]), profile, mbs.reshape(1, -1),
            (config.sequence_length // modes[1, rows]).reshape(-1, 1),
            implementation=implementation,
        )  # fmt: skip
        for name, column in _part_columns(parts, (rows.size, mbs.size)).items():
            columns.setdefault(name, np.empty((modes.shape[1], mbs.size)))[rows] = column
    flat = {name: rows.ravel() for name, rows in columns.items()}
    cell = mode_of * mbs.size + mb_index
    replicas = cand["dp"] * cand["cp"]
    splits, split_rows = _groups(cand["pp"], cand["v"])
    dequantized = dequantized_weight_bytes(model, config.finetune, config.policy.stored_weight)
    for g, members in enumerate(split_rows):
        pp, v = (int(x) for x in splits[:, g])
        stage_layers = Layout(pp=pp, virtual_stages=v).stage_layer_counts(model.num_layers)
        for block in row_blocks(members.size):  # (mlcost.blocks: each candidate's own memory)
            rows = members[block]
            memory = per_gpu_memory(
                _select(parts, flat, cell[rows]),  # the last table's parts, every number replaced
                parameters=float(model.parameter_count),
                layers=model.num_layers,
                per_parameter=per_parameter,
                stage_layers=stage_layers,
                virtual_stages=v,
                tensor_parallel=cand["tp"][rows],
                weight_replicas=replicas[rows],
                zero_stage=cand["zero"][rows],
                sequence_parallel=cand["sp"][rows],
                micro_batches=cand["m"][rows],
                overheads=overheads,
                dequantized_weight=dequantized,
                expert_parameters=float(model.expert_parameter_count),
                expert_parallel=cand["ep"][rows],
            )
            out[rows] = memory.total
    return out


def _compute_parts(
    model: TransformerSpec,
    config: TrainingConfig,
    system: System,
    cand: dict[str, np.ndarray],
    mode: Mode,
    software: Software,
) -> ComputeParts:
    """The compute parts of every candidate: per recomputation mode and expert-parallel degree
    (which set the operator table: its recomputation, the shape of the expert GEMMs) one table
    over every micro-batch size, timed at each tensor- and context-parallel degree of those
    candidates (the shapes of a rank's GEMMs), picked per candidate."""
    (mbs,), mb_index = _distinct(cand["mb"])
    codes, row = _distinct(cand["recompute"], cand["ep"], cand["tp"], cand["cp"])
    tables, table_of = _distinct(codes[0], codes[1])
    by_code: dict[int, ComputeParts] = {}
    for index, (code, ep) in enumerate(tables.T):
        members = np.flatnonzero(table_of == index)
        layout = Layout(recompute=RECOMPUTE_CODES[int(code)], dp=int(ep), ep=int(ep))
        shards = [(int(codes[2, i]), int(codes[3, i])) for i in members]
        parts = compute_parts_by_shard(
            model, config, system, layout, mbs, shards, mode=mode, software=software
        )
        by_code.update(zip(members.tolist(), parts, strict=True))
    done = [by_code[i] for i in range(codes.shape[1])]  # every code is in one table
    flat = row * mbs.size + mb_index  # each candidate's (code, micro-batch) cell, row-major
    columns = {
        name: np.stack([getattr(p, name) for p in done]).ravel().take(flat)
        for name in ComputeParts.__struct_fields__
        if name != "peak"
    }
    return ComputeParts(peak=done[0].peak, **columns)


#: The column each ``rank_by`` of :func:`search` ranks by (lower is better).
RANK_COLUMNS = {"time": "step_s", "cost": "gpu_s_per_token"}


class SearchResult(Record, Result, frozen=True, dict=True):
    """The ranked layouts (:func:`search`): one row per candidate kept, best first. ``columns``
    holds every candidate timed (plain arrays, the recomputation as codes into
    :data:`RECOMPUTE_CODES`; with ``keep_unfit`` all of them, else those that fit, :func:`_timed`)
    and ``order`` the kept ones' indices, best first; ``rows`` (the kept rows in that order) and
    the pandas ``frame`` are built on first use, so reading the best layouts (``layout()``,
    ``layouts(top)``) never copies a million rows of every column."""

    columns: dict[str, Any]
    order: np.ndarray
    model: str
    system: System
    global_batch_size: int
    candidates: int
    fitting: int
    rank_by: str

    @property
    def kept(self) -> int:
        """The number of rows kept."""
        return int(self.order.size)

    @cached_property
    def rows(self) -> dict[str, Any]:
        """The kept rows, best first, column by column (:func:`_taken`)."""
        return _taken(self.columns, self.order)

    @cached_property
    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame (:func:`_frame`)."""
        return _frame(self.rows, self.kept)

    def _value(self, name: str, index: int) -> Any:
        value = self.columns[name]
        return value if np.ndim(value) == 0 else value[self.order[index]]

    def __len__(self) -> int:
        return self.kept

    @property
    def empty(self) -> bool:
        return self.kept == 0

    def layout(self, index: int = 0) -> Layout:
        """The layout of row ``index`` (0: the best)."""
        if index >= self.kept:
            raise MlcostError(
                f"search: no candidate {index}; {self.fitting} of {self.candidates} fit"
            )

        def at(name: str) -> Any:
            return self._value(name, index)

        return Layout(
            dp=int(at("dp")),
            tp=int(at("tp")),
            pp=int(at("pp")),
            cp=int(at("cp")),
            ep=int(at("ep")),
            virtual_stages=int(at("v")),
            micro_batch_size=int(at("micro_batch")),
            global_batch_size=self.global_batch_size,
            zero_stage=int(at("zero")),
            sequence_parallel=bool(at("sequence_parallel")),
            tp_overlap=bool(at("tp_overlap")),
            recompute=str(RECOMPUTE_CODES[int(at("recompute"))]),
        )

    def held_at(self, held: dict[str, Any]) -> np.ndarray:
        """The ranks (best first) of the kept rows whose knobs equal ``held`` (column name ->
        value), knob by knob where any kept row has that value (a knob the search did not offer
        at its held value is left free); every rank when ``held`` is empty."""
        ranks = np.arange(self.kept)
        for name, value in held.items():
            column = self.columns[name]
            values = np.broadcast_to(
                np.asarray(column)[self.order[ranks]] if np.ndim(column) else column, ranks.shape
            )
            same = np.flatnonzero(values == value)
            if same.size:
                ranks = ranks[same]
        return ranks

    def simplest_of_ties(self, tolerance: float, held: dict[str, Any] | None = None) -> int:
        """The rank of the layout practitioners run among those whose ``rank_by`` value is
        within ``tolerance`` (relative) of the best: the fewest model-parallel dimensions
        (tensor, pipeline, context and expert parallelism, virtual stages), then the fewest
        departures from Megatron-LM's defaults (:data:`DEFAULT_KNOBS`); of several such, the
        best ranked. ``held`` (e.g. :func:`unstated_knobs`) first keeps only the rows at those
        knob values (:meth:`held_at`): "the best" is then the best of them. The ranking itself
        stays by ``rank_by``."""
        if self.kept == 0:
            raise MlcostError(f"search: no candidate; {self.fitting} of {self.candidates} fit")
        key = self.columns[RANK_COLUMNS[self.rank_by]]
        allowed = self.held_at(held or {})
        if np.ndim(key) == 0:
            return int(allowed[0])
        ranked = np.asarray(key)[self.order[allowed]]
        best = ranked[0]
        tied = allowed[np.flatnonzero(ranked <= best + tolerance * abs(best))]

        def at_ties(name: str) -> np.ndarray:
            column = self.columns[name]
            values = np.asarray(column)[self.order[tied]] if np.ndim(column) else column
            return np.broadcast_to(np.asarray(values), tied.shape)

        dimensions = np.zeros(tied.size, dtype=np.int64)
        for name in ("tp", "pp", "cp", "ep", "v"):
            dimensions += at_ties(name) > 1
        departures = np.zeros(tied.size, dtype=np.int64)
        for name, default in DEFAULT_KNOBS.items():
            departures += at_ties(name) != default
        # Fewest dimensions, then fewest departures, then the best ranked (a stable sort).
        return int(tied[np.lexsort((np.arange(tied.size), departures, dimensions))[0]])

    def layouts(self, top: int | None = None) -> list[Layout]:
        """The layouts of the rows, best first (the first ``top``)."""
        count = self.kept if top is None else min(top, self.kept)
        return [self.layout(i) for i in range(count)]

    def title(self) -> str:
        return (
            f"{self.model} on {self.system.describe()}: {self.fitting} of {self.candidates} "
            f"layouts fit, ranked by {self.rank_by}"
        )

    def figures(self) -> list[Figure]:
        if self.empty:
            return [Figure("best layout", "none fits", "", "", "mlcost.parallel.search")]
        step, mfu = float(self._value("step_s", 0)), float(self._value("mfu", 0))
        memory, capacity = (
            float(self._value("memory_GiB", 0)),
            float(self._value("capacity_GiB", 0)),
        )
        return [
            Figure(
                "best layout",
                self.layout(0).describe(),
                f"lowest {self.rank_by}",
                f"step {step:.4g} s, {memory:.4g} of {capacity:.4g} GiB",
                "mlcost.parallel.search (memory: mlcost.memory; step: mlcost.parallel.step)",
            ),
            Figure("step time", Q_(step, "s"), "compute + bubble + exposed communication"),
            Figure("MFU", Q_(mfu, "").to("percent"), "model FLOPs / (step x GPUs x peak)"),
        ]

    def to_frame(self) -> pd.DataFrame:
        return self.frame


def _checked(
    spec: ModelSpec, global_batch_size: int, rank_by: str, space: SearchSpace
) -> TransformerSpec:
    """The model, once the search's inputs are valid."""
    if not isinstance(spec, TransformerSpec):
        raise MlcostError(f"model: {spec.name!r} is a {spec.KIND}; the search takes transformers")
    if rank_by not in RANK_COLUMNS:
        raise MlcostError(f"rank_by: got {rank_by!r}, expected 'time' or 'cost'")
    if int(global_batch_size) != global_batch_size or global_batch_size < 1:
        raise MlcostError(f"global_batch_size: got {global_batch_size!r}, expected a count >= 1")
    for value in space.recompute:
        if value not in RECOMPUTE_CODES:
            raise MlcostError(f"recompute: got {value!r}, expected none, selective or full")
    return spec


def _degrees(cand: dict[str, np.ndarray], layers: int) -> Degrees:
    """The candidates as the parallel model's degree columns."""
    stages = _stage_columns(cand, layers)
    return Degrees(
        dp=cand["dp"], tp=cand["tp"], pp=cand["pp"], cp=cand["cp"],
        ep=cand["ep"], micro_batch=cand["mb"],
        micro_batches=cand["m"], zero=cand["zero"], sequence_parallel=cand["sp"],
        virtual=cand["v"], recompute_fraction=np.where(cand["recompute"] == 2, 1.0, 0.0),
        first_layers=stages["first"], last_layers=stages["last"], middle_layers=stages["middle"],
        tp_overlap=cand["tpo"], ep_overlap=np.zeros_like(cand["tpo"], dtype=bool),
    )  # fmt: skip


def _timed(
    cand: dict[str, np.ndarray], memory: np.ndarray, resolved: System, keep_unfit: bool
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The candidates whose step is timed and their memory: those that fit the GPU unless
    ``keep_unfit`` (a layout that does not fit is dropped, so its step need not be timed: each
    candidate's time depends on its own degrees only); only the first when none fits (the
    evaluator takes at least one candidate; the result then keeps none)."""
    if keep_unfit:
        return cand, memory
    fits = memory <= _capacity_bytes(resolved)
    if fits.all():
        return cand, memory
    rows = np.flatnonzero(fits) if fits.any() else np.arange(1)
    return {name: column[rows] for name, column in cand.items()}, memory[rows]


def _capacity_bytes(resolved: System) -> float:
    """The memory one GPU of ``resolved`` has for a step, in bytes."""
    return float(in_unit(resolved.accelerator.memory_available, "byte"))


#: The step's columns the search keeps (:class:`mlcost.parallel.step.StepArrays` fields).
_STEP_FIELDS = ("total", "compute", "bubble", "exposed", "communication", "mfu")


def _step_columns(
    dims: ModelDims,
    resolved: System,
    degrees: Degrees,
    parts: ComputeParts,
    options: CommOptions | None,
    software: Software,
) -> dict[str, np.ndarray]:
    """The step time and its parts of every candidate (:func:`mlcost.parallel.step.evaluate`),
    evaluated in blocks of rows (:mod:`mlcost.blocks`): a candidate's step depends on its own
    degrees and compute parts only, so each block's values are the whole evaluation's, to the
    bit, with intermediates that stay in cache."""
    rows = int(np.size(degrees.tp))
    found: dict[str, list[np.ndarray]] = {name: [] for name in _STEP_FIELDS}
    for block in row_blocks(rows):
        part = rows_of(degrees, block, rows)
        step = evaluate(
            dims, resolved, part, rows_of(parts, block, rows),
            gpus_per_node=np.minimum(resolved.gpus_per_node, part.gpus), options=options,
            software=software,
        )  # fmt: skip
        size = block.stop - block.start
        for name, values in found.items():
            values.append(np.broadcast_to(getattr(step, name), (size,)))
    return {name: np.concatenate(values) for name, values in found.items()}


def _columns(
    cand: dict[str, np.ndarray],
    used: np.ndarray,
    steps: dict[str, np.ndarray],
    memory: np.ndarray,
    resolved: System,
    *,
    tokens: int,
) -> dict[str, Any]:
    """The columns of the result, one value per candidate: degrees, memory against capacity,
    step time and its parts (``steps``: :func:`_step_columns`; the capacity is one number for
    all)."""
    capacity = _capacity_bytes(resolved)
    total = steps["total"]
    return {
        "gpus": used, "nodes": np.ceil(used / resolved.gpus_per_node).astype(np.int64),
        "dp": cand["dp"], "tp": cand["tp"], "pp": cand["pp"], "v": cand["v"], "ep": cand["ep"],
        "cp": cand["cp"], "micro_batch": cand["mb"], "micro_batches": cand["m"],
        "zero": cand["zero"], "sequence_parallel": cand["sp"], "tp_overlap": cand["tpo"],
        "recompute": cand["recompute"],  # codes; named in the frame (_ranked)
        "memory_GiB": memory / 2**30, "capacity_GiB": capacity / 2**30,
        "fits": memory <= capacity, "step_s": total, "compute_s": steps["compute"],
        "bubble_s": steps["bubble"], "exposed_comm_s": steps["exposed"],
        "total_comm_s": steps["communication"], "mfu": steps["mfu"],
        "tokens_per_s": tokens / total, "gpu_s_per_token": used * total / tokens,
    }  # fmt: skip


def _lexsorted(first: np.ndarray, second: np.ndarray, third: np.ndarray) -> np.ndarray:
    """``np.lexsort((third, second, first))``: a stable sort by ``first``, ties broken by
    ``second`` then ``third`` (NaN last and tied with NaN, as numpy sorts), then by row. One
    sort of ``first`` (numpy's default introsort, a third of the time of its stable sort; tied
    rows in any order), then a lexsort of the tied rows only by ``second``, ``third`` and their
    row: the stable order. On the 4096-GPU search of ``benchmarks/parallel_search.py``
    (1,165,716 rows, 22% of them tied): 0.11 s, against 0.26 s for ``np.lexsort`` and 0.17 s
    with a stable first sort."""
    order = np.argsort(first)
    ordered = first[order]
    same = (ordered[1:] == ordered[:-1]) | (np.isnan(ordered[1:]) & np.isnan(ordered[:-1]))
    if not same.any():
        return order
    tied = np.flatnonzero(np.concatenate((same, [False])) | np.concatenate(([False], same)))
    run = np.cumsum(np.concatenate(([True], ~same)))[tied]
    members = order[tied]
    order[tied] = members[np.lexsort((members, third[members], second[members], run))]
    return order


def _ranked(columns: dict[str, Any], key: str, keep_unfit: bool, top: int | None) -> np.ndarray:
    """The rows kept (all, or those that fit), ordered by ``key`` then GPUs then memory (a
    stable lexicographic sort, ``np.lexsort``), the first ``top``: their indices into
    ``columns``."""
    rows = np.arange(columns["fits"].size) if keep_unfit else np.flatnonzero(columns["fits"])
    order = rows[_lexsorted(columns[key][rows], columns["gpus"][rows], columns["memory_GiB"][rows])]
    if top is not None:
        order = order[: max(top, 0)]
    return order


def _taken(columns: dict[str, Any], order: np.ndarray) -> dict[str, Any]:
    """The rows at ``order`` of every column (a number common to all rows stays one)."""
    return {name: v if np.ndim(v) == 0 else np.asarray(v)[order] for name, v in columns.items()}


def _frame(rows: dict[str, Any], kept: int) -> pd.DataFrame:
    """``kept`` ranked rows as a DataFrame, the recomputation codes as their names (taken from
    a three-name array: a seventh of the time of converting a million strings)."""
    import pandas as pd

    columns = dict(rows)
    if "recompute" in columns:  # codes to names, typed as pandas types a column of names
        columns["recompute"] = pd.Series(RECOMPUTE_CODES).array.take(columns["recompute"])
    # copy=False: the columns are the frame's own, so pandas need not consolidate them into
    # two-dimensional blocks (another copy of every column).
    return pd.DataFrame(columns, index=pd.RangeIndex(kept), copy=False)


def search(
    model: ModelSpec | str,
    target: SystemLike,
    global_batch_size: int,
    *,
    config: TrainingConfig | None = None,
    nodes: int | None = None,
    gpus: int | None = None,
    space: SearchSpace | None = None,
    use_all_gpus: bool = True,
    rank_by: str = "time",
    price_per_gpu_hour: pint.Quantity | None = None,
    profile: Profile = "pytorch",
    overheads: Overheads | None = None,
    keep_unfit: bool = False,
    top: int | None = None,
    mode: Mode = "roofline",
    options: CommOptions | None = None,
    implementation: SoftwareLike = None,
) -> SearchResult:
    """Rank the parallel layouts of ``model`` on a system (``nodes`` of it, or the nodes that
    ``gpus`` GPUs take; layouts use ``gpus``, default all of the system's) for a global batch of
    ``global_batch_size`` sequences (module docstring). One row per candidate that fits, best
    first: the degrees, memory per GPU against capacity, step time and its parts, MFU, tokens/s
    and GPU-seconds per token (and USD per step with a price).

    ``rank_by``: ``"time"`` (step time) or ``"cost"`` (GPU-seconds per token; with
    ``use_all_gpus=False`` a smaller run can be cheaper). ``space`` narrows or widens the options.
    """
    space = SearchSpace() if space is None else argument(space, SearchSpace, "space").checked()
    spec = _checked(as_model(model), global_batch_size, rank_by, space)
    software = implementation_of(implementation)
    if not software.spec.tp_comm_overlap:
        space = replace(space, tp_overlap=(False,))
    config = TrainingConfig() if config is None else argument(config, TrainingConfig, "config")
    resolved = system(target, nodes=nodes)
    if gpus is None:
        gpus = resolved.gpus
    elif isinstance(gpus, bool) or int(gpus) != gpus or gpus < 1:
        raise MlcostError(f"gpus: got {gpus!r}, expected a whole number of GPUs >= 1")
    else:
        resolved = resolved.for_gpus(int(gpus))
    cand = candidate_degrees(
        layers=spec.num_layers, heads=spec.num_attention_heads, sequence=config.sequence_length,
        gpus=int(gpus), gpus_per_node=resolved.gpus_per_node,
        global_batch_size=global_batch_size, space=space, use_all_gpus=use_all_gpus,
    )  # fmt: skip
    experts = 0 if spec.moe is None else spec.moe.num_experts
    cand = with_expert_parallel(cand, experts, space.expert_parallel)
    memory = _memory_bytes(
        spec, config, cand, profile, overheads or DEFAULT_OVERHEADS,
        software.spec.held_gradient_bytes, software.spec,
    )  # fmt: skip
    timed, memory = _timed(cand, memory, resolved, keep_unfit)
    degrees = _degrees(timed, spec.num_layers)
    steps = _step_columns(
        model_dims(spec, config, software), resolved, degrees,
        _compute_parts(spec, config, resolved, timed, mode, software), options, software,
    )  # fmt: skip
    columns = _columns(
        timed, degrees.gpus, steps, memory, resolved,
        tokens=global_batch_size * config.sequence_length,
    )  # fmt: skip
    if price_per_gpu_hour is not None:
        price = magnitude_in(price_per_gpu_hour, "USD/hour", "price_per_gpu_hour")
        columns["usd_per_step"] = degrees.gpus * steps["total"] / 3600 * price
    fitting = int(np.count_nonzero(columns["fits"]))
    key = RANK_COLUMNS[rank_by]
    return SearchResult(
        columns=columns,
        order=_ranked(columns, key, keep_unfit, top),
        model=spec.name,
        system=resolved,
        global_batch_size=int(global_batch_size),
        candidates=int(cand["tp"].size),
        fitting=fitting,
        rank_by=rank_by,
    )
