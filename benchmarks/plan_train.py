"""How long one ``Plan(...).train()`` takes with its layout given, its figures read.
Target (issue 60): at most 5 ms per plan.
Run: ``python benchmarks/plan_train.py [--batches 41] [--calls 20]``.

The plan: Llama-2-7B on one DGX H100 for 2e12 tokens, 8-way data parallel, ZeRO-1, micro-batch 1,
global batch 1,024 (no layout search).
Each call builds the ``Plan``, trains it and reads ``.figures()`` (each number in its unit, with
its formula, the numbers substituted and its band): the answer a user reads.
One untimed call comes first (imports, the catalog, the validation bands).
Then ``--batches`` batches of ``--calls`` calls each are timed; the script prints the median of
the batches' milliseconds per plan, the fastest batch, and the median's ratio to the target.
"""

from __future__ import annotations

import argparse
import statistics
import time

import mlcost

TARGET_MS = 5.0  # issue 60


def one_plan() -> object:
    """One plan of the benchmark (module docstring), trained, its figures read."""
    layout = mlcost.Layout(dp=8, zero_stage=1, micro_batch_size=1, global_batch_size=1024)
    return (
        mlcost.Plan("llama-2-7b", system="dgx-h100", tokens=2e12, layout=layout).train().figures()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=41)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    for name in ("batches", "calls"):
        if getattr(args, name) < 1:
            raise SystemExit(f"--{name}: got {getattr(args, name)}, expected at least 1")
    one_plan()  # warm
    per_plan = []
    for _ in range(args.batches):
        start = time.perf_counter()
        for _ in range(args.calls):
            one_plan()
        per_plan.append((time.perf_counter() - start) / args.calls * 1e3)
    median = statistics.median(per_plan)
    print(
        f"Plan(...).train().figures(), Llama-2-7B on DGX H100, dp 8, ZeRO-1: "
        f"{args.batches} batches of {args.calls} calls"
    )
    print(f"per plan: median {median:.2f} ms (fastest batch {min(per_plan):.2f} ms)")
    print(f"target: {TARGET_MS:.0f} ms; ratio median/target = {median / TARGET_MS:.3f}")
    print("PASS" if median <= TARGET_MS else "FAIL")


if __name__ == "__main__":
    main()
