"""Serving predictions against published engine benchmarks: every row of
``mlcost/data/published_serving.yaml`` (each with its source and convention), predicted with one
configuration per family: the engine profile the row names (:mod:`specs/engines`), the catalog
model, GPU and node, the row's formats, lengths and load, mlcost's defaults otherwise.

Families and what is compared (like with like):

* ``trtllm-perf-overview``: TensorRT-LLM's performance overview, total output tokens/s of a
  max-load throughput run on the whole tensor-parallel group, FP8 weights and KV cache;
  predicted at the largest batch the engine schedules or the KV cache holds
  (:attr:`mlcost.ServePlan.largest_batch`).
* ``trtllm-perf-overview-moe``: the same for Qwen3-235B-A22B on 8 GPUs, which NVIDIA ran with
  expert and attention data parallelism; predicted tensor parallel (ServePlan has neither yet),
  reported apart from the dense rows.
* ``nim``: NVIDIA NIM (TensorRT-LLM) TTFT and inter-token latency at a fixed concurrency,
  predicted at batch = concurrency.
* ``vllm-dashboard``: vLLM's latency test, one static batch's end-to-end latency: its prefill and
  its decode steps at their contexts.
* ``musgrave``: vLLM on an A100, output tokens/s of one request at a time.
* ``amd-vllm``: AMD's vLLM throughput table on 8 MI300X (FP8 weights and KV, TP 8), output
  tokens/s of a max-load run (the YAML states why output, not input + output); predicted at
  batch = the run's max num seqs, or the most sequences the KV cache holds where fewer.
* ``oci-vllm``: Oracle's vLLM latency sweep of Llama 3.1 405B FP8 on 8 MI300X (TP 8), one static
  batch of 1 to 256 prompts, end to end (as ``vllm-dashboard``): AMD's second family, from another
  organisation and another vLLM script.

Llama 3.1 8B and Llama 3.3 70B are the catalog's ``llama-3.1-8b`` and ``llama-3.3-70b``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from mlcost.checks import counts
from mlcost.published import Prediction, PublishedValidation, validate_published
from mlcost.serving.latency import forward_seconds, serving_ceilings
from mlcost.serving.plan import ServePlan
from mlcost.serving.workload import decode_operators, prefill_operators
from mlcost.specs import Engine, TransformerSpec, default_catalog

#: The families of serving rows, in the order reports list them.
SERVING_FAMILIES = (
    "trtllm-perf-overview", "trtllm-perf-overview-moe", "nim", "vllm-dashboard", "musgrave",
    "amd-vllm", "oci-vllm",
)  # fmt: skip


@cache
def serving_cases() -> tuple[dict[str, Any], ...]:
    """The rows of the shipped serving validation set, as read from YAML."""
    import yaml  # on first need only

    text = resources.files("mlcost").joinpath("data/published_serving.yaml").read_text()
    return tuple(yaml.safe_load(text)["cases"])


@cache
def serving_sources() -> dict[str, str]:
    """The sources of the serving rows, by key."""
    import yaml

    text = resources.files("mlcost").joinpath("data/published_serving.yaml").read_text()
    return dict(yaml.safe_load(text)["sources"])


def _model(name: str) -> TransformerSpec:
    return default_catalog().transformer(name)


def case_plan(
    case: dict[str, Any],
    engine: Engine | str,
    batch: int | None,
    layout: bool = False,
    poisson: bool = False,
    calibrated: bool = True,
) -> ServePlan:
    """The plan mlcost predicts a serving row with: the row's model, system (or GPU), TP,
    formats and lengths, ``engine`` and ``batch``; its ``arrivals`` (Poisson where absent, or
    ``poisson``), with ``layout`` its ``source_layout``'s expert parallelism, and its GPU
    vendor's correction unless ``calibrated`` is False (:attr:`ServePlan.calibrated`)."""
    where = {"system": case["system"]} if "system" in case else {"gpu": case["gpu"]}
    ep = int(case.get("source_layout", {}).get("ep", 1)) if layout else 1
    arrivals = "poisson" if poisson else case.get("arrivals", "poisson")
    return ServePlan(
        _model(case["model"]), **where, tp=int(case["tp"]), weights=case["weights"],
        kv_format=case["kv_format"], prompt=int(case["prompt"]), output=int(case["output"]),
        batch=batch, engine=engine, ep=ep, arrivals=arrivals, calibrated=calibrated,
    )  # fmt: skip


