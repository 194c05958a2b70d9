"""mlcost's serving model against published engine benchmarks: prints every row of
``mlcost/data/published_serving.yaml`` (what was measured, where, the published figure, mlcost's
prediction and the error), the median |error| per family, and each serving mechanism of issue 63
switched off in turn (its effect measured on the same rows). Not a test: the published figures
come from other software on other machines.

Run: ``.venv/bin/python benchmarks/validate_serving.py``

The rows, their sources and conventions: :mod:`mlcost.serving.published` and the YAML file.
"""

from __future__ import annotations

import statistics

from mlcost.serving.published import SERVING_FAMILIES, serving_predictions, serving_sources
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
    print("sources:")
    for source in serving_sources().values():
        print(f"  {source}")


if __name__ == "__main__":
    main()
