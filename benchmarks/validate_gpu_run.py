"""Predictions against one GPU measurement run (``scripts/measure_gpu.sh``), every row printed.

    .venv/bin/python benchmarks/validate_gpu_run.py [benchmarks/data/h200-2026-11-26]
        [--datasheet h200-sxm-141gb] [--profile h200-sxm-141gb-measured]

Prints, as Markdown tables (what docs/benchmarks.md shows):

1. ``mlcost validate``'s error per benchmark family, with the datasheet and the measured profile,
   and the GEMM rows' median error per format;
2. the real training steps (``train_steps.json``): step time and peak allocated memory, measured
   and predicted (:func:`mlcost.validate.training_steps`);
3. power: idle, and the mean over each configuration's timed steps (NVML energy counter), with
   the model FLOPs utilization each step reached.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mlcost.layout import Layout  # noqa: E402
from mlcost.specs import as_accelerator  # noqa: E402
from mlcost.timing import model_flops_utilization  # noqa: E402
from mlcost.units import in_unit  # noqa: E402
from mlcost.validate import summary, training_spec, training_steps, validate  # noqa: E402
from mlcost.workload import TrainingConfig, operators  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", default=str(ROOT / "benchmarks/data/h200-2026-11-26"))
    parser.add_argument("--datasheet", default="h200-sxm-141gb")
    parser.add_argument("--profile", default="h200-sxm-141gb-measured")
    args = parser.parse_args()
    data = Path(args.data)
    datasheet, profile = as_accelerator(args.datasheet), as_accelerator(args.profile)

    report = validate(data / "mlcost-bench", datasheet, profile)
    print("## Benchmarks: |predicted / measured - 1|\n")
    table = summary(report)
    print("| family | rows | median before | worst before | median after | worst after |")
    print("|---|---|---|---|---|---|")
    counts = report.groupby("family").size()
    for family, row in table.iterrows():
        print(f"| {family} | {counts[str(family)]} | " + " | ".join(f"{v:.1%}" for v in row) + " |")
    gemm = report[report["family"] == "gemm"]
    print("\n| GEMM format | rows | median before | median after | worst after (row) |")
    print("|---|---|---|---|---|")
    for fmt, rows in gemm.groupby("format"):
        errors = rows["error_after"].abs()
        worst = rows.loc[errors == errors.max()].iloc[0]  # the first of the largest
        print(
            f"| {fmt} | {len(rows)} | {rows['error_before'].abs().median():.1%} | "
            f"{rows['error_after'].abs().median():.1%} | {worst['error_after']:+.1%} "
            f"({worst['name']}) |"
        )

    steps = training_steps(data / "train_steps.json", {"datasheet": datasheet, "measured": profile})
    print("\n## Real training steps (BF16 autocast, AdamW, one GPU)\n")
    print(
        "| model | micro-batch | recompute | measured ms | datasheet ms (error) | "
        "measured profile ms (error) | peak GiB measured | predicted (error) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for _, r in steps.iterrows():
        print(
            f"| {r['model']} | {r['micro_batch']} | {r['recompute']} | {r['measured_ms']:.1f} | "
            f"{r['predicted_ms (datasheet)']:.1f} ({r['time error (datasheet)']:+.1%}) | "
            f"{r['predicted_ms (measured)']:.1f} ({r['time error (measured)']:+.1%}) | "
            f"{r['measured_peak_gib']:.2f} | {r['predicted_peak_gib']:.2f} "
            f"({r['memory error']:+.1%}) |"
        )
    for column in ("time error (datasheet)", "time error (measured)", "memory error"):
        print(f"\nmedian |{column}|: {steps[column].abs().median():.1%}", end="")
    print()

    raw = json.loads((data / "train_steps.json").read_text())
    if datasheet.tdp is None:  # the share of the cap needs the datasheet's power cap
        print(f"\nno power table: {datasheet.name} has no TDP in its spec (tdp)")
        return 0
    tdp = in_unit(datasheet.tdp, "W")
    idle = raw["idle"]
    print("\n## Power (NVML energy counter)\n")
    print(
        f"idle: {idle['mean_power_w']:.0f} W over {idle['seconds']:.0f} s "
        f"({idle['mean_power_w'] / tdp:.1%} of the {tdp:.0f} W cap), SM clock "
        f"{idle['clocks'].get('sm_clock_mhz')} MHz, {idle['clocks'].get('temperature_c')} C\n"
    )
    print("| model | micro-batch | recompute | mean W | share of cap | MFU | J per step |")
    print("|---|---|---|---|---|---|---|")
    peak = in_unit(datasheet.peak("bf16"), "flop/s")
    for row in raw["rows"]:
        if "mean_power_w" not in row:
            continue
        spec = training_spec(row)
        config = TrainingConfig(
            sequence_length=row["sequence_length"], precision="bf16-mixed", dropout=False
        )
        layout = Layout(micro_batch_size=row["micro_batch_size"])
        flops = in_unit(operators(spec, config, layout).model_flops, "flop")
        mfu = model_flops_utilization(flops, row["step_median_s"], 1, peak)
        print(
            f"| {row['name']} | {row['micro_batch_size']} | {row['recompute']} | "
            f"{row['mean_power_w']:.0f} | {row['mean_power_w'] / tdp:.1%} | {float(mfu):.1%} | "
            f"{row['energy_per_step_j']:.1f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
