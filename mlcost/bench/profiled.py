"""Profiled training steps of the reference GPT (:mod:`mlcost.bench.model`): the trace a user's
own job would give, made on this machine (the CPU in the tests, the acceptance script and the
notebook; ``scripts/profile_training.py`` makes the GPU ones the same way).

:func:`profile_steps` times ``timed`` steps without the profiler (``time.perf_counter``, or
CUDA events on a GPU), then records ``active`` steps with ``torch.profiler.profile`` (CPU and
CUDA activities, ``record_shapes``, ``profile_memory``; schedule: one warm-up step) and
exports the Chrome trace (gzipped when the path ends in ``.gz``), atomically.
"""

from __future__ import annotations

import gzip
import os
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile, schedule

from mlcost.bench.model import GPT, GPTConfig


@dataclass(frozen=True)
class ProfiledRun:
    """A profiled run: the trace file, the median step measured without the profiler (s) and
    every timed step."""

    trace: Path
    step_seconds: float
    samples: tuple[float, ...]


def profile_steps(
    config: GPTConfig,
    batch: int,
    path: str | Path,
    *,
    recompute: bool = False,
    timed: int = 5,
    active: int = 2,
    warmup: int = 2,
    device: str = "cpu",
    seed: int = 0,
) -> ProfiledRun:
    """Train the reference GPT of ``config`` (FP32, ``torch.optim.AdamW`` foreach,
    ``zero_grad(set_to_none=True)``) at micro-batch ``batch`` on ``device``: ``warmup`` steps,
    ``timed`` steps timed one by one, then ``active`` steps under the profiler written to
    ``path`` (module docstring)."""
    torch.manual_seed(seed)
    with torch.device(device):
        model = GPT(config, checkpoint=recompute).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids, targets = torch.randint(
        0, config.vocab_size, (2, batch, config.sequence_length), device=device
    )
    cuda = device.startswith("cuda")

    def step() -> None:
        model(ids, targets).backward()  # other targets: a real loss (GPT.forward)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if cuda:
            torch.cuda.synchronize()

    for _ in range(warmup):
        step()
    samples = []
    for _ in range(timed):
        start = time.perf_counter()
        step()
        samples.append(time.perf_counter() - start)
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.json")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(
        activities=activities,
        schedule=schedule(wait=0, warmup=1, active=active, repeat=1),
        on_trace_ready=lambda done: done.export_chrome_trace(str(temporary)),
        record_shapes=True,
        profile_memory=True,
    ) as profiler:
        for _ in range(active + 1):
            step()
            profiler.step()
    data = temporary.read_bytes()
    temporary.unlink()
    staging = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    staging.write_bytes(gzip.compress(data) if target.suffix == ".gz" else data)
    os.replace(staging, target)
    return ProfiledRun(target, statistics.median(samples), tuple(samples))


__all__ = ["ProfiledRun", "profile_steps"]
