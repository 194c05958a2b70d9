"""mlcost's serving model against published engine benchmarks: prints every row of
``mlcost/data/published_serving.yaml`` (what was measured, where, the published figure, mlcost's
prediction and the error), the median |error| per family, and each serving mechanism of issue 63
switched off in turn (its effect measured on the same rows). Not a test: the published figures
come from other software on other machines.

Run: ``.venv/bin/python benchmarks/validate_serving.py`` (``--write``: also write the serving
latency band, with its leave-one-family-out check, to ``mlcost/data/serving_band.json``).

The rows, their sources and conventions: :mod:`mlcost.serving.published` and the YAML file.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import numpy as np

from mlcost.io import write_text_atomically
from mlcost.serving.published import (
    SERVING_FAMILIES,
    case_plan,
    latency_ratio,
    predict_serving_case,
    serving_band_from_rows,
    serving_cases,
    serving_predictions,
    serving_sources,
)
from mlcost.specs import Engine, default_catalog
from mlcost.uncertainty import corrected_ratios
from mlcost.units import Q_


def summary(label: str, rows: list[dict[str, object]]) -> str:
    parts = []
    for family in SERVING_FAMILIES:
        errors = [abs(float(r["error"])) for r in rows if r["family"] == family]  # type: ignore[arg-type]
        if errors:
            parts.append(f"{family} {statistics.median(errors):.1%} (worst {max(errors):.1%})")
    every = [abs(float(r["error"])) for r in rows]  # type: ignore[arg-type]
    return (f"{label}: {len(rows)} rows, median |error| {statistics.median(every):.1%}, worst "
            f"{max(every):.1%}; " + "; ".join(parts))  # fmt: skip


def split_summary(rows: list[dict[str, object]]) -> str:
    """Median and worst |error| of the dense and the MoE rows apart, and per quantity."""
    groups: dict[str, list[float]] = {}
    for r in rows:
        error = abs(float(r["error"]))  # type: ignore[arg-type]
        moe = str(r["family"]).endswith("-moe")
        groups.setdefault("MoE" if moe else "dense", []).append(error)
        groups.setdefault(str(r["quantity"]), []).append(error)
    return "; ".join(
        f"{name} {statistics.median(errors):.1%} (worst {max(errors):.1%}, {len(errors)} rows)"
        for name, errors in groups.items()
    )


def step_overhead_fit(engine: str = "vllm") -> tuple[list[tuple[str, float]], float]:
    """The per-step host cost of ``engine`` refitted from its published rows: per row, the
    ``step_overhead`` (ms) at which mlcost's prediction equals the published figure (bisection
    over 0-10 ms), and their median: one value for the engine, never one per row. The rows on
    AMD GPUs (``amd-vllm``, ``oci-vllm``) are left out: they check how the profile, fitted on
    NVIDIA GPUs, transfers to AMD's (their errors stay in the table), and a fit on them would
    tune to them."""

    def on_amd(case: dict[str, object]) -> bool:
        return case_plan(case, engine, None).accelerator.vendor == "AMD"

    profile = default_catalog().engine(engine)
    per_row = []
    for case in serving_cases():
        if case["engine"] != engine or on_amd(case):
            continue

        def error(ms: float, case: dict[str, object] = case) -> float:
            step = Q_(ms, "ms") if ms > 0 else None
            changed = {engine: profile.model_copy(update={"step_overhead": step})}
            return predict_serving_case(case, changed, calibrated=False) / float(case["value"]) - 1  # type: ignore[arg-type]

        low, high = 0.0, 10.0
        rising = error(high) > error(low)
        for _ in range(40):
            middle = (low + high) / 2
            if (error(middle) < 0) == rising:
                low = middle
            else:
                high = middle
        per_row.append((str(case["id"]), (low + high) / 2))
    return per_row, statistics.median(ms for _, ms in per_row)


def request_overhead_fit(engine: str = "tensorrt-llm") -> tuple[list[tuple[str, float]], float]:
    """The front end's time per request of ``engine`` refitted from its published rows: per
    single-client closed-loop TTFT row, the milliseconds by which the published TTFT exceeds
    mlcost's prediction without a front end (one client queues behind nobody, so its TTFT is
    the prefill plus the front end, and the excess is the front end), and their median: one
    value for the engine, never one per row."""
    profile = default_catalog().engine(engine)
    without = {engine: profile.model_copy(update={"request_overhead": None})}
    per_row = [
        (
            str(case["id"]),
            float(case["value"]) - predict_serving_case(case, without, calibrated=False),
        )
        for case in serving_cases()
        if case["engine"] == engine and case.get("arrivals") == "closed-loop"
        and case["quantity"] == "time to first token" and int(case["load"]) == 1
    ]  # fmt: skip
    return per_row, statistics.median(ms for _, ms in per_row)


def main() -> None:
    rows = serving_predictions()
    width = max(len(str(r["id"])) for r in rows)
    print(f"{'row':<{width}}  {'published':>10}  {'mlcost':>10}  {'error':>7}  unit")
    for r in rows:
        print(f"{r['id']:<{width}}  {r['measured']:>10.2f}  {r['predicted']:>10.2f}  "
              f"{r['error']:>+7.1%}  {r['unit']}")  # fmt: skip
    print()
    print(summary("shipped", rows))
    print(f"apart: {split_summary(rows)}")
    amd = [r for r in rows if r["family"] == "amd-vllm"]
    if amd:  # the table's "Throughput (tokens/s)" read as input + output instead (YAML conventions)
        cases = {str(c["id"]): c for c in serving_cases()}
        other = []
        for r in amd:
            case = cases[str(r["id"])]
            share = (int(case["prompt"]) + int(case["output"])) / int(case["output"])
            other.append(f"{float(r['predicted']) * share / float(r['measured']) - 1:+.1%}")
        print(f"amd-vllm read as input + output tokens/s instead: {', '.join(other)}")
    catalog = default_catalog()
    engines = {name: catalog.engine(name) for name in ("vllm", "tensorrt-llm")}

    def without(**update: object) -> dict[str, Engine]:
        return {name: e.model_copy(update=update) for name, e in engines.items()}

    print(summary("each prompt prefilled alone (no batched/chunked prefill)",
                  serving_predictions(without(prefill_tokens=None))))  # fmt: skip
    print(summary("no per-step overhead (vLLM's step_overhead off)",
                  serving_predictions(without(step_overhead=None))))  # fmt: skip
    no_frontend = serving_predictions(without(request_overhead=None))
    print(summary("no front end per request (TensorRT-LLM's request_overhead off)", no_frontend))
    print(f"  apart: {split_summary(no_frontend)}")
    print(summary("one launch per expert (no grouped expert GEMMs)",
                  serving_predictions(without(grouped_expert_gemm=False))))  # fmt: skip
    bf16_attention = serving_predictions(without(fp8_attention=False))
    print(summary("attention in BF16 under an FP8 KV cache (TensorRT-LLM's FP8 context FMHA off)",
                  bf16_attention))  # fmt: skip
    print(f"  apart: {split_summary(bf16_attention)}")
    poisson = serving_predictions(poisson=True)
    print(summary("the closed-loop rows' first token on the Poisson (M/D/1) queue instead of the "
                  "closed loop's mean value analysis", poisson))  # fmt: skip
    print(f"  apart: {split_summary(poisson)}")
    for r in poisson:
        if r["id"].endswith(".ttft"):
            print(f"  {r['id']}: {r['predicted']:.1f} ms ({r['error']:+.1%})")
    layout = serving_predictions(layout=True)
    print(summary("MoE rows in their source layout (ep 8, attention data parallel), not shipped",
                  layout))  # fmt: skip
    for r in layout:
        if r["family"].endswith("-moe"):
            print(f"  {r['id']}: {r['predicted']:.0f} token/s ({r['error']:+.1%})")
    per_row, median = step_overhead_fit("vllm")
    print("vLLM step overhead refitted (the per-step time at which each of its rows is met; "
          f"the profile carries the median): {median:.2f} ms from "
          + ", ".join(f"{row} {ms:.2f} ms" for row, ms in per_row))  # fmt: skip
    per_row, median = request_overhead_fit("tensorrt-llm")
    print("TensorRT-LLM front end refitted (each single-client TTFT row's excess over mlcost "
          f"without it; the profile carries the median): {median:.2f} ms from "
          + ", ".join(f"{row} {ms:.2f} ms" for row, ms in per_row))  # fmt: skip
    # The band and the vendors' factors come from the uncorrected predictions.
    uncorrected = serving_predictions(calibrated=False)
    print(summary("uncorrected (no vendor factor)", uncorrected))
    print(f"  apart: {split_summary(uncorrected)}")
    band = serving_band_from_rows(uncorrected)
    for vendor, entry in band["calibration"].items():
        print(f"factor {vendor}: x{entry['factor']:.3f} ({entry['derivation']})")
    # The front end is fitted to the nim rows only: with that family left out nothing is left
    # to fit it, so its rows are checked at their prediction without it (0 ms), corrected by
    # the factors fitted without the family.
    no_frontend_raw = serving_predictions(without(request_overhead=None), calibrated=False)
    honest = [r if r["family"] != "nim" else n
              for r, n in zip(uncorrected, no_frontend_raw, strict=True)]  # fmt: skip
    nim = np.asarray([r["family"] == "nim" for r in honest])
    corrected = corrected_ratios([latency_ratio(r) for r in honest],
                                 [r["vendor"] for r in honest], ~nim)  # fmt: skip
    held = band["leave_one_family_out"]["nim"]
    inside = int(np.sum((corrected[nim] >= held["low"]) & (corrected[nim] <= held["high"])))
    print(
        f"  nim left out with the front end fitted without it (0 ms): {inside} of "
        f"{held['rows']} inside [{held['low']:.3f}, {held['high']:.3f}]"
    )
    print(f"band (80%): measured / predicted time in [{band['low']:.3f}, {band['high']:.3f}] over "
          f"{band['rows']} rows; leave one family out, "
          f"{band['leave_one_family_out_coverage']:.0%} of the rows fall inside the band of the "
          "others:")  # fmt: skip
    for family, held in band["leave_one_family_out"].items():
        print(f"  {family}: [{held['low']:.3f}, {held['high']:.3f}], {held['inside']} of "
              f"{held['rows']} inside")  # fmt: skip
    if "--write" in sys.argv:
        path = Path(__file__).resolve().parents[1] / "mlcost" / "data" / "serving_band.json"
        calibration = band.pop("calibration")
        data = {"written_by": "benchmarks/validate_serving.py --write (see mlcost.serving.band)",
                "serving_latency": band, "calibration": calibration}  # fmt: skip
        write_text_atomically(path, json.dumps(data, indent=2) + "\n")
        print(f"wrote {path}")
    print("sources:")
    for source in serving_sources().values():
        print(f"  {source}")


if __name__ == "__main__":
    main()
