"""How long "largest micro-batch that fits" takes: Llama-3-8B on an 80 GB H100, bf16-mixed AdamW,
full recomputation. Target (issue 4): under 100 ms. Prints the median of repeated solves and its
ratio to the target, measured in this run. Run: ``.venv/bin/python benchmarks/max_batch.py``.

On one H100 the model states alone (16 B/param = 128 GB) do not fit, so the question is asked
with ZeRO-3 over 8 data-parallel ranks, where it has an answer; both are timed.
"""

from __future__ import annotations

import statistics
import time

import mlcost
from mlcost.layout import Layout
from mlcost.memory import max_micro_batch_size
from mlcost.workload import TrainingConfig

TARGET_SECONDS = 0.100


def timed(layout: Layout) -> tuple[int, float]:
    model = mlcost.model("llama-3-8b")
    gpu = mlcost.accelerator("h100-sxm5-80gb")
    config = TrainingConfig(sequence_length=4096, precision="bf16-mixed", optimizer="adamw")
    answer = max_micro_batch_size(model, config, gpu, layout)  # warm-up
    timings = []
    for _ in range(20):
        start = time.perf_counter()
        answer = max_micro_batch_size(model, config, gpu, layout)
        timings.append(time.perf_counter() - start)
    return answer, statistics.median(timings)


def main() -> None:
    for label, layout in (
        ("one GPU", Layout(recompute="full")),
        ("ZeRO-3 over 8 GPUs", Layout(dp=8, zero_stage=3, recompute="full")),
    ):
        answer, median = timed(layout)
        print(
            f"{label}: largest micro-batch {answer} (searched 1..4096 in one vectorized call); "
            f"median {median * 1e3:.2f} ms; "
            f"ratio to the 100 ms target {median / TARGET_SECONDS:.3f}"
        )


if __name__ == "__main__":
    main()
