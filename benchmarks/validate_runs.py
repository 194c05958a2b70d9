"""mlcost against published measurements: predicts every row of the shipped validation set
(``mlcost/data/published.yaml``) with one configuration per family, prints every row and the
median |error| per family, and draws the errors.

Run: ``.venv/bin/python benchmarks/validate_runs.py`` (add ``--write`` to refresh
``docs/validation.md``'s figure ``docs/validation.png``, its summary and row tables (between
their ``<!-- ... -->`` markers) and the step-time band in ``mlcost/data/uncertainty.json``,
which the tests then check against a fresh run). ``--implied`` also prints, for each
Megatron-Core weak-scaling row, the BF16 GEMM efficiency that would reproduce its measurement
with every other part of the model unchanged (a diagnostic: nothing is fitted or shipped).
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")

from mlcost.io import write_bytes_atomically, write_text_atomically
from mlcost.published import (
    TRAINING_FAMILIES,
    PublishedValidation,
    training_band,
    training_calibrations,
    training_ratios,
    validate_published,
)
from mlcost.uncertainty import Band, Calibration

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    start = time.perf_counter()
    result = validate_published()
    elapsed = time.perf_counter() - start
    frame = result.frame
    shown = frame[["id", "family", "measured", "predicted", "unit", "error", "anchor"]]
    with np.printoptions(precision=4):
        print(shown.to_string(index=False, float_format=lambda v: f"{v:,.4g}"))
    print()
    for figure in result.figures():
        print(f"{figure.name}: {figure.text()} ({figure.substituted})")
    training = np.concatenate([result.errors(f) for f in TRAINING_FAMILIES])
    print(
        f"training-run rows: median |error| {100 * np.median(np.abs(training)):.1f} %, "
        f"worst {100 * np.max(np.abs(training)):.1f} %, "
        f"{int(np.sum(np.abs(training) <= 0.25))} of {training.size} within 25 %"
    )
    ratios, _, _ = training_ratios(result)
    print(
        f"uncorrected: median |error| {100 * np.median(np.abs(ratios - 1)):.1f} %, worst "
        f"{100 * np.max(np.abs(ratios - 1)):.1f} %, {int(np.sum(ratios > 1))} of {ratios.size} "
        "too fast"
    )
    calibrations = training_calibrations(result)
    for found in calibrations.values():
        print(f"calibration of {found.profile}: x{found.factor:.4f} ({found.rows} rows)")
    band = training_band(result)
    print(
        f"step-time band ({band.level:.0%}): x{band.low:.3f} to x{band.high:.3f}; "
        f"leave-one-family-out coverage {band.coverage:.0%}"
    )
    print(f"predicted {len(frame)} rows in {elapsed:.2f} s")
    if "--write" in sys.argv:
        write(result, band, calibrations)
    if "--implied" in sys.argv:
        implied_gemm_efficiencies()


def implied_gemm_efficiencies(gpu: str = "h100-sxm5-80gb") -> None:
    """Per Megatron-Core weak-scaling row, the BF16 GEMM efficiency (of the peak; the catalog's
    is its MAMF share) at which the predicted TFLOP/s per GPU equals the measured one, found by
    bisection with the rest of the model as it is (see the module docstring)."""
    import mlcost
    from mlcost.published import megatron_step, published_cases
    from mlcost.systems import system

    base = mlcost.accelerator(gpu)
    measured = base.measured
    if measured is None:
        return
    (point,) = measured.gemm_efficiency["bf16"]

    def rate(conditions: dict, efficiency: float) -> float:
        curve = {
            **measured.gemm_efficiency,
            "bf16": (point.model_copy(update={"efficiency": efficiency}),),
        }
        scaled = base.model_copy(
            update={"measured": measured.model_copy(update={"gemm_efficiency": curve})}
        )
        c = conditions
        gpt = (c["hidden"], c["layers"], c["heads"], c["vocab"], c["seq"])
        target = system("dgx-h100", accelerator=scaled)
        return megatron_step(gpt, c["global_batch"], c["gpus"], c["TP"], c["PP"], target)[2] / 1e12

    print(f"\nimplied BF16 GEMM efficiency per Megatron-Core row ({gpu}: MAMF {point.efficiency})")
    for case in published_cases():
        if not case["id"].startswith("run.megatron_h100.") or "strong" in case["id"]:
            continue
        c = case["conditions"]
        low, high = 0.2, point.efficiency
        if rate(c, high) < case["value"]:
            print(f"{case['id']:28s} h={c['hidden']:>5} under-predicted even at {high}")
            continue
        for _ in range(30):
            middle = (low + high) / 2
            low, high = (low, middle) if rate(c, middle) > case["value"] else (middle, high)
        print(
            f"{case['id']:28s} h={c['hidden']:>5} {middle:.3f} (x{point.efficiency / middle:.2f})"
        )


FAMILY_TITLES = {
    "megatron-core-h100": "Megatron-Core on H100 (Megatron-LM README)",
    "llm-foundry": "MosaicML llm-foundry (MPT benchmarks)",
    "korthikanti-a100": "Megatron-LM on A100 (Korthikanti et al. 2022, Table 5)",
}


def _percent(value: float) -> str:
    return f"{100 * value:+.1f} %"


def _summary_line(title: str, errors: np.ndarray, calculon: np.ndarray | None = None) -> str:
    if errors.size == 0:
        return f"| {title} | 0 | - | - | - | - | - |"
    worst = errors[np.argmax(np.abs(errors))]
    beside = "-" if calculon is None else f"{100 * np.median(np.abs(calculon)):.1f} %"
    return (
        f"| {title} | {errors.size} | {100 * np.median(np.abs(errors)):.1f} % | "
        f"{_percent(worst)} | {int(np.sum(errors > 0))} of {errors.size} | "
        f"{int(np.sum(np.abs(errors) <= 0.20))} of {errors.size} | {beside} |"
    )


def _calculon(result: PublishedValidation, family: str) -> np.ndarray:
    """Calculon's errors on a family's rows, as throughput errors (+: too fast)."""
    out = []
    for r in result.rows:
        if r.family == family and r.calculon is not None and r.measured:
            out.append(r.measured / r.calculon - 1 if r.time else r.calculon / r.measured - 1)
    return np.asarray(out)


def summary_table(result: PublishedValidation) -> str:
    """The summary table of docs/validation.md: the expected values (each implementation's
    calibration applied), the uncorrected roofline model, Calculon beside them."""
    lines = [
        "| family | rows | median \\|error\\| | worst | + (too fast; memory: over) "
        "| within 20 % | Calculon |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for family in TRAINING_FAMILIES:
        calculon = _calculon(result, family)
        lines.append(
            _summary_line(
                FAMILY_TITLES[family], result.errors(family), calculon if calculon.size else None
            )
        )
    training = np.concatenate([result.errors(f) for f in TRAINING_FAMILIES])
    lines.append(_summary_line("all training runs", training))
    ratios, _, _ = training_ratios(result)
    lines.append(_summary_line("all training runs, uncorrected", ratios - 1))
    memory = result.errors("korthikanti-memory")
    lines.append(
        _summary_line(
            "memory per GPU (Korthikanti et al. 2022, Figure 1)", memory,
            _calculon(result, "korthikanti-memory"),
        )
    )  # fmt: skip
    lines.append(_summary_line("hardware, independent rows", result.errors("hardware")))
    anchors = result.errors("hardware", anchors=True).size - result.errors("hardware").size
    lines.append(f"| hardware, anchors (catalog inputs) | {anchors} | - | - | - | - | - |")
    return "\n".join(lines)


def rows_table(result: PublishedValidation) -> str:
    """Every row of the validation set, as docs/validation.md lists them (training rows: the
    expected value, and the uncorrected roofline model's error; Calculon's where it has one)."""
    lines = [
        "| row | family | measured | predicted | unit | error | uncorrected | Calculon | note |",
        "|---|---|---:|---:|---|---:|---:|---:|---|",
    ]
    for r in result.rows:
        predicted = "-" if r.predicted is None else f"{r.predicted:,.4g}"
        measured = f"{r.measured:,.4g}" if isinstance(r.measured, float) and r.measured else "-"
        error = (
            "-" if r.error is None else f"{100 * r.error:+.1f}%" + (" (anchor)" if r.anchor else "")
        )
        raw = "-" if r.uncorrected is None else f"{100 * (r.uncorrected / r.measured - 1):+.1f}%"
        calculon = (
            "-"
            if r.calculon_error is None
            else f"{r.calculon:,.4g} ({100 * r.calculon_error:+.1f}%)"
        )
        lines.append(
            f"| `{r.id}` | {r.family} | {measured} | {predicted} | {r.unit} | {error} | {raw} | "
            f"{calculon} | {r.note} |"
        )
    return "\n".join(lines)


def _between(text: str, marker: str, body: str) -> str:
    pattern = re.compile(rf"(<!-- {marker}:start -->\n)(?:.*?\n)?(<!-- {marker}:end -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"docs/validation.md: no <!-- {marker}:start/end --> markers")
    return pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)


def write(result: PublishedValidation, band: Band, calibrations: dict[str, Calibration]) -> None:
    """The figure and tables of docs/validation.md and the shipped band."""
    import io

    doc = ROOT / "docs" / "validation.md"
    text = _between(doc.read_text(), "summary", summary_table(result))
    write_text_atomically(doc, _between(text, "rows", rows_table(result)))

    buffer = io.BytesIO()
    result.plot().savefig(buffer, format="png", dpi=110)
    write_bytes_atomically(ROOT / "docs" / "validation.png", buffer.getvalue())
    data = {
        "written_by": "benchmarks/validate_runs.py --write (see mlcost.uncertainty)",
        "training_step_time": {
            "level": band.level,
            "low": round(band.low, 6),
            "high": round(band.high, 6),
            "rows": band.rows,
            "coverage": None if band.coverage is None else round(band.coverage, 6),
            "derivation": band.derivation,
        },
        "calibration": {
            name: {"factor": round(c.factor, 6), "rows": c.rows, "derivation": c.derivation}
            for name, c in calibrations.items()
        },
    }
    write_text_atomically(
        ROOT / "mlcost" / "data" / "uncertainty.json", json.dumps(data, indent=2) + "\n"
    )
    print("wrote docs/validation.png, docs/validation.md's tables and mlcost/data/uncertainty.json")


if __name__ == "__main__":
    main()
