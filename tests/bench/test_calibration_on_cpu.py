"""The quick suite on this machine's CPU, calibration, and prediction error before and after.

Targets (issue 6): after calibration, GEMM times within 15% (median over the sweep), the gloo
collectives' alpha-beta fits with R^2 > 0.9, and the end-to-end step of the small transformer
within 25%; the error before calibration is reported beside. Measured numbers vary with the
machine; these bounds are the acceptance criteria, not fitted values.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mlcost.bench.model import GPT, GPTConfig, spec_of  # noqa: E402
from mlcost.bench.runner import run  # noqa: E402
from mlcost.calibrate import calibrate, isotonic_increasing  # noqa: E402
from mlcost.specs import Accelerator, load_spec_text  # noqa: E402
from mlcost.timing import step_time  # noqa: E402
from mlcost.validate import summary, validate  # noqa: E402
from mlcost.workload import TrainingConfig  # noqa: E402


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("bench")
    run(directory, device="cpu", preset="quick", progress=False)
    return directory


def test_calibration_is_deterministic_and_monotone(results: Path) -> None:
    first, second = calibrate(results), calibrate(results)
    assert first == second and first.to_yaml() == second.to_yaml()
    assert first.measured is not None
    for key, points in first.measured.gemm_efficiency.items():
        efficiencies = [p.efficiency for p in points]
        assert efficiencies == sorted(efficiencies), key
    # The profile is the catalog's schema: it round-trips and every number has a source.
    again = load_spec_text(first.to_yaml())
    assert isinstance(again, Accelerator) and again == first
    assert first.unsourced_paths() == []


def test_prediction_error_before_and_after(results: Path) -> None:
    profile = calibrate(results)
    report = validate(results, profile, profile)
    table = summary(report)
    print("\n" + table.to_string())  # the numbers for the closing note (pytest -s)
    gemm = report[report["family"] == "gemm"]
    assert gemm["error_after"].abs().median() < 0.15
    e2e = report[report["family"] == "e2e"]
    assert len(e2e) == 1 and abs(float(e2e["error_after"].iloc[0])) < 0.25
    assert report["error_before"].notna().all()  # the contrast is always reported


def test_collective_fits_explain_the_sweep(results: Path) -> None:
    profile = calibrate(results)
    assert profile.measured is not None
    fits = {fit.collective: fit for fit in profile.measured.collectives}
    assert set(fits) >= {"all_reduce", "all_gather", "reduce_scatter"}
    for name, fit in fits.items():
        assert fit.r_squared > 0.9, (name, fit.r_squared)


def test_profile_is_accepted_in_place_of_a_gpu(results: Path) -> None:
    profile = calibrate(results)
    predicted = step_time(
        spec_of(GPTConfig()),
        TrainingConfig(micro_batch_size=2, sequence_length=256, precision="fp32"),
        profile,
    )
    assert predicted.total.magnitude > 0


def test_reference_gpt_matches_its_spec() -> None:
    config = GPTConfig(vocab_size=512, sequence_length=64, layers=2, hidden=64, heads=4)
    model = GPT(config)
    assert spec_of(config).parameter_count == sum(p.numel() for p in model.parameters())


def test_isotonic_regression_by_hand() -> None:
    # Pool adjacent violators: [1, 3, 2, 4] -> [1, 2.5, 2.5, 4].
    assert isotonic_increasing([1, 3, 2, 4]).tolist() == [1, 2.5, 2.5, 4]
    assert np.all(np.diff(isotonic_increasing([5, 1, 4, 2, 3])) >= 0)
