"""Calibrate from one profiled training step, predict every other measured step (issue 68).

    .venv/bin/python benchmarks/trace_calibration_gpu.py [benchmarks/data/h200-2026-11-27]
        [--base h200-sxm-141gb] [--json out.json]

For each trace of ``traces/`` in turn (one GPT-3 shape, micro-batch and recomputation; PyTorch
profiler, two steps), :func:`mlcost.calibrate_from_trace` fits a profile (GEMM curves by shape,
attention, per-kind bandwidth shares, launch gaps, allocator fragmentation) from that trace and
its step time measured without the profiler (``training.json``'s ``step_median_s``); the
profile then predicts every *other* row of ``training.json``: the step time against
``step_median_s`` (ten steps timed with CUDA events) and the peak allocated memory against
``peak_allocated_bytes`` (``torch.cuda.max_memory_allocated``). Nothing of a predicted row is
fitted. Prints, as Markdown:

1. the step-time error matrix (row: the trace calibrated on; column: the step predicted;
   ``predicted / measured - 1``; the diagonal, the calibration's own step, in brackets);
2. the peak allocated memory of every step (the fit does not change it), and the peak reserved
   memory matrix (the allocator fragmentation fitted on each trace);
3. per calibration trace, the median and worst |error| off the diagonal, and the same for
   calibrating on one model size and predicting the other sizes only;
4. the datasheet prediction (no calibration) of every row, for comparison.

Targets (issue 68): median step-time error <= 5% and peak memory within 5% when calibrating
on one model size and predicting the others.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mlcost.layout import Layout  # noqa: E402
from mlcost.timing import step_time  # noqa: E402
from mlcost.trace import read_trace  # noqa: E402
from mlcost.trace_fit import TraceComparison, calibrate_from_trace, compare_trace  # noqa: E402
from mlcost.validate import bench_training, training_spec  # noqa: E402


def short(row: dict[str, Any]) -> str:
    return f"{row['name'].removeprefix('gpt3-')} mb{row['micro_batch_size']} {row['recompute']}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", default=str(ROOT / "benchmarks/data/h200-2026-11-27"))
    parser.add_argument("--base", default="h200-sxm-141gb")
    parser.add_argument("--implementation", default="ddp-eager")
    parser.add_argument("--json", type=Path, default=None, help="also write every cell here")
    args = parser.parse_args()
    data = Path(args.data)
    rows = [r for r in json.loads((data / "training.json").read_text())["rows"] if "trace" in r]
    runs = []
    for row in rows:
        spec = training_spec(row)
        config = bench_training(row["sequence_length"], "bf16-mixed")
        layout = Layout(micro_batch_size=row["micro_batch_size"], recompute=row["recompute"])
        runs.append((row, spec, config, layout))

    traces = [read_trace(data / "traces" / row["trace"]) for row, *_ in runs]

    def compared(j: int, gpu: Any) -> TraceComparison:
        """Step ``j`` (its own trace, its step measured without the profiler) against its
        prediction on ``gpu``: time, class shares and peak memory."""
        target, tspec, tconfig, tlayout = runs[j]
        return compare_trace(
            traces[j], tspec, tconfig, gpu, tlayout, implementation=args.implementation,
            step_seconds=target["step_median_s"],
        )  # fmt: skip

    def share_gap(comparison: TraceComparison) -> float:
        """The largest gap, in points, between a class's measured and predicted share."""
        return max(abs(m - p) for m, p in comparison.shares().values())

    cells: dict[tuple[int, int], dict[str, float]] = {}
    warnings: dict[int, tuple[str, ...]] = {}
    for i, (row, spec, config, layout) in enumerate(runs):
        fit = calibrate_from_trace(
            traces[i],
            spec,
            config,
            layout,
            base=args.base,
            implementation=args.implementation,
            step_seconds=row["step_median_s"],
        )
        warnings[i] = fit.warnings
        for j, (target, *_) in enumerate(runs):
            comparison = compared(j, fit.profile)
            cells[(i, j)] = {
                "time": comparison.step_error,
                "allocated": (comparison.predicted_allocated or 0.0)
                / target["peak_allocated_bytes"]
                - 1,
                "reserved": (comparison.predicted_reserved or 0.0) / target["peak_reserved_bytes"]
                - 1,
                "share": share_gap(comparison),
            }

    labels = [short(r) for r, *_ in runs]

    def matrix(key: str, title: str) -> None:
        print(f"\n### {title}: predicted / measured - 1\n")
        print("| calibrated on \\ predicted | " + " | ".join(labels) + " |")
        print("|---|" + "---:|" * len(labels))
        for i, label in enumerate(labels):
            values = []
            for j in range(len(labels)):
                text = f"{cells[(i, j)][key]:+.1%}"
                values.append(f"({text})" if i == j else text)
            print(f"| {label} | " + " | ".join(values) + " |")

    matrix("time", "Step time")
    print("\n### Peak allocated memory: predicted / measured - 1\n")
    print(
        "No calibration changes it (the fit carries the allocator's fragmentation, which is "
        "reserved and not allocated memory): one row for every trace calibrated on.\n"
    )
    print("| | " + " | ".join(labels) + " |")
    print("|---|" + "---:|" * len(labels))
    print(
        "| any | "
        + " | ".join(f"{cells[(0, j)]['allocated']:+.1%}" for j in range(len(labels)))
        + " |"
    )
    matrix("reserved", "Peak reserved memory (fragmentation fitted on the row's trace)")

    print("\n### Summary per calibration trace (|error| off the diagonal)\n")
    print(
        "| calibrated on | step median (all others) | step worst | step median (other sizes) | "
        "step worst (other sizes) | allocated median (other sizes) | allocated worst (other "
        "sizes) | fit warnings |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    every_time, other_size_time, other_size_memory = [], [], []
    for i, (row, *_) in enumerate(runs):
        others = [j for j in range(len(runs)) if j != i]
        sizes = [j for j in others if runs[j][0]["name"] != row["name"]]
        time_all = [abs(cells[(i, j)]["time"]) for j in others]
        time_sizes = [abs(cells[(i, j)]["time"]) for j in sizes]
        memory_sizes = [abs(cells[(i, j)]["allocated"]) for j in sizes]
        every_time += time_all
        other_size_time += time_sizes
        other_size_memory += memory_sizes
        print(
            f"| {labels[i]} | {statistics.median(time_all):.1%} | {max(time_all):.1%} | "
            f"{statistics.median(time_sizes):.1%} | {max(time_sizes):.1%} | "
            f"{statistics.median(memory_sizes):.1%} | {max(memory_sizes):.1%} | "
            f"{'; '.join(warnings[i]) or 'none'} |"
        )
    print(
        f"\nall {len(every_time)} off-diagonal cells: median |step error| "
        f"{statistics.median(every_time):.1%}, worst {max(every_time):.1%}"
    )
    print(
        f"calibrate on one size, predict the other sizes ({len(other_size_time)} cells): median "
        f"|step error| {statistics.median(other_size_time):.1%} (target <= 5%), worst "
        f"{max(other_size_time):.1%}; peak allocated memory median "
        f"{statistics.median(other_size_memory):.1%}, worst {max(other_size_memory):.1%}, "
        f"{sum(e <= 0.05 for e in other_size_memory)} of {len(other_size_memory)} within 5%"
    )

    shares = [cells[(i, j)]["share"] for i in range(len(runs)) for j in range(len(runs)) if i != j]
    print(
        f"class shares: the largest gap between a class's measured and predicted share of its "
        f"step, median over the {len(shares)} off-diagonal cells "
        f"{statistics.median(shares) * 100:.1f} points, worst {max(shares) * 100:.1f}; "
        f"{sum(g <= 0.10 for g in shares)} of {len(shares)} cells have every class within "
        "10 points"
    )
    print(
        "\n### Without calibration (datasheet h200-sxm-141gb and the catalog's published profile)\n"
    )
    print(
        "| step | measured ms | datasheet | published profile | "
        "datasheet: largest class share gap |"
    )
    print("|---|---:|---:|---:|---:|")
    for j, (row, spec, config, layout) in enumerate(runs):
        errors = [
            float(step_time(spec, config, gpu, layout, implementation=args.implementation).seconds)
            / row["step_median_s"]
            - 1
            for gpu in (args.base, f"{args.base}-measured")
        ]
        print(
            f"| {short(row)} | {row['step_median_s'] * 1e3:.1f} | {errors[0]:+.1%} | "
            f"{errors[1]:+.1%} | {share_gap(compared(j, args.base)) * 100:.1f} points |"
        )
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {f"{labels[i]} -> {labels[j]}": value for (i, j), value in cells.items()}, indent=1
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
