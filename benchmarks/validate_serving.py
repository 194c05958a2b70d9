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

from mlcost.io import write_text_atomically
from mlcost.serving.published import (
    SERVING_FAMILIES,
    serving_band_from_rows,
    serving_predictions,
    serving_sources,
)
from mlcost.specs import Engine, default_catalog


def summary(label: str, rows: list[dict[str, object]]) -> str:
    parts = []
    for family in SERVING_FAMILIES:
        errors = [abs(float(r["error"])) for r in rows if r["family"] == family]  # type: ignore[arg-type]
        if errors:
            parts.append(f"{family} {statistics.median(errors):.1%} (worst {max(errors):.1%})")
    every = [abs(float(r["error"])) for r in rows]  # type: ignore[arg-type]
    return (f"{label}: {len(rows)} rows, median |error| {statistics.median(every):.1%}, worst "
            f"{max(every):.1%}; " + "; ".join(parts))  # fmt: skip


def main() -> None:
    rows = serving_predictions()
    width = max(len(str(r["id"])) for r in rows)
    print(f"{'row':<{width}}  {'published':>10}  {'mlcost':>10}  {'error':>7}  unit")
    for r in rows:
        print(f"{r['id']:<{width}}  {r['measured']:>10.2f}  {r['predicted']:>10.2f}  "
              f"{r['error']:>+7.1%}  {r['unit']}")  # fmt: skip
    print()
    print(summary("shipped", rows))
    catalog = default_catalog()
    engines = {name: catalog.engine(name) for name in ("vllm", "tensorrt-llm")}

    def without(**update: object) -> dict[str, Engine]:
        return {name: e.model_copy(update=update) for name, e in engines.items()}

    print(summary("each prompt prefilled alone (no batched/chunked prefill)",
                  serving_predictions(without(prefill_tokens=None))))  # fmt: skip
    print(summary("no per-step overhead (vLLM's 1.4 ms off)",
                  serving_predictions(without(step_overhead=None))))  # fmt: skip
    print(summary("one launch per expert (no grouped expert GEMMs)",
                  serving_predictions(without(grouped_expert_gemm=False))))  # fmt: skip
    band = serving_band_from_rows(rows)
    print(f"band (80%): measured / predicted time in [{band['low']:.3f}, {band['high']:.3f}] over "
          f"{band['rows']} rows; leave one family out, "
          f"{band['leave_one_family_out_coverage']:.0%} of the rows fall inside the band of the "
          "others:")  # fmt: skip
    for family, held in band["leave_one_family_out"].items():
        print(f"  {family}: [{held['low']:.3f}, {held['high']:.3f}], {held['inside']} of "
              f"{held['rows']} inside")  # fmt: skip
    if "--write" in sys.argv:
        path = Path(__file__).resolve().parents[1] / "mlcost" / "data" / "serving_band.json"
        data = {"written_by": "benchmarks/validate_serving.py --write (see mlcost.serving.band)",
                "serving_latency": band}  # fmt: skip
        write_text_atomically(path, json.dumps(data, indent=2) + "\n")
        print(f"wrote {path}")
    print("sources:")
    for source in serving_sources().values():
        print(f"  {source}")


if __name__ == "__main__":
    main()
