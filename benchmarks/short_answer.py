"""Wall time of the issue-64 acceptance command lines (the short answer), each in a fresh
interpreter as a user runs it, against the target of one second. Prints wall and CPU seconds
(CPU: the child's user + system time, what a loaded machine does not inflate) and their ratio
to the target; run ``python benchmarks/short_answer.py``. Exit status 1 is the answer "does not
fit", not a failure."""

from __future__ import annotations

import resource
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
        walls, cpus = [], []
        for _ in range(repeats):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "mlcost.cli", *args], capture_output=True)
            walls.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            if done.returncode not in (0, 1):
                raise SystemExit(done.stderr.decode())
        wall, cpu = min(walls), min(cpus)
        print(f"{' '.join(args):<46} wall {wall:5.2f} s ({wall / TARGET_S:4.2f}x 1 s), "
              f"CPU {cpu:5.2f} s ({cpu / TARGET_S:4.2f}x)")  # fmt: skip


if __name__ == "__main__":
    main()