def static_batch_latency(plan: ServePlan, batch: int) -> float:
    """Milliseconds for one static batch of ``batch`` prompts to generate the plan's output
    tokens each: the batch's prefill (its first token) and ``O - 1`` decode steps at their
    contexts, with their collectives (:meth:`ServePlan.communication_seconds`) and the engine's
    costs (its ``step_overhead`` once per engine step: the prefill and each decode step)."""
    counts(batch, "batch")
    spec, engine = plan.transformer, plan.resolved_engine
    prompt, output = int(np.mean(plan._prompt)), int(np.mean(plan._output))
    ceilings = serving_ceilings(plan.accelerator, plan.weights, plan.kv_format)
    options = {"tensor_parallel": plan.tp, "weights": plan.weights, "kv_format": plan.kv_format,
               "grouped_kv_reads": engine.gqa_aware_attention,
               "fp8_attention": engine.fp8_attention}  # fmt: skip
    layers = spec.num_layers
    prefill = forward_seconds(prefill_operators(spec, batch, prompt, **options), ceilings,
                              engine, layers=layers, graph=False,
                              factor=plan.gpu_time_factor)  # fmt: skip
    prefill = np.asarray(prefill) + plan.communication_seconds(batch * prompt) + engine.step_seconds
    context = prompt + np.arange(1, output)  # the contexts of the O - 1 decode steps
    steps = forward_seconds(decode_operators(spec, batch, context, **options), ceilings, engine,
                            layers=layers, graph=engine.decode_graphs,
                            factor=plan.gpu_time_factor)  # fmt: skip
    steps = np.asarray(steps) + plan.communication_seconds(batch)
    return float((prefill + np.sum(steps + engine.step_seconds)) * 1e3)


def predict_serving_case(
    case: dict[str, Any],
    engines: Mapping[str, Engine] | None = None,
    *,
    poisson: bool = False,
    layout: bool = False,
    calibrated: bool = True,
) -> float:
    """mlcost's prediction for one serving row, in the row's unit (module docstring);
    ``engines`` replaces the catalog's profile of an engine by name (to measure a mechanism
    on and off). A row's ``arrivals`` (``closed-loop`` for the NIM rows) set the plan's queue;
    measured, not shipped: ``poisson`` times every row's first token with the Poisson queue,
    ``layout`` predicts a row in its ``source_layout`` (expert parallel ``ep`` with attention
    data parallel); ``calibrated`` False: the uncorrected model (no vendor factor)."""
    name = case["engine"]
    engine: Engine | str = (engines or {}).get(name, name)
    family, load = case["family"], case["load"]
    if family.startswith("trtllm-perf-overview"):
        plan = case_plan(case, engine, None, layout, poisson, calibrated)
        largest = plan.largest_batch
        return float(
            case_plan(case, engine, largest, layout, poisson, calibrated).row()[
                "output_tokens_per_s"
            ]
        )
    if family in ("vllm-dashboard", "oci-vllm"):  # one static batch, end to end
        batch = int(str(load).removeprefix("static-"))
        return static_batch_latency(case_plan(case, engine, batch, calibrated=calibrated), batch)
    batch = int(load)
    if family == "amd-vllm":  # max num seqs: vLLM admits no more sequences than the KV cache holds
        batch = min(
            batch,
            int(case_plan(case, engine, None, layout, poisson, calibrated).memory["max_batch"]),
        )
    row = case_plan(case, engine, batch, layout, poisson, calibrated).row()
    if case["unit"] == "token/s":
        return float(row["output_tokens_per_s"])
    return float(row["ttft_ms"] if case["quantity"] == "time to first token" else row["tpot_ms"])


def serving_predictions(
    engines: Mapping[str, Engine] | None = None, **variant: bool
) -> list[dict[str, Any]]:
    """Every serving row with its prediction and error ``predicted / measured - 1``
    (``variant``: :func:`predict_serving_case`'s ``poisson``, ``layout`` and ``calibrated``),
    and the ``vendor`` of its GPU (whose factor corrects it)."""
    out = []
    for case in serving_cases():
        predicted = predict_serving_case(case, engines, **variant)
        measured = float(case["value"])
        vendor = case_plan(case, case["engine"], None).accelerator.vendor
        out.append(
            {
                "id": case["id"], "family": case["family"], "quantity": case["quantity"],
                "unit": case["unit"], "measured": measured, "predicted": predicted,
                "error": predicted / measured - 1, "engine": case["engine"], "vendor": vendor,
                "source": serving_sources()[case["source"]],
            }
        )  # fmt: skip
    return out


