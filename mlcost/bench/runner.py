"""Run benchmark families into a :class:`ResultStore`, resuming where a previous run stopped."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from mlcost.bench.store import FAMILY_NAMES, ResultStore, check_request, key_of
from mlcost.bench.suites import FAMILIES, PRESETS
from mlcost.errors import MlcostError


def run(
    directory: str | Path,
    *,
    device: str = "cpu",
    preset: str = "quick",
    families: Iterable[str] | None = None,
    formats: list[str] | None = None,
    progress: bool = True,
    passes: int | None = None,
) -> ResultStore:
    """Run ``families`` (all by default) on ``device`` and store the results in ``directory``.

    Measurements already in the store are skipped, so rerunning an interrupted run resumes it.
    Results are written after each measurement (atomically).

    ``passes`` (default: the preset's) interleaves repeated trials: after the first pass, the
    families of :data:`INTERLEAVED` run again ``passes - 1`` times, each measurement of this
    run made once more per pass, and a measurement keeps the pass with the fastest repetition
    (:func:`_quieter`). A burst of other work on a shared machine lasts seconds and slows every
    measurement it overlaps; with the passes a few minutes apart it falls on one pass of each
    measurement, not on all the repetitions of some.
    """
    check_request(device, preset, families, formats)
    chosen = list(families or FAMILIES)
    if device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise MlcostError("device: got 'cuda', but PyTorch sees no CUDA device here")
    _check_resume(Path(directory), preset, device)
    settings = {**PRESETS[preset], "clock": clock_of(device)}
    store = ResultStore(directory)
    store.write_metadata(
        {"preset": preset, "device": device, "families": chosen, "clock": settings["clock"]}
    )
    done = store.done()
    console = Console(stderr=True, highlight=False)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("family {task.completed:.0f}/{task.total:.0f}"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    started = time.perf_counter()
    fresh: set[tuple[str, str, str, str, str]] = set()
    with Progress(*columns, console=console, disable=not progress, transient=True) as bar:
        task = bar.add_task("benchmarks", total=len(chosen))
        for index, family in enumerate(chosen):
            options: dict[str, Any] = {"formats": formats} if family == "gemm" else {}
            count, family_start = 0, time.perf_counter()
            for row in FAMILIES[family](device, settings, skip=done.__contains__, **options):
                if row is None or key_of(row) in done:
                    continue
                store.append([row])
                fresh.add(key_of(row))
                count += 1
                bar.update(task, description=f"{family}: {row['name']}")
            bar.update(task, advance=1)
            if progress:
                elapsed = time.perf_counter() - started
                remaining = elapsed / (index + 1) * (len(chosen) - index - 1)
                console.print(
                    f"[{index + 1}/{len(chosen)}] {family}: {count} measured in "
                    f"{time.perf_counter() - family_start:.1f} s (elapsed {elapsed:.0f} s, "
                    f"about {remaining:.0f} s left)"
                )
    for _ in range(max(passes or settings.get("passes", 1), 1) - 1):
        for family in (f for f in chosen if f in INTERLEAVED):
            options = {"formats": formats} if family == "gemm" else {}
            for row in FAMILIES[family](
                device, settings, skip=lambda key: key not in fresh, **options
            ):
                if row is not None and key_of(row) in fresh:
                    store.replace(row, _quieter)
    return store


def clock_of(device: str) -> str:
    """How the measurements are timed (:data:`mlcost.bench.timer.CLOCKS`): by the CPU time of
    the process on a CPU run with one thread (``torch.set_num_threads(1)``, or
    ``OMP_NUM_THREADS=1``), where it is the time the work takes on a core of its own however
    busy the machine is; by the wall clock otherwise."""
    if device != "cpu":
        return "wall"
    import torch

    return "cpu" if torch.get_num_threads() == 1 else "wall"


#: The families measured again in every pass (``run(passes=...)``): those whose single
#: timings calibration fits (the collectives, a fit over many payloads, and the host-device
#: copies are measured once).
INTERLEAVED = tuple(name for name in FAMILY_NAMES if name not in ("transfer", "collective"))


def _quieter(stored: dict[str, Any], again: dict[str, Any]) -> dict[str, Any]:
    """Of two passes of one measurement, the one with the faster best repetition (what
    calibration fits, :func:`mlcost.bench.store.measured_seconds`), its ``attempts`` the
    attempts of both; a pass that failed never replaces one that did not."""
    if again.get("status") != "ok":
        return stored
    if stored.get("status") != "ok":
        return again
    kept = again if float(again["best_s"]) < float(stored["best_s"]) else stored
    return {**kept, "attempts": int(stored["attempts"] or 0) + int(again["attempts"] or 0)}


def _check_resume(directory: Path, preset: str, device: str) -> None:
    """A results folder holds one preset on one device: resuming it with another is refused
    (the metadata would describe rows it did not measure)."""
    metadata = directory / "metadata.json"
    if not metadata.is_file():
        return
    try:
        previous = json.loads(metadata.read_text(encoding="utf-8"))
    except (ValueError, OSError):
        return
    for field, value in (("preset", preset), ("device", device)):
        old = previous.get(field) if isinstance(previous, dict) else None
        if old is not None and old != value:
            flag = f"--{value}" if field == "preset" else f"--device {value}"
            raise MlcostError(
                f"--out: {directory} holds {field} {old!r} results, not {value!r}; resume it "
                f"with the same {field}, or give another --out for {flag}"
            )
