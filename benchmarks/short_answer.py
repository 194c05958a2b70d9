"""Wall time of the issue-64 acceptance command lines (the short answer), each in a fresh
interpreter as a user runs it, against the target of one second. Prints seconds and the ratio
to the target; run ``python benchmarks/short_answer.py``."""

from __future__ import annotations

import subprocess
import sys
import time

TARGET_S = 1.0
COMMANDS = [
    ["fit", "llama-3.1-8b", "--gpu", "rtx-4090"],
    ["plan", "qwen2.5-7b", "--gpu", "l40s", "--gpus", "8"],
    ["serve", "llama-3.1-70b", "--gpu", "h100", "--gpus", "4"],
]


def main(repeats: int = 3) -> None:
    for args in COMMANDS:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "mlcost.cli", *args], check=True,
                           capture_output=True)  # fmt: skip
            times.append(time.perf_counter() - start)
        best = min(times)
        print(f"{' '.join(args):<50} best {best:6.2f} s  ratio to 1 s: {best / TARGET_S:5.2f}")


if __name__ == "__main__":
    main()
