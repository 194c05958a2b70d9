"""How long building the operator table takes for a 405B model at sequence length 8192.

Target (issue 3): under 50 ms. Prints the median of repeated builds and its ratio to the
target, measured in this run. Run: ``.venv/bin/python benchmarks/operator_table.py``.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

import mlcost
from mlcost.workload import TrainingConfig, operators, transformer_operators

TARGET_SECONDS = 0.050


def main() -> None:
    model = mlcost.catalog().transformer("llama-3.1-405b")
    config = TrainingConfig(sequence_length=8192)
    operators(model, config)  # warm-up: imports, caches
    timings = []
    for _ in range(50):
        start = time.perf_counter()
        table = operators(model, config)
        table.model_flops  # noqa: B018 - include the summation
        timings.append(time.perf_counter() - start)
    median = statistics.median(timings)
    print(f"operator table, llama-3.1-405b, s=8192: {len(table)} operators")
    print(
        f"median {median * 1e3:.3f} ms over {len(timings)} builds "
        f"(min {min(timings) * 1e3:.3f} ms, max {max(timings) * 1e3:.3f} ms)"
    )
    print(f"ratio to the 50 ms target: {median / TARGET_SECONDS:.4f} (below 1 is within target)")

    # A vectorized sweep: 100,000 (batch, sequence) configurations in one call.
    rng = np.random.default_rng(0)
    batches = rng.integers(1, 64, 100_000)
    seqs = rng.integers(128, 32_768, 100_000)
    start = time.perf_counter()
    swept = transformer_operators(model, config, micro_batch_size=batches, sequence_length=seqs)
    flops = swept.model_flops
    elapsed = time.perf_counter() - start
    print(
        f"sweep of {flops.magnitude.size:,} configurations in one call: {elapsed * 1e3:.1f} ms "
        f"({elapsed / flops.magnitude.size * 1e9:.0f} ns per configuration)"
    )


if __name__ == "__main__":
    main()
