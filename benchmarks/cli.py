"""Whole-process time of the command line over the interpreter's own start-up (issue 60).
Run: ``python benchmarks/cli.py [--repeats 21]``.

Each repeat runs a bare ``python -c pass`` and then ``mlcost --version``, ``mlcost --help``,
``mlcost memory llama-2-7b`` and ``mlcost plan llama-2-7b``, the order reversed every other repeat.
The script prints each command's median wall time, the median of ``python -c pass``, and their
difference: the time the command adds to starting Python.
Issue 60's targets apply to that difference: ``--version`` at most 0.3 s, ``memory`` 0.6 s and
``plan`` 1.0 s. ``--help`` is printed for information; it has no target.

``mlcost`` is the console script beside this interpreter, which a user types.
Every process runs with ``PYTHONPATH`` set to this checkout, so the script times this checkout's
``mlcost`` whatever the environment has installed; it checks that before timing.
The script compiles the package to bytecode first (``compileall``), as ``pip install`` does.
An editable install under ``PYTHONDONTWRITEBYTECODE=1`` would otherwise compile every module on
every call.
Each command runs once untimed first (file caches, the unit registry and spec caches).
Run on an otherwise idle machine: whole-process times move with the load.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MLCOST = str(Path(sys.executable).with_name("mlcost"))
BASELINE = "python -c pass"
#: Issue 60: seconds each command may add to the interpreter's start-up; None: no target.
TARGETS: dict[str, float | None] = {
    "mlcost --version": 0.3,
    "mlcost --help": None,
    "mlcost memory llama-2-7b": 0.6,
    "mlcost plan llama-2-7b": 1.0,
}
COMMANDS = {
    BASELINE: [sys.executable, "-c", "pass"],
    "mlcost --version": [MLCOST, "--version"],
    "mlcost --help": [MLCOST, "--help"],
    "mlcost memory llama-2-7b": [MLCOST, "memory", "llama-2-7b"],
    "mlcost plan llama-2-7b": [MLCOST, "plan", "llama-2-7b"],
}


def environment() -> dict[str, str]:
    """This process's environment with this checkout first on ``PYTHONPATH``."""
    path = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


def seconds(command: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one run of ``command``, which must succeed."""
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, capture_output=True, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    args = parser.parse_args()
    if args.repeats < 1:
        raise SystemExit(f"--repeats: got {args.repeats}, expected at least 1")
    if not Path(MLCOST).exists():
        raise SystemExit(
            f"no console script at {MLCOST}: install the package into this environment"
        )
    env = environment()
    found = subprocess.run(
        [sys.executable, "-c", "import mlcost; print(mlcost.__file__)"],
        env=env, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    if not Path(found).resolve().is_relative_to(ROOT / "mlcost"):
        raise SystemExit(f"mlcost imports from {found}, not from {ROOT}")
    compileall.compile_dir(ROOT / "mlcost", quiet=1)  # bytecode, as pip install writes it
    for command in COMMANDS.values():  # warm: file caches, the unit registry, the spec caches
        seconds(command, env)
    samples: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for repeat in range(args.repeats):
        names = list(COMMANDS) if repeat % 2 == 0 else list(reversed(COMMANDS))
        for name in names:
            samples[name].append(seconds(COMMANDS[name], env))
    base = statistics.median(samples[BASELINE])
    print(f"{args.repeats} interleaved repeats, medians; mlcost from {found}")
    print(f"{BASELINE}: {base:.3f} s")
    print(
        f"{'command':26s} {'wall':>8s} {'over python':>12s} {'target':>8s} {'ratio':>6s}  verdict"
    )
    for name, target in TARGETS.items():
        wall = statistics.median(samples[name])
        over = wall - base
        if target is None:
            print(f"{name:26s} {wall:7.3f}s {over:11.3f}s {'-':>8s} {'-':>6s}  (information)")
            continue
        verdict = "PASS" if over <= target else "FAIL"
        print(
            f"{name:26s} {wall:7.3f}s {over:11.3f}s {target:7.1f}s {over / target:6.2f}  {verdict}"
        )


if __name__ == "__main__":
    main()
