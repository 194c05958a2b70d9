"""Each mechanism of issue 61 measured on the training rows of the published validation set:
the uncorrected prediction (before any implementation's calibration) with every mechanism, with
each one switched off in turn, and with all of them off, printed as the median |error|, the
worst row and how many rows are predicted too fast, overall and per family; then every row.

Mechanisms (each a field of the data, switched off here by changing that data only):

* ``sustained clock``: an H100's GEMMs at the clock it sustains under load at 700 W
  (``measured.gemm_sustained`` of ``specs/accelerators/h100-sxm5-80gb.yaml``);
* ``SP all-gather redone``: Megatron's sequence-parallel all-gather redone in backward
  (``sequence_parallel_regather`` of the implementation profile);
* ``pipeline sends exposed``: every micro-batch's point-to-point sends on the critical path
  (``pipeline_sends_exposed``);
* ``compute taken by collectives``: the SMs NCCL takes while a collective hides behind compute
  (``collectives_take_compute``);
* ``compute + memory summed`` (rejected, shown for the record): every operator's compute and
  memory time added (``mode="no-overlap"``) instead of the larger of the two.

Run: ``.venv/bin/python benchmarks/mechanisms.py`` (about ten seconds).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

import numpy as np

import mlcost.published as published
from mlcost.implementation import Software
from mlcost.implementation import implementation as implementation_of
from mlcost.roofline import Ceilings

#: The profile fields of each mechanism and their value when it is switched off.
PROFILE_MECHANISMS: dict[str, dict[str, Any]] = {
    "SP all-gather redone": {"sequence_parallel_regather": False},
    "pipeline sends exposed": {"pipeline_sends_exposed": False},
    "compute taken by collectives": {"collectives_take_compute": False},
}
MECHANISMS = ("sustained clock", *PROFILE_MECHANISMS)


@contextmanager
def switched(off: tuple[str, ...] = (), summed: bool = False) -> Iterator[None]:
    """The validation with the mechanisms named in ``off`` switched off (``summed``: every
    operator's compute and memory time added)."""
    update: dict[str, Any] = {}
    for name in off:
        update.update(PROFILE_MECHANISMS.get(name, {}))
    step = published.multi_gpu_step_time  # type: ignore[attr-defined]

    def timed(*args: Any, **kwargs: Any) -> Any:
        software = implementation_of(kwargs.get("implementation"))
        kwargs["implementation"] = Software(
            spec=software.spec.model_copy(update=update), kernels=software.kernels
        )
        if summed:
            kwargs["mode"] = "no-overlap"
        return step(*args, **kwargs)

    with ExitStack() as stack:
        stack.enter_context(mock.patch.object(published, "multi_gpu_step_time", timed))
        if "sustained clock" in off:
            burst: Callable[..., Ceilings] = Ceilings.from_accelerator.__func__  # type: ignore[attr-defined]

            def at_burst(
                cls: type, /, gpu: Any, format: str = "bf16", **overrides: Any
            ) -> Ceilings:
                return burst(cls, gpu, format, **{**overrides, "sustained_curve": ()})

            stack.enter_context(
                mock.patch.object(Ceilings, "from_accelerator", classmethod(at_burst))
            )
        yield


def uncorrected_errors(off: tuple[str, ...] = (), summed: bool = False) -> dict[str, float]:
    """Per training row: the uncorrected throughput error (+: too fast), computed in a fresh
    interpreter (a resolved system keeps the ceilings it was built with)."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(_errors, off, summed).result()


def _errors(off: tuple[str, ...], summed: bool) -> dict[str, float]:
    with switched(off, summed):
        result = published.validate_published()
    return {
        r.id: float(r.uncorrected_speed_error)
        for r in result.rows
        if r.family in published.TRAINING_FAMILIES and r.uncorrected_speed_error is not None
    }


def summary(label: str, errors: dict[str, float]) -> str:
    values = np.array(list(errors.values()))
    parts = [
        f"{label:38s} median {100 * np.median(np.abs(values)):5.1f} %  worst "
        f"{100 * values[np.argmax(np.abs(values))]:+6.1f} %  too fast "
        f"{int(np.sum(values > 0)):2d}/{values.size}"
    ]
    for family in published.TRAINING_FAMILIES:
        mine = np.array([e for i, e in errors.items() if family.split("-")[0] in i])
        parts.append(f"{family} {100 * np.median(np.abs(mine)):4.1f}")
    return " | ".join(parts)


def main() -> None:
    every = uncorrected_errors()
    none = uncorrected_errors(MECHANISMS)
    print("uncorrected training rows (before calibration); + = predicted too fast\n")
    print(summary("no mechanism (issue 61's baseline)", none))
    runs = {}
    for name in MECHANISMS:
        runs[name] = uncorrected_errors((name,))
        print(summary(f"all but {name}", runs[name]))
    print(summary("all mechanisms (shipped)", every))
    summed = uncorrected_errors(summed=True)
    print(summary("all + compute and memory summed", summed))
    print("\nper mechanism: median |error| without it -> with it (all others on)")
    for name, without in runs.items():
        before = np.median(np.abs(list(without.values())))
        after = np.median(np.abs(list(every.values())))
        moved = sum(abs(every[i]) < abs(without[i]) for i in every)
        print(f"  {name:30s} {100 * before:5.1f} % -> {100 * after:5.1f} %  ({moved} rows closer)")
    print(
        "\nrow                                          none    all   "
        + "  ".join(f"-{n.split()[0][:6]:6s}" for n in MECHANISMS)
        + "   summed"
    )
    for row, value in every.items():
        print(
            f"{row:44s} {100 * none[row]:+6.1f} {100 * value:+6.1f} "
            + " ".join(f"{100 * runs[n][row]:+7.1f}" for n in MECHANISMS)
            + f" {100 * summed[row]:+7.1f}"
        )


if __name__ == "__main__":
    main()
