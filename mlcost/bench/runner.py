"""Run benchmark families into a :class:`ResultStore`, resuming where a previous run stopped."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.progress import Progress

from mlcost.bench.store import ResultStore, key_of
from mlcost.bench.suites import FAMILIES, PRESETS
from mlcost.errors import MlcostError, UnknownNameError


def run(
    directory: str | Path,
    *,
    device: str = "cpu",
    preset: str = "quick",
    families: Iterable[str] | None = None,
    formats: list[str] | None = None,
    progress: bool = True,
) -> ResultStore:
    """Run ``families`` (all by default) on ``device`` and store the results in ``directory``.

    Measurements already in the store are skipped, so rerunning an interrupted run resumes it.
    Results are written after each measurement (atomically).
    """
    if preset not in PRESETS:
        raise UnknownNameError("preset", preset, PRESETS)
    chosen = list(families or FAMILIES)
    for family in chosen:
        if family not in FAMILIES:
            raise UnknownNameError("benchmark family", family, FAMILIES)
    if device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise MlcostError("device: got 'cuda', but PyTorch sees no CUDA device here")
    store = ResultStore(directory)
    store.write_metadata({"preset": preset, "device": device, "families": chosen})
    done = store.done()
    settings = PRESETS[preset]
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task("benchmarks", total=None)
        for family in chosen:
            options: dict[str, Any] = {"formats": formats} if family == "gemm" else {}
            for row in FAMILIES[family](device, settings, skip=done.__contains__, **options):
                if row is None or key_of(row) in done:
                    continue
                store.append([row])
                bar.update(task, advance=1, description=f"{family} {row['name']}")
    return store
