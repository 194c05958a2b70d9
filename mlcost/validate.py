"""Predicted vs measured, before and after calibration.

For every successful measurement: GEMMs and STREAM kernels are single operators on the roofline
of :class:`mlcost.roofline.Ceilings` (``max(FLOPs / (peak·eta(size)), bytes / (bandwidth·eta_m))``
plus one launch); the launch benchmark is the launch overhead; the end-to-end step of the reference
GPT is :func:`mlcost.timing.step_time` of its spec. *Before* uses the datasheet ceilings with
the default efficiencies (for a CPU without a datasheet: the profile's peaks with the default,
uncalibrated efficiencies and no size curve); *after* uses the calibrated profile. The error is
``predicted / measured - 1``.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mlcost.bench.store import read_results_csv
from mlcost.layout import Layout
from mlcost.roofline import Ceilings
from mlcost.specs import Accelerator
from mlcost.timing import step_time
from mlcost.units import in_unit
from mlcost.workload import TrainingConfig

if TYPE_CHECKING:
    import pandas as pd


def _single_operator_seconds(
    flops: float, moved: float, ceilings: Ceilings, layout: str = "nn"
) -> float:
    peak = in_unit(ceilings.peak, "flop/s")
    efficiency = float(ceilings.gemm_efficiency(flops, layout=layout)) if flops else 1.0
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
    )


def predict(row: pd.Series, accelerator: Accelerator, *, calibrated: bool) -> float | None:
    """Predicted seconds for one measured row (``None`` when the family is not predicted)."""
    family, fmt = row["family"], str(row["format"])
    if fmt not in accelerator.formats:
        return None
    ceilings = _ceilings(accelerator, fmt, calibrated=calibrated)
    if family in ("gemm", "bmm", "memory"):
        layout = json.loads(row["params"]).get("layout", "nn")
        return _single_operator_seconds(float(row["flops"]), float(row["bytes"]), ceilings, layout)
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
        training = TrainingConfig(
            sequence_length=params["sequence_length"],
            precision="fp32",
            attention="flash",
            dropout=False,
            optimizer="adamw",
        )
        layout = Layout(micro_batch_size=params["batch"])
        return float(step_time(spec_of(config), training, ceilings, layout).seconds)
    return None


def validate(
    results_directory: str | Path, before: Accelerator, after: Accelerator | None = None
) -> pd.DataFrame:
    """One row per measurement: measured, predicted before and after, and the errors."""
    import pandas as pd

    results = read_results_csv(results_directory)
    rows = []
    for _, row in results[results["status"] == "ok"].iterrows():
        measured = float(row["median_s"])
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
    ax.legend(fontsize=8)
    return figure
