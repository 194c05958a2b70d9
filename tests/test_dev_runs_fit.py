"""Every published training run of the validation set ran on its GPUs (its source reports its
throughput), so mlcost's memory model must say it fits, with the published layout, under both
memory profiles (issue 61: "no dev run that ran is called does not fit")."""

from __future__ import annotations

import pytest

from mlcost.memory import memory_breakdown
from mlcost.published import PublishedRun, training_runs
from mlcost.systems import system

RUNS = training_runs()


def test_every_training_family_row_has_its_run() -> None:
    # 9 weak-scaling rows and 2 strong-scaling points (Megatron-LM README), 9 llm-foundry rows,
    # 8 Korthikanti et al. Table 5 rows: the 28 step-time rows of docs/validation.md.
    assert len(RUNS) == 28
    assert len({run.id for run in RUNS}) == 28


@pytest.mark.parametrize("run", RUNS, ids=[run.id for run in RUNS])
@pytest.mark.parametrize("profile", ["pytorch", "megatron"])
def test_a_run_that_ran_fits(run: PublishedRun, profile: str) -> None:
    gpu = system(run.system).accelerator
    memory = memory_breakdown(
        run.model, run.config, gpu, run.layout, profile=profile,  # type: ignore[arg-type]
        implementation=run.implementation,
    )  # fmt: skip
    assert memory.fits(), f"{run.id}: {memory.total.to('GiB'):.1f} predicted"
