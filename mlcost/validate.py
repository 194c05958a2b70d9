"""Predicted vs measured, before and after calibration.

For every successful measurement: GEMMs and STREAM kernels are single operators on the roofline
of :class:`mlcost.roofline.Ceilings` (``max(FLOPs / (peak·eta(size)), bytes / (bandwidth·eta_m))``
plus one launch); the launch benchmark is the launch overhead; the end-to-end step of the reference
GPT is :func:`mlcost.timing.step_time` of its spec. *Before* uses the datasheet ceilings with
the default efficiencies (for a CPU without a datasheet: the profile's peaks with the default,
uncalibrated efficiencies and no size curve); *after* uses the calibrated profile. The error is
``predicted / measured - 1``; measured is what the fit used too, the fastest repetition
(:func:`mlcost.bench.store.measured_seconds`).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mlcost.bench.store import measured_seconds, read_results_csv, successful_rows
from mlcost.implementation import HOST_IMPLEMENTATION
from mlcost.layout import Layout
from mlcost.roofline import Ceilings, layout_unaligned
from mlcost.specs import Accelerator, TransformerSpec
from mlcost.timing import step_time
from mlcost.units import in_unit
from mlcost.workload import TrainingConfig
from mlcost.workload.config import Precision

if TYPE_CHECKING:
    import pandas as pd


def _single_operator_seconds(
    flops: float, moved: float, ceilings: Ceilings, layout: str = "nn", aligned: bool = True
) -> float:
    peak = in_unit(ceilings.peak, "flop/s")
    efficiency = float(ceilings.gemm_efficiency(flops, layout=layout)) if flops else 1.0
    if not aligned:  # a leading dimension not 16-byte aligned (Ceilings.unaligned_gemm)
        efficiency *= ceilings.unaligned_gemm[("nn", "nt", "tn").index(layout)]
    compute = flops / (peak * efficiency) if flops else 0.0
    memory = moved / (in_unit(ceilings.bandwidth, "B/s") * ceilings.memory_efficiency)
    return max(compute, memory) + in_unit(ceilings.launch_overhead, "s")


def _ceilings(accelerator: Accelerator, fmt: str, *, calibrated: bool) -> Ceilings:
    ceilings = Ceilings.from_accelerator(accelerator, fmt)
    if calibrated:
        return ceilings
    # The uncalibrated view of the same device: default efficiencies, no size curve.
    defaults = Ceilings(
        name="",
        peak=ceilings.peak,
        vector_peak=ceilings.vector_peak,
        bandwidth=ceilings.bandwidth,
        compute_units=ceilings.compute_units,
    )
    return dataclasses.replace(
        ceilings,
        gemm_curve=(),
        wave_quantization=defaults.wave_quantization,
        compute_efficiency=defaults.compute_efficiency,
        memory_efficiency=defaults.memory_efficiency,
        launch_overhead=defaults.launch_overhead,
        first_touch_bandwidth=defaults.first_touch_bandwidth,
    )


def bench_training(sequence_length: int, precision: Precision) -> TrainingConfig:
    """How the benchmarks train: a fused ``scaled_dot_product_attention`` kernel, no dropout,
    AdamW, at ``precision``."""
    return TrainingConfig(
        sequence_length=sequence_length,
        precision=precision,
        attention="flash",
        dropout=False,
        optimizer="adamw",
    )


def predict(row: pd.Series, accelerator: Accelerator, *, calibrated: bool) -> float | None:
    """Predicted seconds for one measured row (``None`` when the family is not predicted)."""
    family, fmt = row["family"], str(row["format"])
    if fmt not in accelerator.formats:
        return None
    ceilings = _ceilings(accelerator, fmt, calibrated=calibrated)
    if family in ("gemm", "bmm", "memory"):
        params = json.loads(row["params"])
        layout = params.get("layout", "nn")
        aligned = family != "gemm" or not layout_unaligned(
            params["m"], params["n"], params["k"], layout, ceilings.alignment_elements
        )
        return _single_operator_seconds(
            float(row["flops"]), float(row["bytes"]), ceilings, layout, aligned
        )
    if family == "launch":
        return float(in_unit(ceilings.launch_overhead, "s"))
    if family == "e2e":
        from mlcost.bench.model import GPTConfig, spec_of

        params = json.loads(row["params"])
        config = GPTConfig(
            vocab_size=params["vocab_size"],
            sequence_length=params["sequence_length"],
            layers=params["layers"],
            hidden=params["hidden"],
            heads=params["heads"],
        )
        training = bench_training(params["sequence_length"], "fp32")
        layout = Layout(micro_batch_size=params["batch"])
        # the bench's loop on a CPU is eager PyTorch there (HOST_IMPLEMENTATION); on a GPU the
        # default implementation, as before
        software = HOST_IMPLEMENTATION if str(row["device"]).startswith("cpu") else None
        step = step_time(spec_of(config), training, ceilings, layout, implementation=software)
        return float(step.seconds)
    return None


def validate(
    results_directory: str | Path, before: Accelerator, after: Accelerator | None = None
) -> pd.DataFrame:
    """One row per measurement: measured, predicted before and after, and the errors."""
    import pandas as pd

    results = read_results_csv(results_directory)
    successful_rows(results, results_directory)
    results = results.assign(seconds=measured_seconds(results))
    rows = []
    for _, row in results[results["status"] == "ok"].iterrows():
        measured = float(row["seconds"])
        first = predict(row, before, calibrated=False)
        if first is None:
            continue
        second = predict(row, after, calibrated=True) if after is not None else None
        rows.append(
            {
                "family": row["family"],
                "name": row["name"],
                "format": row["format"],
                "measured_s": measured,
                "predicted_before_s": first,
                "error_before": first / measured - 1,
                "predicted_after_s": second,
                "error_after": (second / measured - 1) if second is not None else np.nan,
            }
        )
    return pd.DataFrame(rows)


def summary(report: pd.DataFrame) -> pd.DataFrame:
    """Median and worst absolute error per benchmark family, before and after."""
    import pandas as pd

    def stats(column: str) -> pd.DataFrame:
        grouped = report.assign(absolute=report[column].abs()).groupby("family")["absolute"]
        return pd.DataFrame(
            {f"median |{column}|": grouped.median(), f"worst |{column}|": grouped.max()}
        )

    return pd.concat([stats("error_before"), stats("error_after")], axis=1)


def plot(report: pd.DataFrame, ax: Any = None) -> Any:
    """Predicted vs measured seconds, log-log, before and after."""
    import matplotlib.pyplot as plt

    figure, ax = (ax.figure, ax) if ax is not None else plt.subplots(figsize=(5, 5))
    ax.loglog(
        report["measured_s"],
        report["predicted_before_s"],
        "o",
        alpha=0.5,
        label="datasheet / uncalibrated",
    )
    if report["predicted_after_s"].notna().any():
        ax.loglog(report["measured_s"], report["predicted_after_s"], "x", label="calibrated")
    low = float(min(report["measured_s"].min(), report["predicted_before_s"].min()))
    high = float(max(report["measured_s"].max(), report["predicted_before_s"].max()))
    ax.plot([low, high], [low, high], "k--", lw=0.8)
    ax.set_xlabel("measured (s)")
    ax.set_ylabel("predicted (s)")
    ax.set_title("Benchmarks: predicted against measured time (dashed: equal)", fontsize=10)
    ax.legend(fontsize=8)
    return figure


#: The memory terms that ``torch.cuda.max_memory_allocated`` does not count: the CUDA context
#: lives outside PyTorch's caching allocator, and fragmentation is memory the allocator holds
#: (``max_memory_reserved``) but no tensor occupies.
UNALLOCATED_TERMS = ("CUDA context", "allocator fragmentation")


def training_spec(row: dict[str, Any]) -> TransformerSpec:
    """The model spec of one measured training step of ``scripts/train_steps.py``: the
    reference GPT's own spec (:func:`mlcost.bench.model.spec_of`), or a Hugging Face config
    dict through :func:`mlcost.specs.from_hf_config`."""
    from mlcost.bench.model import GPTConfig, spec_of
    from mlcost.specs import from_hf_config

    config = row["config"]
    if row.get("kind", "bench") == "bench":  # scripts/profile_training.py builds the reference GPT
        return spec_of(GPTConfig(**config))
    return from_hf_config(config, name=row["name"])


def training_steps(
    results: str | Path,
    gpus: dict[str, Accelerator | str],
    *,
    implementation: str = "ddp-eager",
) -> pd.DataFrame:
    """Real training steps (``scripts/train_steps.py``'s JSON: BF16 autocast, FP32 parameters,
    ``torch.optim.AdamW``, one GPU) against mlcost's predictions, one row per measured step.

    Each step is predicted as ``precision="bf16-mixed"``, ``attention="flash"`` (a fused
    ``scaled_dot_product_attention`` kernel), no dropout, AdamW, the measured micro-batch and
    recomputation, run by ``implementation``; its time by :func:`mlcost.timing.step_time` on
    each of ``gpus`` (label -> spec or name: the datasheet, a measured profile); its memory by
    :func:`mlcost.memory.memory_breakdown` less :data:`UNALLOCATED_TERMS`, the bytes
    ``torch.cuda.max_memory_allocated`` counts. Errors are ``predicted / measured - 1``."""
    import pandas as pd

    from mlcost.memory import memory_breakdown

    data = json.loads(Path(results).read_text(encoding="utf-8"))
    rows = []
    for row in data["rows"]:
        if row.get("status", "ok") != "ok":
            continue
        spec = training_spec(row)
        config = bench_training(row["sequence_length"], "bf16-mixed")
        layout = Layout(micro_batch_size=row["micro_batch_size"], recompute=row["recompute"])
        measured_s = float(row["step_median_s"])
        out: dict[str, Any] = {
            "model": row["name"],
            "micro_batch": row["micro_batch_size"],
            "recompute": row["recompute"],
            "measured_ms": measured_s * 1e3,
        }
        first = None
        for label, gpu in gpus.items():
            seconds = float(
                step_time(spec, config, gpu, layout, implementation=implementation).seconds
            )
            out[f"predicted_ms ({label})"] = seconds * 1e3
            out[f"time error ({label})"] = seconds / measured_s - 1
            first = first or gpu
        breakdown = memory_breakdown(spec, config, first, layout, implementation=implementation)
        allocated = in_unit(breakdown.total, "B") - sum(
            in_unit(breakdown.term(term), "B") for term in UNALLOCATED_TERMS
        )
        peak = float(row["peak_allocated_bytes"])
        out.update(
            {
                "measured_peak_gib": peak / 2**30,
                "predicted_peak_gib": allocated / 2**30,
                "memory error": allocated / peak - 1,
                "measured_power_w": row.get("mean_power_w"),
            }
        )
        rows.append(out)
    return pd.DataFrame(rows)