def validate_published_serving() -> PublishedValidation:
    """Every row of the published validation set (:func:`mlcost.published.validate_published`:
    training runs, hardware, energy reports) and the serving rows, one result (what ``mlcost
    validate --published`` prints)."""
    serving = tuple(
        Prediction(
            r["id"],
            r["family"],
            r["quantity"],
            r["unit"],
            r["measured"],
            r["predicted"],
            note=f"engine {r['engine']}",
        )
        for r in serving_predictions()
    )
    return PublishedValidation(rows=validate_published().rows + serving)


def latency_ratio(row: dict[str, Any]) -> float:
    """``measured / predicted`` time of a row: a latency's own ratio, a throughput's inverse
    (``predicted / measured`` tokens/s), so every row says how much longer the real run took."""
    if row["unit"] == "token/s":
        return float(row["predicted"]) / float(row["measured"])
    return float(row["measured"]) / float(row["predicted"])


def serving_band_from_rows(rows: list[dict[str, Any]], level: float = 0.8) -> dict[str, Any]:
    """The correction factor of each GPU vendor and the band of a serving latency, from the
    rows' uncorrected predictions (:func:`serving_predictions` with ``calibrated=False``):

    * ``calibration``: per vendor, the median of measured / predicted time over its rows
      (:func:`latency_ratio`, :func:`mlcost.uncertainty.calibration_factor`), and the pooled
      median of all rows (:data:`~mlcost.uncertainty.POOLED`, a vendor without rows);
    * the band: the :data:`~mlcost.uncertainty.BAND_TAIL` quantiles of the corrected ratios
      (:func:`mlcost.uncertainty.band_from_errors`), and its leave-one-family-out check: for
      each family, factors and band fitted on the other families' rows only
      (:func:`mlcost.uncertainty.held_out_bands`; a vendor left without rows takes the pooled
      factor), and the share of the family's rows inside. The plan multiplies the GPU's forward
      seconds by the factor, the check the whole time: the same where, as on these rows, the
      forwards are the time."""
    from mlcost.uncertainty import (
        BAND_TAIL,
        POOLED,
        band_from_errors,
        calibration_factor,
        corrected_ratios,
        held_out_bands,
    )

    ratios = np.asarray([latency_ratio(r) for r in rows])
    families = [str(r["family"]) for r in rows]
    vendors = np.asarray([str(r["vendor"]) for r in rows])

    def families_of(vendor: str) -> str:
        return ", ".join(
            dict.fromkeys(f for f, v in zip(families, vendors, strict=True) if v == vendor)
        )

    calibration = {
        vendor: {
            "factor": round(calibration_factor(ratios[vendors == vendor]), 6),
            "rows": int((vendors == vendor).sum()),
            "derivation": f"median of measured / predicted time over the "
            f"{int((vendors == vendor).sum())} published serving rows on {vendor} GPUs "
            f"({families_of(vendor)})",
        }
        for vendor in dict.fromkeys(vendors.tolist())
    }
    calibration[POOLED] = {
        "factor": round(calibration_factor(ratios), 6),
        "rows": int(ratios.size),
        "derivation": f"median of measured / predicted time over all {ratios.size} published "
        "serving rows, for a vendor without rows of its own",
    }
    corrected = corrected_ratios(ratios, vendors, np.ones(ratios.shape, dtype=bool))
    derivation = (
        f"{100 * BAND_TAIL:.0f}th-{100 * (1 - BAND_TAIL):.0f}th percentile of measured / "
        f"predicted time, each row corrected by its GPU vendor's factor, over the "
        f"{ratios.size} published serving rows "
        f"({', '.join(dict.fromkeys(families))}; mlcost/data/published_serving.yaml)"
    )
    band = band_from_errors(corrected - 1, derivation, level, tail=BAND_TAIL)
    held = {
        family: {"low": low, "high": high, "rows": int(inside.size), "inside": int(inside.sum())}
        for family, (low, high, inside) in held_out_bands(
            ratios, vendors, families, BAND_TAIL
        ).items()
    }
    inside_all = sum(entry["inside"] for entry in held.values())
    return {
        "level": band.level, "low": round(band.low, 6), "high": round(band.high, 6),
        "rows": band.rows, "derivation": band.derivation,
        "leave_one_family_out": held,
        "leave_one_family_out_coverage": round(inside_all / max(len(rows), 1), 4),
        "calibration": calibration,
    }  # fmt: skip


__all__ = [
    "SERVING_FAMILIES",
    "case_plan",
    "latency_ratio",
    "predict_serving_case",
    "serving_band_from_rows",
    "serving_cases",
    "serving_predictions",
    "serving_sources",
    "static_batch_latency",
    "validate_published_serving",
]
