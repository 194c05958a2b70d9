"""Whether a change made mlcost's questions of ``peers.py`` faster, slower or neither, two
revisions timed against each other in alternating processes on this machine:
``python benchmarks/revisions.py --base REV [--head HEAD] [--rounds 12]``.

The questions (``peers.questions``: memory, the one-GPU step, the 8-GPU step with communication,
``Plan.train()`` without and with its figures read) answer in a fraction of a millisecond, and
this machine's speed drifts by up to 1.5x within minutes: two runs of ``peers.py`` minutes apart
differ by more than most changes do.
So each round times both revisions, one process each, the order alternating between rounds, and
judges the ratio of each round's pair (head over base) rather than either side's seconds.

Each revision is a clean copy (``git archive``, as ``suite_time.py`` makes it) imported through
``PYTHONPATH`` by a child process of this interpreter; the child checks that it imported the
copy's ``mlcost``, not the installed one, and stops otherwise. A child warms every question,
then times each in batches of calls, the questions interleaved, and reports per question the
fastest batch's mean (the least disturbed by the machine). Per question the script prints both
medians, the median of the rounds' head / base ratios with its bootstrap 95% interval
(``peers.paired_ratio``) and the verdict: ``faster`` when the whole interval lies below
``1 - NOISE``, ``slower`` when above ``1 + NOISE``, otherwise ``no change measurable``; no
verdict from fewer than ``MIN_ROUNDS`` rounds.

``NOISE`` (2%) is this method's own floor, measured by timing a revision against itself (stop
48; the defaults, 12 rounds of 7 batches of 100 calls; 3 runs x 4 questions): the medians of
head / base fell within 0.986-1.014, and one interval of the twelve excluded 1 (1.014 [1.003,
1.036]). In a run while the machine drifted, a question the change did not touch gave 1.036
[1.002, 1.043]: a median alone is no verdict, and no interval of these runs lay wholly beyond
2%. A change smaller than that is not told apart from the machine here.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from peers import paired_ratio, questions, quiet
from suite_time import extract

HERE = Path(__file__).resolve().parent
#: The ratio's noise floor on this machine: timing a revision against itself (module docstring).
NOISE = 0.02
#: The fewest rounds a verdict is given for: the floor was measured at 12 (a 2-round A/A run of
#: small batches, with the machine drifting, gave memory 0.754 [0.566, 0.942]).
MIN_ROUNDS = 10


def child(tree: str, batches: int, calls: int) -> None:
    """Time the questions on the ``mlcost`` of ``tree`` (imported through ``PYTHONPATH``) and
    print their microseconds per call as JSON: per question the fastest of ``batches`` batches
    of ``calls`` calls each, the questions interleaved batch by batch."""
    import mlcost

    if not Path(mlcost.__file__).resolve().is_relative_to(Path(tree).resolve()):
        raise SystemExit(f"child: imported mlcost from {mlcost.__file__}, expected {tree}")
    quiet()  # as peers.py times them
    timed = questions()
    for call in timed.values():  # warm: imports, catalogs, caches
        for _ in range(calls):
            call()
    best = dict.fromkeys(timed, float("inf"))
    for _ in range(batches):
        for name, call in timed.items():
            start = time.perf_counter()
            for _ in range(calls):
                call()
            best[name] = min(best[name], (time.perf_counter() - start) / calls * 1e6)
    print(json.dumps(best))


def timed_in(tree: Path, batches: int, calls: int) -> dict[str, float]:
    """Microseconds per call of each question on ``tree``'s ``mlcost`` (:func:`child`)."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(tree)]
    command += ["--batches", str(batches), "--calls", str(calls)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=HERE)
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise SystemExit(f"{tree.name}: the timing process failed ({reason})")
    return json.loads(done.stdout.strip().splitlines()[-1])


def verdict(low: float, high: float, rounds: int) -> str:
    """``faster`` when the interval of head / base lies below ``1 - NOISE``, ``slower`` when it
    lies above ``1 + NOISE`` (module docstring); none from fewer than ``MIN_ROUNDS`` rounds."""
    if rounds < MIN_ROUNDS:
        return f"no verdict: fewer than {MIN_ROUNDS} rounds"
    if high < 1 - NOISE:
        return "faster"
    if low > 1 + NOISE:
        return "slower"
    return "no change measurable"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="the earlier revision (a commit, tag or branch)")
    parser.add_argument("--head", default="HEAD", help="the revision measured (default HEAD)")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--batches", type=int, default=7)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    for name in ("rounds", "batches", "calls"):
        if getattr(args, name) < 1:
            raise SystemExit(f"--{name}: got {getattr(args, name)}, expected at least 1")
    if args.child is not None:
        child(args.child, args.batches, args.calls)
        return
    if args.base is None:
        raise SystemExit("--base: expected the revision to compare against, e.g. --base HEAD~1")
    with tempfile.TemporaryDirectory() as folder:
        trees = {
            name: extract(revision, Path(folder) / name)
            for name, revision in (("base", args.base), ("head", args.head))
        }
        samples: dict[str, list[dict[str, float]]] = {"base": [], "head": []}
        for round_ in range(args.rounds):
            order = ("base", "head") if round_ % 2 == 0 else ("head", "base")
            for side in order:
                samples[side].append(timed_in(trees[side], args.batches, args.calls))
            print(f"round {round_ + 1} of {args.rounds} done", file=sys.stderr)
    print(
        f"base {args.base}, head {args.head}: {args.rounds} alternating rounds, each the fastest "
        f"of {args.batches} batches of {args.calls} calls; a verdict needs the whole interval "
        f"beyond 1 +- {NOISE:.0%} (this method's noise floor)"
    )
    print(f"{'question':38s} {'base':>9s} {'head':>9s} {'head / base [95% CI]':>22s}  verdict")
    for name in samples["base"][0]:
        base = [sample[name] for sample in samples["base"]]
        head = [sample[name] for sample in samples["head"]]
        ratio, low, high = paired_ratio(head, base)
        print(
            f"{name:38s} {statistics.median(base):6,.0f} us {statistics.median(head):6,.0f} us "
            f"{ratio:9.3f} [{low:.3f}, {high:.3f}]  {verdict(low, high, args.rounds)}"
        )


if __name__ == "__main__":
    main()
