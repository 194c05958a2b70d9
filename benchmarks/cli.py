"""Whole-process time of the command line against llm-analysis 0.2.2's (issue 17): paired runs,
interleaved, medians: ``python benchmarks/cli.py [--repeats 7]``.

Each repeat runs, one after the other, ``mlcost --version`` and ``mlcost --help`` (target
0.3 s: neither imports the model), ``mlcost memory llama-2-7b``, ``mlcost plan`` (the
default job: Llama-2-7B on one DGX H100, layout searched over 5,796 candidates), ``mlcost plan``
with the peer's layout given (``--seq 4096 --batch 1 --dp 8 --zero 1 --global-batch 1024``:
the same question as the peer's, no search; reported beside the default, not instead of it)
and llm-analysis's command line for the comparable answer (``python -m llm_analysis.analysis
train`` on Llama-2-7B, seq 4096, 8x H100, ZeRO-1: memory, step time and time to train in one
call). Each mlcost command is compared with the peer run of the same repeat; the script prints
the medians and the median of the paired ratios with its bootstrap 95% interval, judged against
the target (1x) for ``memory`` and both ``plan`` rows (``peers.verdict``). The peer runs from
its own environment (``benchmarks/.peer-venv``, installed on first use; see ``peers.py``).
Run on an otherwise idle machine: whole-process times move with the load. Both sides run from
bytecode: pip compiled the peer's when it installed it, and the script compiles mlcost's package
first (``compileall``), as a regular ``pip install`` would; an editable install under
``PYTHONDONTWRITEBYTECODE=1`` (this machine's environment) never writes it and would compile
every module on every call (about 0.05 s of each command line).
"""

from __future__ import annotations

import argparse
import compileall
import statistics
import subprocess
import sys
import time
from pathlib import Path

from peers import paired_ratio, peer_python, verdict

ROOT = Path(__file__).resolve().parent.parent
MLCOST = str(Path(sys.executable).with_name("mlcost"))
VERSION_TARGET_S = 0.3  # issue 17
#: Issue 17: these commands take at most as long as the peer's command line (paired runs).
#: The last row is the like-for-like one (the peer's layout given, no search): reported beside
#: the acceptance's rows, not instead of them.
PEER_TARGETS = {
    "mlcost memory llama-2-7b": 1.0,
    "mlcost plan": 1.0,
    "mlcost plan, peer's layout": 1.0,
}
COMMANDS = {
    "mlcost --version": [MLCOST, "--version"],
    "mlcost --help": [MLCOST, "--help"],
    "mlcost memory llama-2-7b": [MLCOST, "memory", "llama-2-7b"],
    "mlcost plan": [MLCOST, "plan"],
    "mlcost plan, peer's layout": [
        MLCOST, "plan", "--seq", "4096", "--batch", "1", "--dp", "8", "--zero", "1",
        "--global-batch", "1024",
    ],
}  # fmt: skip
PEER_ARGS = [
    "-m", "llm_analysis.analysis", "train", "--model_name", "NousResearch_Llama-2-7b-hf",
    "--gpu_name", "h100-sxm-80gb", "--dtype_name", "w16a16e16", "--seq_len", "4096",
    "--batch_size_per_gpu", "1", "--total_num_gpus", "8", "--ds_zero", "1",
    "--total_num_tokens", "2000000000000", "--global_batch_size", "1024",
    "--log_level", "ERROR",
]  # fmt: skip


def _seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, capture_output=True, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    python = peer_python()
    if python is None:
        return
    peer = [str(python), *PEER_ARGS]
    compileall.compile_dir(ROOT / "mlcost", quiet=1)  # bytecode, as pip install writes it
    for command in (*COMMANDS.values(), peer):  # warm: file caches, pint's registry cache
        _seconds(command)
    ours: dict[str, list[float]] = {name: [] for name in COMMANDS}
    theirs: list[float] = []
    for _ in range(args.repeats):
        theirs.append(_seconds(peer))
        for name, command in COMMANDS.items():
            ours[name].append(_seconds(command))
    peer_median = statistics.median(theirs)
    print(f"{args.repeats} interleaved repeats, medians; peer: llm-analysis train command line")
    print(
        f"{'command':30s} {'mlcost':>9s} {'peer':>9s} {'paired ratio [95% CI]':>24s} "
        f"{'target':>7s}  verdict"
    )
    for name in COMMANDS:
        ratio, low, high = paired_ratio(ours[name], theirs)
        target = PEER_TARGETS.get(name)
        judged = "" if target is None else f"{target:6.1f}x  {verdict(low, high, target)}"
        print(
            f"{name:30s} {statistics.median(ours[name]):8.2f}s {peer_median:8.2f}s "
            f"{ratio:9.2f}x [{low:.2f}, {high:.2f}] {judged}"
        )
    for name in ("mlcost --version", "mlcost --help"):
        seconds = statistics.median(ours[name])
        print(
            f"{name}: {seconds:.3f} s against the {VERSION_TARGET_S} s target "
            f"(ratio {seconds / VERSION_TARGET_S:.2f})"
        )


if __name__ == "__main__":
    main()
