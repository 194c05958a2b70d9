"""Timing done right: warm-up, synchronization, repetitions, median and spread.

On CUDA each repetition is bracketed by CUDA events and the device is synchronized (kernels are
asynchronous; wall-clock timing of a launch measures nothing). On the CPU ``time.perf_counter``
brackets each call.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Timing:
    """Seconds per call over ``repeats`` measured calls (after warm-up)."""

    samples: tuple[float, ...]

    @property
    def repeats(self) -> int:
        return len(self.samples)

    @property
    def median(self) -> float:
        return float(statistics.median(self.samples))

    @property
    def mean(self) -> float:
        return float(statistics.fmean(self.samples))

    @property
    def stdev(self) -> float:
        return float(statistics.stdev(self.samples)) if len(self.samples) > 1 else 0.0

    @property
    def p10(self) -> float:
        return float(np.percentile(self.samples, 10))

    @property
    def p90(self) -> float:
        return float(np.percentile(self.samples, 90))


def time_callable(
    function: Callable[[], Any], *, device: str = "cpu", warmup: int = 3, repeats: int = 10
) -> Timing:
    """Time ``function`` (no arguments): ``warmup`` untimed calls, then ``repeats`` timed ones."""
    if repeats < 1:
        raise ValueError(f"repeats: got {repeats}, expected at least 1")
    for _ in range(warmup):
        function()
    samples = []
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()
        for _ in range(repeats):
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record()
            function()
            stop.record()
            stop.synchronize()
            samples.append(start.elapsed_time(stop) / 1e3)
    else:
        for _ in range(repeats):
            begin = time.perf_counter()
            function()
            samples.append(time.perf_counter() - begin)
    return Timing(tuple(samples))
