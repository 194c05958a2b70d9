"""The test suite's wall time at the head against 4c3b061, before the renovation (issue 60).
Paired runs on this machine: ``python benchmarks/suite_time.py [--repeats 2] [--base 4c3b061]``.

Issue 60 asks that the renovated suite be no slower than the suite of 4c3b061, the last revision
before the renovation: head / base at most 1.0.
This machine's speed drifts by 15% and more within an hour, so a fixed number of seconds is no
verdict.
So the script runs both suites, alternating which goes first, and judges the ratio of each pair
(head over base).
The verdict is ``met`` when every pair is at or below 1.0, ``not met`` when every pair is above
it, and ``undecided`` otherwise.
A pair counts only when both suites pass: a failed run's time measures nothing.

Each revision is a clean copy (``git archive``, no bytecode, no pytest cache) in a temporary
folder.
Each runs with this environment's interpreter and the ``-m pytest`` line of its own
``scripts/test.sh``.
``PYTHONPATH`` points at the copy, so the tests, the notebooks' kernels and the command lines they
start import that revision's ``mlcost``, not the installed one.
Both run with this environment's packages: the comparison is of the suites, not of the
environments.
Run on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shlex
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The last revision before issue 60's renovation.
BASE = "4c3b061"
TARGET = 1.0  # issue 60: head / base, no slower


def extract(revision: str, folder: Path) -> Path:
    """A clean copy of ``revision``'s files in ``folder`` (``git archive``)."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", revision], capture_output=True
    )
    if done.returncode != 0:
        reason = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no reason"]
        raise SystemExit(f"revision: got {revision!r}, which git cannot archive ({reason[0]})")
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def suite_command(tree: Path) -> list[str]:
    """The ``-m pytest`` line of ``tree``'s ``scripts/test.sh``, run with this interpreter."""
    for line in (tree / "scripts" / "test.sh").read_text().splitlines():
        words = shlex.split(line, comments=True)
        if words[1:3] == ["-m", "pytest"]:
            return [sys.executable, *words[1:], "-q", "-p", "no:cacheprovider"]
    raise SystemExit(f"{tree}/scripts/test.sh has no '-m pytest' line")


def run_suite(tree: Path, command: list[str]) -> tuple[float, int, str]:
    """Wall seconds, exit status and pytest's last line of ``tree``'s suite."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    summary = re.sub(r"=+", "", lines[-1]).strip() if lines else done.stderr.strip()[-200:]
    return seconds, done.returncode, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--base", default=BASE, help=f"the earlier revision (default {BASE})")
    parser.add_argument("--head", default="HEAD", help="the revision measured (default HEAD)")
    args = parser.parse_args()
    if args.repeats < 1:
        raise SystemExit(f"--repeats: got {args.repeats}, expected at least 1")
    with tempfile.TemporaryDirectory() as folder:
        trees = {
            name: extract(revision, Path(folder) / name)
            for name, revision in (("base", args.base), ("head", args.head))
        }
        commands = {name: suite_command(tree) for name, tree in trees.items()}  # before any run
        seconds: dict[str, list[float]] = {"base": [], "head": []}
        failed = []
        for repeat in range(args.repeats):
            order = ("base", "head") if repeat % 2 == 0 else ("head", "base")
            for name in order:
                wall, status, summary = run_suite(trees[name], commands[name])
                seconds[name].append(wall)
                if status != 0:
                    failed.append(f"{name} in repeat {repeat + 1}")
                print(f"repeat {repeat + 1} {name:4s} {wall:7.1f} s  exit {status}  {summary}")
    ratios = [h / b for h, b in zip(seconds["head"], seconds["base"], strict=True)]
    base, head = statistics.median(seconds["base"]), statistics.median(seconds["head"])
    if max(ratios) <= TARGET:
        verdict = "met"
    elif min(ratios) > TARGET:
        verdict = "not met"
    else:
        verdict = "undecided"
    if failed:
        verdict = f"no verdict: the suite failed ({', '.join(failed)})"
    print(
        f"base {args.base}: median {base:.1f} s; head {args.head}: median {head:.1f} s; "
        f"head / base of the medians {head / base:.2f}"
    )
    print(
        f"head / base per pair: {', '.join(f'{r:.2f}' for r in ratios)}; target <= {TARGET}: "
        f"{verdict} (met: every pair at or below it; not met: every pair above it)"
    )


if __name__ == "__main__":
    main()
