"""Search the parallel configurations of a cluster for a model and a global batch.

Every combination of tensor (``t``), pipeline (``p``, with ``v`` virtual stages), context
(``c``) and data (``d``) parallel degrees, micro-batch ``b``, ZeRO stage, sequence parallelism and
recomputation is enumerated with numpy (no Python loop over candidates); what cannot run is
dropped (``t`` must divide the heads and stay inside a node, ``p·v`` divide the layers, ``c``
divide the sequence, ``d·b`` divide the global batch; interleaving needs ``m`` to be a multiple of
``p``, as Megatron-LM requires), then:

* **memory per GPU** comes from :func:`mlcost.memory.memory_breakdown`, called once per distinct
  (``t``, ``c``, sequence parallel, recomputation) group with every micro-batch at once, and
  composed with the closed-form ZeRO model states (:func:`mlcost.memory.zero_model_state_bytes`)
  over ``d·c`` ranks, the first pipeline stage's ``min(p, m)`` micro-batches in flight, and DDP
  buckets, exactly as :func:`mlcost.parallel.step.layout_memory` computes it for one layout;
* **step time** comes from the same vectorized evaluation as
  :func:`mlcost.parallel.multi_gpu_step_time` (:func:`mlcost.parallel.step.evaluate`).

Candidates that do not fit are dropped (unless ``keep_unfit``); the rest are ranked by step time
or by cost (GPU-seconds per token, proportional to dollars at a fixed price per GPU-hour).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pint

from mlcost.comms import topology
from mlcost.errors import MlcostError
from mlcost.memory import (
    Overheads,
    Parallelism,
    memory_breakdown,
    model_state_bytes_per_parameter,
    zero_model_state_bytes,
)
from mlcost.memory import Profile as MemoryProfile
from mlcost.parallel.step import (
    ComputeParts,
    SystemLike,
    compute_parts,
    evaluate,
    model_dims,
    recompute_fraction,
)
from mlcost.parallel.strategies import Degrees
from mlcost.specs import Spec, TransformerSpec
from mlcost.timing import Mode
from mlcost.workload import TrainingConfig

RECOMPUTE_CODES = ("none", "selective", "full")
_ACTIVATION_TERMS = ("activations", "head activations")
_LAST_STAGE_TERMS = ("logits and loss (fp32)", "transient backward peak")


def _divisors(n: int) -> np.ndarray:
    values = np.arange(1, n + 1)
    return values[n % values == 0]


def candidate_degrees(
    *,
    layers: int,
    heads: int,
    sequence: int,
    gpus: int,
    gpus_per_node: int,
    global_batch_size: int,
    tensor_parallel: Sequence[int],
    pipeline_parallel: Sequence[int] | None,
    context_parallel: Sequence[int],
    micro_batch_sizes: Sequence[int] | None,
    zero_stages: Sequence[int],
    recompute: Sequence[str],
    sequence_parallel: Sequence[bool],
    virtual_stages: Sequence[int],
    use_all_gpus: bool,
) -> dict[str, np.ndarray]:
    """The valid candidates as columns (see the module docstring for the rules)."""
    tp = np.asarray([t for t in tensor_parallel if t <= gpus_per_node and heads % t == 0])
    pp_options = _divisors(layers) if pipeline_parallel is None else np.asarray(pipeline_parallel)
    pp = pp_options[layers % pp_options == 0]
    cp = np.asarray([c for c in context_parallel if sequence % c == 0])
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
    # micro-batches: divisors of the per-replica batch
    mbs = _divisors(global_batch_size) if micro_batch_sizes is None else micro_batch_sizes
    mb = np.asarray(mbs, dtype=np.int64)
    s_idx, m_idx = (a.ravel() for a in np.meshgrid(np.arange(t.size), np.arange(mb.size)))
    b = mb[m_idx]
    keep = global_batch_size % (d[s_idx] * b) == 0
    s_idx, b = s_idx[keep], b[keep]
    structure = {"tp": t[s_idx], "pp": p[s_idx], "cp": c[s_idx], "dp": d[s_idx], "mb": b}
    # the rest: ZeRO x recompute x SP x virtual stages
    z = np.asarray(zero_stages, dtype=np.int64)
    r = np.asarray([RECOMPUTE_CODES.index(x) for x in recompute], dtype=np.int64)
    q = np.asarray(sequence_parallel, dtype=bool)
    v = np.asarray(virtual_stages, dtype=np.int64)
    grids = np.meshgrid(np.arange(b.size), z, r, q, v, indexing="ij")
    row, zero, rc, sp, virtual = (a.ravel() for a in grids)
    out = {key: value[row] for key, value in structure.items()}
    out.update({"zero": zero, "recompute": rc, "sp": sp, "v": virtual})
    m = global_batch_size // (out["dp"] * out["mb"])
    valid = (
        ~(out["sp"] & (out["tp"] == 1))
        & ~((out["zero"] > 0) & (out["dp"] * out["cp"] == 1))
        & ((out["v"] == 1) | ((out["pp"] > 1) & (m % out["pp"] == 0)))
        & (layers % (out["pp"] * out["v"]) == 0)
    )
    result = {key: value[valid] for key, value in out.items()}
    result["m"] = m[valid]
    return result


def _memory_bytes(
    model: TransformerSpec,
    config: TrainingConfig,
    gpu: Any,
    cand: dict[str, np.ndarray],
    mbs: np.ndarray,
    mb_index: np.ndarray,
    profile: MemoryProfile,
    overheads: Overheads,
) -> np.ndarray:
    """Per-GPU bytes of every candidate (module docstring), vectorized by group."""
    n = cand["tp"].size
    layer_activations = np.zeros(n)
    head_activations = np.zeros(n)
    last_stage = np.zeros(n)
    keys = np.stack([cand["tp"], cand["cp"], cand["sp"].astype(np.int64), cand["recompute"]])
    groups, inverse = np.unique(keys, axis=1, return_inverse=True)
    inverse = inverse.ravel()
    for g in range(groups.shape[1]):  # distinct (t, c, sp, recompute): a few dozen at most
        tp, cp, sp, rc = (int(x) for x in groups[:, g])
        members = inverse == g
        breakdown = memory_breakdown(
            model,
            config.model_copy(
                update={
                    "recompute": RECOMPUTE_CODES[rc],
                    "recompute_every": None,
                    "gradient_accumulation_steps": 1,
                }
            ),
            gpu,
            parallel=Parallelism(tensor_parallel=tp, sequence_parallel=bool(sp)),
            profile=profile,
            overheads=overheads,
            micro_batch_size=mbs,
            sequence_length=config.sequence_length // cp,
        )
        per_mb = {name: np.zeros(mbs.shape) for name in (*_ACTIVATION_TERMS, "last")}
        for term in breakdown.terms:
            value = np.broadcast_to(term.bytes.to("byte").magnitude, mbs.shape)
            if term.name in _ACTIVATION_TERMS:
                per_mb[term.name] = per_mb[term.name] + value
            elif term.name in _LAST_STAGE_TERMS:
                per_mb["last"] = per_mb["last"] + value
        index = mb_index[members]
        layer_activations[members] = per_mb["activations"][index]
        head_activations[members] = per_mb["head activations"][index]
        last_stage[members] = per_mb["last"][index]
    # first pipeline stage: min(p, m) micro-batches of its L/p layers; logits only when p = 1
    # (memory.py's convention: the first stage is the one reported when p > 1)
    p = cand["pp"].astype(np.float64)
    in_flight = np.minimum(p, cand["m"]) / p
    activations = layer_activations * in_flight + head_activations
    last_stage = np.where(cand["pp"] > 1, 0.0, last_stage)
    # model states: Psi/(t·p) sharded by ZeRO over d·c ranks
    per_param = model_state_bytes_per_parameter(config.precision, config.optimizer)
    psi = model.parameter_count / (cand["tp"] * cand["pp"])
    replicas = cand["dp"] * cand["cp"]
    states = np.zeros(n)
    for stage in (0, 1, 2, 3):
        members = cand["zero"] == stage
        if not np.any(members):
            continue
        parts = zero_model_state_bytes(
            psi[members], per_param, zero_stage=stage, data_parallel=replicas[members]
        )
        states[members] = sum(q.to("byte").magnitude for q in parts.values())
    buckets = (overheads.communication_bucket * overheads.buckets_in_flight).to("byte").magnitude
    communication = np.where((replicas > 1) & (cand["zero"] < 2), buckets, 0.0)
    context = overheads.cuda_context.to("byte").magnitude
    subtotal = states + activations + last_stage + communication + context
    return subtotal * (1 + overheads.fragmentation)


def search(
    model: Spec,
    system: SystemLike,
    global_batch_size: int,
    *,
    config: TrainingConfig | None = None,
    nodes: int | None = None,
    tensor_parallel: Sequence[int] = (1, 2, 4, 8),
    pipeline_parallel: Sequence[int] | None = None,
    context_parallel: Sequence[int] = (1, 2, 4),
    micro_batch_sizes: Sequence[int] | None = None,
    zero_stages: Sequence[int] = (0, 1, 2, 3),
    recompute: Sequence[str] = RECOMPUTE_CODES,
    sequence_parallel: Sequence[bool] = (False, True),
    virtual_stages: Sequence[int] = (1, 2),
    use_all_gpus: bool = True,
    rank_by: str = "time",
    price_per_gpu_hour: pint.Quantity | None = None,
    profile: MemoryProfile = "megatron",
    overheads: Overheads | None = None,
    keep_unfit: bool = False,
    top: int | None = None,
    mode: Mode = "roofline",
    overlap: bool = True,
) -> pd.DataFrame:
    """Rank the parallel configurations of ``model`` on ``system`` (``nodes`` of it) for a
    global batch of ``global_batch_size`` sequences (module docstring). Returns one row per
    candidate that fits, best first: the degrees, memory per GPU against capacity, step time and
    its parts, MFU, tokens/s and GPU-seconds per token (and USD per step with a price).

    ``rank_by``: ``"time"`` (step time) or ``"cost"`` (GPU-seconds per token; with
    ``use_all_gpus=False`` a smaller run can be cheaper). ``pipeline_parallel=None`` tries every
    divisor of the layer count; ``micro_batch_sizes=None`` every divisor of the global batch.
    """
    if not isinstance(model, TransformerSpec):
        raise MlcostError(f"model: {model.name!r} is a {model.KIND}; the search takes transformers")
    if rank_by not in ("time", "cost"):
        raise MlcostError(f"rank_by: got {rank_by!r}, expected 'time' or 'cost'")
    if global_batch_size < 1:
        raise MlcostError(f"global_batch_size: got {global_batch_size!r}, expected >= 1")
    for value in recompute:
        if value not in RECOMPUTE_CODES:
            raise MlcostError(f"recompute: got {value!r}, expected none, selective or full")
    config = config or TrainingConfig()
    overheads = overheads or Overheads()
    topo = topology(system, nodes=nodes)
    gpu = topo.accelerator
    cand = candidate_degrees(
        layers=model.num_layers,
        heads=model.num_attention_heads,
        sequence=config.sequence_length,
        gpus=topo.gpus,
        gpus_per_node=topo.gpus_per_node,
        global_batch_size=global_batch_size,
        tensor_parallel=tensor_parallel,
        pipeline_parallel=pipeline_parallel,
        context_parallel=context_parallel,
        micro_batch_sizes=micro_batch_sizes,
        zero_stages=zero_stages,
        recompute=recompute,
        sequence_parallel=sequence_parallel,
        virtual_stages=virtual_stages,
        use_all_gpus=use_all_gpus,
    )
    n = cand["tp"].size
    mbs, mb_index = np.unique(cand["mb"], return_inverse=True)
    mb_index = mb_index.ravel()
    # compute: one vectorized step_time per recomputation mode, over every micro-batch size
    rc_codes = np.unique(cand["recompute"])
    per_rc: dict[int, ComputeParts] = {}
    fractions = np.zeros(n)
    for code in rc_codes:
        rc_config = config.model_copy(
            update={"recompute": RECOMPUTE_CODES[int(code)], "recompute_every": None}
        )
        per_rc[int(code)] = compute_parts(model, rc_config, gpu, mbs, mode=mode)
        fractions[cand["recompute"] == code] = recompute_fraction(rc_config, model.num_layers)
    fields = ("layers", "layers_backward", "attention", "head", "head_backward", "optimizer")
    stacked = {name: np.stack([getattr(per_rc[int(c)], name) for c in rc_codes]) for name in fields}
    rc_row = np.searchsorted(rc_codes, cand["recompute"])
    first = per_rc[int(rc_codes[0])]
    parts = ComputeParts(
        micro_batch_size=cand["mb"],
        model_flops=first.model_flops[mb_index],
        peak=first.peak,
        **{name: stacked[name][rc_row, mb_index] for name in fields},
    )
    degrees = Degrees(
        dp=cand["dp"],
        tp=cand["tp"],
        pp=cand["pp"],
        cp=cand["cp"],
        ep=np.ones(n, dtype=np.int64),
        micro_batch=cand["mb"],
        micro_batches=cand["m"],
        zero=cand["zero"],
        sequence_parallel=cand["sp"],
        virtual=cand["v"],
        recompute_fraction=fractions,
    )
    gpus = degrees.gpus
    g = topo.gpus_per_node
    result = evaluate(
        model_dims(model, config),
        topo,
        degrees,
        parts,
        gpus_per_node=np.minimum(g, gpus),
        overlap=overlap,
    )
    memory = _memory_bytes(model, config, gpu, cand, mbs, mb_index, profile, overheads)
    capacity = (gpu.memory_visible or gpu.memory_capacity).to("byte").magnitude
    tokens = global_batch_size * config.sequence_length
    frame = pd.DataFrame(
        {
            "gpus": gpus,
            "nodes": np.ceil(gpus / g).astype(np.int64),
            "dp": cand["dp"],
            "tp": cand["tp"],
            "pp": cand["pp"],
            "v": cand["v"],
            "cp": cand["cp"],
            "micro_batch": cand["mb"],
            "micro_batches": cand["m"],
            "zero": cand["zero"],
            "sequence_parallel": cand["sp"],
            "recompute": np.asarray(RECOMPUTE_CODES)[cand["recompute"]],
            "memory_GiB": memory / 2**30,
            "capacity_GiB": capacity / 2**30,
            "fits": memory <= capacity,
            "step_s": result.total,
            "compute_s": result.compute,
            "bubble_s": result.bubble,
            "exposed_comm_s": result.exposed,
            "total_comm_s": result.communication,
            "mfu": result.mfu,
            "tokens_per_s": tokens / result.total,
            "gpu_s_per_token": gpus * result.total / tokens,
        }
    )
    if price_per_gpu_hour is not None:
        price = price_per_gpu_hour.to("USD/hour").magnitude
        frame["usd_per_step"] = gpus * result.total / 3600 * price
    frame.attrs["candidates"] = n
    frame.attrs["fitting"] = int(np.count_nonzero(frame["fits"].to_numpy()))
    if not keep_unfit:
        frame = frame[frame["fits"].to_numpy()]
    key = "step_s" if rank_by == "time" else "gpu_s_per_token"
    frame = frame.sort_values([key, "gpus", "memory_GiB"], kind="stable").reset_index(drop=True)
    frame.attrs["candidates"] = n
    if top is not None:
        frame = frame.head(top)
    return frame
