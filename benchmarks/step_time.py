"""How long predicting a step takes: Llama-3-8B on an H100, one configuration (target under
20 ms) and a vectorized sweep over 10,000 (batch, sequence) points (target under 2 s). Prints
the medians and their ratios to the targets, measured in this run.
Run: ``.venv/bin/python benchmarks/step_time.py``.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

import mlcost
from mlcost.timing import step_time
from mlcost.workload import TrainingConfig


def median_seconds(function: object, repeats: int) -> float:
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()  # type: ignore[operator]
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def main() -> None:
    model = mlcost.model("llama-3-8b")
    gpu = mlcost.accelerator("h100-sxm5-80gb")
    config = TrainingConfig(sequence_length=4096)
    layout = mlcost.Layout(micro_batch_size=4)

    def one() -> None:
        step_time(model, config, gpu, layout).mfu()

    batches = np.repeat(np.arange(1, 101), 100)
    seqs = np.tile(np.arange(1, 101) * 128, 100)

    def sweep() -> None:
        step_time(model, config, gpu, micro_batch_size=batches, sequence_length=seqs).mfu()

    one()
    single = median_seconds(one, 50)
    swept = median_seconds(sweep, 5)
    print(
        f"one configuration: median {single * 1e3:.2f} ms; ratio to the 20 ms target "
        f"{single / 0.020:.3f}"
    )
    print(
        f"sweep of {batches.size:,} (batch, seq) points: median {swept * 1e3:.1f} ms; "
        f"ratio to the 2 s target {swept / 2.0:.4f}"
    )


if __name__ == "__main__":
    main()
