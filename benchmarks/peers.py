"""mlcost against llm-analysis 0.2.2 (the closest peer) on the same configuration, in one
process, interleaved, medians: ``python benchmarks/peers.py [--repeats 30]``.

Configuration (issue 17): Llama-2-7B, sequence 4096, 8x H100 SXM 80GB, ZeRO-1, micro-batch 1.
llm-analysis answers memory, step time and time to train in one ``train()`` call; mlcost is timed
per question (memory, one-GPU step, 8-GPU step with communication, ``Plan.train()``, and
``Plan.train()`` with its figures read), each on a fresh object so nothing is cached between
repeats. ``Plan.train()`` evaluates the chain's numbers and leaves its figures (each number in
its unit with its formula, the numbers substituted and its band) to their first read; the peer's
call formats its readable summary every time (``get_readable_summary_dict``, evaluated as the
argument of a ``logger.info`` even when logging is off), so the row with the figures read is the
like-for-like one. llm-analysis is imported from its own virtual
environment (``benchmarks/.peer-venv``, created on first use with ``pip install
llm-analysis==0.2.2``; its site-packages go at the end of ``sys.path`` so shared packages are
mlcost's); without network or pip the script says so and stops.

Each question's call is paired with one peer call made in the same instant of the machine,
whose speed drifts. Each timed call follows an untimed call of the same function, so both sides
are timed in their own warm state, never in the cache state the other side left behind (timing
a call right after the other library's showed a bias of its own: the peer ran faster after the
small memory question than after ``Plan.train()``, 6-11% of the paired ratio at stop 40), and
the pair's order alternates between repeats. The script prints the ratio of the medians (the
peer's samples of all questions pooled) and, per question, the median of the paired ratios with
a bootstrap 95% interval, judged against issue 17's target.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import subprocess
import sys
import time
import venv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

PEER = "llm-analysis==0.2.2"
PEER_HOME = Path(__file__).resolve().parent / ".peer-venv"


def peer_python() -> Path | None:
    """The Python of the peer's own environment (``benchmarks/.peer-venv``), created with
    llm-analysis installed on first use; None (with the reason printed) where it cannot be."""
    python = PEER_HOME / "bin" / "python"
    if not python.exists():
        print(f"installing {PEER} into {PEER_HOME} ...", flush=True)
        try:
            venv.EnvBuilder(with_pip=True).create(PEER_HOME)
            subprocess.run(
                [str(python), "-m", "pip", "install", "--quiet", PEER], check=True, timeout=900
            )
        except (OSError, subprocess.SubprocessError) as error:
            print(f"skipped: cannot install {PEER} ({error})")
            return None
    return python


def _peer_train() -> Callable[..., Any] | None:
    try:
        from llm_analysis.analysis import train  # type: ignore[import-not-found]

        return train
    except ImportError:
        pass
    python = peer_python()
    if python is None:
        return None
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    sys.path.append(site)
    try:
        from llm_analysis.analysis import train

        return train
    except ImportError as error:
        print(f"skipped: {PEER} does not import here ({error})")
        return None


def _median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


#: Issue 17's acceptance: mlcost's time over llm-analysis's one ``train()`` call, per question.
TARGETS = {
    "memory": 1.0,
    "step time, 1 GPU": 1.0,
    "step time, 8 GPUs with communication": 2.0,
    "time to train (Plan.train())": 2.0,
    "time to train, figures read": 2.0,
}


def paired_ratio(
    ours: list[float], theirs: list[float], resamples: int = 2000
) -> tuple[float, float, float]:
    """The median of the paired ratios ``ours[i] / theirs[i]`` (each call against the peer's
    call right after it, so a drift of the machine's speed cancels) and a percentile-bootstrap
    95% interval of that median (Efron and Tibshirani 1993, ch. 13; a fixed seed, so the same
    samples give the same interval)."""
    ratios = np.asarray(ours) / np.asarray(theirs)
    rng = np.random.default_rng(17)
    medians = np.median(rng.choice(ratios, size=(resamples, ratios.size)), axis=1)
    low, high = np.percentile(medians, [2.5, 97.5])
    return float(np.median(ratios)), float(low), float(high)


def verdict(low: float, high: float, target: float) -> str:
    """``met`` when the whole interval is at or below the target, ``not met`` when it is above,
    else ``undecided`` (the target lies inside the interval: more repeats, or parity)."""
    if high <= target:
        return "met"
    if low > target:
        return "not met"
    return "undecided"


def peer_call(train: Callable[..., Any]) -> Callable[[], Any]:
    """llm-analysis's one ``train()`` call on issue 17's configuration (module docstring)."""

    def peer() -> Any:
        return train(
            model_name="NousResearch_Llama-2-7b-hf", gpu_name="h100-sxm-80gb",
            dtype_name="w16a16e16", log_level="ERROR", seq_len=4096, batch_size_per_gpu=1,
            total_num_gpus=8, ds_zero=1, flops_efficiency=0.5, hbm_memory_efficiency=0.9,
            total_num_tokens=int(2e12), global_batch_size=1024,
        )  # fmt: skip

    return peer


def interleaved(
    calls: dict[str, Callable[[], Any]], peer: Callable[[], Any], repeats: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Seconds of each of ``calls`` and of the ``peer`` call paired with it, ``repeats`` times
    (module docstring: every call warmed first; each timed call after an untimed call of
    itself; the pair's order alternating)."""
    for call in (*calls.values(), peer):  # warm: imports, catalog, caches of the libraries
        call()
    ours: dict[str, list[float]] = {name: [] for name in calls}
    paired: dict[str, list[float]] = {name: [] for name in calls}  # the peer's, per call
    for repeat in range(repeats):
        for name, call in calls.items():
            pair = (call, peer) if repeat % 2 == 0 else (peer, call)
            for function in pair:
                function()  # untimed: the timed call runs in its own warm state
                start = time.perf_counter()
                function()
                elapsed = time.perf_counter() - start
                (ours[name] if function is call else paired[name]).append(elapsed)
    return ours, paired


def setup(description: str) -> tuple[int, Callable[[], Any]] | None:
    """The ``--repeats`` argument and the peer's call (None where llm-analysis is missing: the
    reason is printed); mlcost's warnings and logs off, as the peer's are."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    train = _peer_train()
    if train is None:
        return None
    quiet()
    return args.repeats, peer_call(train)


def quiet() -> None:
    """mlcost's logs off, as the peer's are (``log_level="ERROR"``): what every timing here runs
    under."""
    logging.disable(logging.CRITICAL)


def configuration() -> tuple[Any, Any, Any]:
    """mlcost's side of the peer's call: Llama-2-7B, the H100 SXM 80GB, sequence 4096."""
    import mlcost
    from mlcost import TrainingConfig

    model, gpu = mlcost.model("llama-2-7b"), mlcost.accelerator("h100-sxm5-80gb")
    return model, gpu, TrainingConfig(sequence_length=4096)


def questions() -> dict[str, Callable[[], Any]]:
    """mlcost's four calls on issue 17's configuration (module docstring), by question, each on
    fresh objects: what this script times against the peer and ``revisions.py`` between two
    revisions."""
    import mlcost
    from mlcost import Layout, Plan
    from mlcost.memory import memory_breakdown
    from mlcost.parallel import multi_gpu_step_time
    from mlcost.timing import step_time

    model, gpu, config = configuration()
    layout = Layout(dp=8, zero_stage=1, micro_batch_size=1, global_batch_size=1024)
    hardware = mlcost.system("dgx-h100", gpus=8)
    return {
        "memory": lambda: memory_breakdown(model, config, gpu, layout).total,
        "step time, 1 GPU": lambda: step_time(model, config, gpu, Layout(micro_batch_size=1)),
        "step time, 8 GPUs with communication": lambda: multi_gpu_step_time(
            model, config, hardware, layout
        ),
        "time to train (Plan.train())": lambda: Plan(
            model, system="dgx-h100", gpus=8, layout=layout, config=config, tokens=2e12
        ).train(),
        # The answer's figures written too (each number in its unit, with its formula, the
        # numbers substituted and its band), which Plan.train() leaves to their first read:
        # the like-for-like row, as llm-analysis formats its readable summary in every call.
        "time to train, figures read": lambda: (
            Plan(model, system="dgx-h100", gpus=8, layout=layout, config=config, tokens=2e12)
            .train()
            .figures()
        ),
    }


def main() -> None:
    found = setup(__doc__.splitlines()[0])
    if found is None:
        return
    repeats, peer = found
    ours, paired = interleaved(questions(), peer, repeats)
    theirs = [sample for samples in paired.values() for sample in samples]
    peer_us = _median_us(theirs)
    print(f"Llama-2-7B, seq 4096, 8x H100, ZeRO-1; {repeats} interleaved repeats, medians")
    print(
        f"{'question':38s} {'mlcost':>10s} {'llm-analysis':>13s} {'ratio':>6s} "
        f"{'paired [95% CI]':>20s} {'target':>7s}  verdict"
    )
    for name, samples in ours.items():
        us = _median_us(samples)
        ratio, low, high = paired_ratio(samples, paired[name])
        target = TARGETS[name]
        print(
            f"{name:38s} {us:7,.0f} us {peer_us:10,.0f} us {us / peer_us:5.2f}x "
            f"{ratio:6.2f}x [{low:.2f}, {high:.2f}] {target:6.1f}x  {verdict(low, high, target)}"
        )
    print(
        "ratio: median over median (the peer's samples pooled); paired: the median of each call's "
        "time over the peer call paired with it (each timed after an untimed call of itself, "
        "the order alternating), with a bootstrap 95% interval of that median"
    )


if __name__ == "__main__":
    main()
