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
    validate_published,
)
from mlcost.uncertainty import Band

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
    band = training_band(result)
    print(f"step-time band ({band.level:.0%}): x{band.low:.3f} to x{band.high:.3f}")
    print(f"predicted {len(frame)} rows in {elapsed:.2f} s")
    if "--write" in sys.argv:
        write(result, band)
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
}


def _percent(value: float) -> str:
    return f"{100 * value:+.1f} %"


def summary_table(result: PublishedValidation) -> str:
    """The summary table of docs/validation.md."""
    lines = [
        "| family | rows | median \\|error\\| | worst | within 25 % |",
        "|---|---:|---:|---:|---:|",
    ]
    groups = [(FAMILY_TITLES[f], result.errors(f)) for f in TRAINING_FAMILIES]
    training = np.concatenate([e for _, e in groups])
    groups += [
        ("all training runs", training),
        ("hardware, independent rows", result.errors("hardware")),
    ]
    for title, errors in groups:
        worst = errors[np.argmax(np.abs(errors))]
        lines.append(
            f"| {title} | {errors.size} | {100 * np.median(np.abs(errors)):.1f} % | "
            f"{_percent(worst)} | {int(np.sum(np.abs(errors) <= 0.25))} of {errors.size} |"
        )
    anchors = result.errors("hardware", anchors=True).size - result.errors("hardware").size
    lines.append(f"| hardware, anchors (catalog inputs) | {anchors} | - | - | - |")
    return "\n".join(lines)


def rows_table(result: PublishedValidation) -> str:
    """Every row of the validation set, as docs/validation.md lists them."""
    lines = [
        "| row | family | measured | predicted | unit | error | note |",
        "|---|---|---:|---:|---|---:|---|",
    ]
    for r in result.rows:
        predicted = "-" if r.predicted is None else f"{r.predicted:,.4g}"
        measured = f"{r.measured:,.4g}" if isinstance(r.measured, float) and r.measured else "-"
        error = (
            "-" if r.error is None else f"{100 * r.error:+.1f}%" + (" (anchor)" if r.anchor else "")
        )
        lines.append(
            f"| `{r.id}` | {r.family} | {measured} | {predicted} | {r.unit} | {error} | {r.note} |"
        )
    return "\n".join(lines)


def _between(text: str, marker: str, body: str) -> str:
    pattern = re.compile(rf"(<!-- {marker}:start -->\n)(?:.*?\n)?(<!-- {marker}:end -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"docs/validation.md: no <!-- {marker}:start/end --> markers")
    return pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)


def write(result: PublishedValidation, band: Band) -> None:
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
            "derivation": band.derivation,
        },
    }
    write_text_atomically(
        ROOT / "mlcost" / "data" / "uncertainty.json", json.dumps(data, indent=2) + "\n"
    )
    print("wrote docs/validation.png, docs/validation.md's tables and mlcost/data/uncertainty.json")


if __name__ == "__main__":
    main()
