"""Timing done right: warm-up, synchronization, repetitions, median, best and spread.

On CUDA each repetition is bracketed by CUDA events and the device is synchronized (kernels are
asynchronous; wall-clock timing of a launch measures nothing). On the CPU ``time.perf_counter``
brackets each call.

On a shared machine other work slows some repetitions and never speeds one up, so the fastest
repetition (``best``) is the estimate of what the device itself does (the practice of
``timeit``, whose documentation recommends the minimum, and of STREAM, which reports the best of
its trials: McCalpin 1995). A measurement whose median is more than :data:`DISTURBED` times its
best was disturbed while it ran; ``time_callable(attempts=N)`` measures it again, up to ``N``
times, and keeps the quietest attempt (the lowest median).
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
    #: How many times the measurement was made (the samples are the quietest attempt's).
    attempts: int = 1

    @property
    def repeats(self) -> int:
        return len(self.samples)

    @property
    def best(self) -> float:
        """The fastest repetition (see the module docstring)."""
        return float(min(self.samples))

    @property
    def disturbance(self) -> float:
        """Median over best: 1 for a measurement nothing disturbed."""
        return self.median / self.best if self.best > 0 else 1.0

    @property
    def disturbed(self) -> bool:
        return self.disturbance > DISTURBED

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


#: A measurement whose median is more than this many times its fastest repetition was disturbed
#: by other work on the machine. On an idle machine this repository's CPU benchmarks of a
#: millisecond or more measured median/best 1.02 to 1.10 (issue 62), so 1.25 leaves room for a
#: quiet machine's own jitter while catching a core taken away for part of the measurement.
DISTURBED = 1.25


def _perf_counter() -> float:
    return time.perf_counter()


def _process_time() -> float:
    return time.process_time()


#: The clocks a CPU measurement can be read by. ``wall``: ``time.perf_counter``. ``cpu``:
#: ``time.process_time``, the CPU time the process used (user and system, page faults
#: included). With one thread, that is what a call takes on a core of its own: the time other
#: processes hold the core is not counted. A machine busy with other work all the time (a
#: shared machine's load average above its cores) leaves no quiet repetition for ``best`` to
#: find, so a one-thread benchmark on it is read by the CPU clock. With several threads it
#: would count time spent waiting on each other, so it is for one thread only.
CLOCKS: dict[str, Callable[[], float]] = {"wall": _perf_counter, "cpu": _process_time}


def time_callable(
    function: Callable[[], Any],
    *,
    device: str = "cpu",
    warmup: int = 3,
    repeats: int = 10,
    attempts: int = 1,
    clock: str = "wall",
) -> Timing:
    """Time ``function`` (no arguments): ``warmup`` untimed calls, then ``repeats`` timed ones;
    while the repetitions are :attr:`Timing.disturbed`, measure again (``attempts`` in all) and
    keep the attempt with the lowest median. ``clock`` is ``"wall"`` or, on the CPU,
    ``"cpu"`` (:data:`CLOCKS`)."""
    if repeats < 1:
        raise ValueError(f"repeats: got {repeats}, expected at least 1")
    if attempts < 1:
        raise ValueError(f"attempts: got {attempts}, expected at least 1")
    if clock not in CLOCKS or (clock == "cpu" and device.startswith("cuda")):
        raise ValueError(f"clock: got {clock!r}, expected 'wall', or 'cpu' on the CPU")
    for _ in range(warmup):
        function()
    quietest = Timing(_samples(function, device, repeats, CLOCKS[clock]))
    made = 1
    while quietest.disturbed and made < attempts:
        again = Timing(_samples(function, device, repeats, CLOCKS[clock]))
        made += 1
        quietest = min(quietest, again, key=lambda timing: timing.median)
    return Timing(quietest.samples, attempts=made)


def _samples(
    function: Callable[[], Any], device: str, repeats: int, now: Callable[[], float]
) -> tuple[float, ...]:
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
            begin = now()
            function()
            samples.append(now() - begin)
    return tuple(samples)
