"""The calibration loop on this machine's CPU, measured in one run: the quick suite, the
calibrated profile, and the prediction errors before and after against the targets (GEMM median
error < 15%, collectives R^2 > 0.9, end-to-end step of the reference GPT < 10%).

Run: ``.venv/bin/python benchmarks/calibration_cpu.py [RESULTS_DIR]``.
"""

from __future__ import annotations

import sys
import tempfile

import pandas as pd

from mlcost.bench.runner import run
from mlcost.calibrate import calibrate
from mlcost.validate import summary, validate


def main() -> None:
    directory = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="mlcost-bench-")
    run(directory, device="cpu", preset="quick", progress=False)
    profile = calibrate(directory)
    report = validate(directory, profile, profile)
    pd.set_option("display.width", 200)
    print(f"results: {directory}")
    print(summary(report).to_string(float_format=lambda x: f"{x:.1%}"))
    gemm = report[report["family"] == "gemm"]["error_after"].abs().median()
    e2e = report[report["family"] == "e2e"]
    e2e_after = float(e2e["error_after"].abs().iloc[0])
    e2e_before = float(e2e["error_before"].abs().iloc[0])
    print(
        f"GEMM median |error| after calibration: {gemm:.1%} (target < 15%; ratio {gemm / 0.15:.2f})"
    )
    print(
        f"end-to-end step |error|: before {e2e_before:.1%}, after {e2e_after:.1%} "
        f"(target < 10%; ratio {e2e_after / 0.10:.2f})"
    )
    assert profile.measured is not None
    for fit in profile.measured.collectives:
        print(
            f"collective {fit.collective}: alpha {fit.alpha.to('us').magnitude:.0f} us, "
            f"bandwidth {fit.bandwidth.to('GB/s').magnitude:.2f} GB/s, R^2 "
            f"{fit.r_squared:.3f} (target > 0.9)"
        )


if __name__ == "__main__":
    main()
