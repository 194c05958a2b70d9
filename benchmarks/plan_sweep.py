"""How long ``Plan.sweep`` takes over 100,000 configurations. Target (issue 60): at most 5 us
per configuration, i.e. 0.5 s for the 100,000.

The sweep: Llama-2-7B (ZeRO-3 over the data-parallel GPUs, so memory is evaluated per GPU
count), 2 GPU types x 2 precisions x 50 micro-batch sizes x 100 GPU counts x
5 grid regions = 100,000 rows, each with step time, memory, time to train, energy, dollars and
CO2e. Prints the median of repeated sweeps and its ratio to the target, measured in this run.
Run: ``.venv/bin/python benchmarks/plan_sweep.py``.
"""

from __future__ import annotations

import statistics
import time

from mlcost.layout import Layout
from mlcost.plan import Plan

TARGET_SECONDS = 0.5  # 5 us x 100,000 configurations (issue 60)


def main() -> None:
    plan = Plan(
        "llama-2-7b", gpu="h100-sxm5-80gb", gpus=64, tokens=2e12, region="us",
        layout=Layout(zero_stage=3),
    )  # fmt: skip
    axes = {
        "gpu": ["a100-sxm4-80gb", "h100-sxm5-80gb"],
        "precision": ["bf16-mixed", "fp16-mixed"],
        "micro_batch_size": range(1, 51),
        "gpus": range(8, 808, 8),
        "region": ["us", "france", "germany", "india", "world"],
    }
    frame = plan.sweep(**axes)  # warm-up (catalog load, imports)
    timings = []
    for _ in range(5):
        start = time.perf_counter()
        frame = plan.sweep(**axes)
        timings.append(time.perf_counter() - start)
    median = statistics.median(timings)
    print(f"rows: {len(frame):,}")
    print(f"median sweep time: {median:.3f} s over {len(timings)} runs (min {min(timings):.3f} s)")
    print(f"per configuration: {median / len(frame) * 1e6:.2f} us")
    print(f"target: {TARGET_SECONDS:.1f} s; ratio median/target = {median / TARGET_SECONDS:.3f}")
    best = frame[frame.fits].sort_values("rental_usd").head(3)
    columns = ["gpu", "precision", "micro_batch_size", "gpus", "region", "wall_days", "rental_usd"]
    print("cheapest rentals that fit:")
    print(best[columns].to_string(index=False))
    print("PASS" if median <= TARGET_SECONDS else "FAIL")


if __name__ == "__main__":
    main()
