"""The quick suite on this machine's CPU, calibration and validation: what is deterministic.

How close the calibrated predictions come to the measurements (the issue's targets: GEMMs within
15%, collectives R^2 > 0.9, the end-to-end step within 25%) depends on timing noise, so it is
measured by ``benchmarks/calibration_cpu.py``, which prints the errors and R^2 of one run, and not
asserted here (the project's rule: speed and timing are measured by benchmark scripts, never by
timed unit tests).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mlcost.bench.model import GPT, GPTConfig, spec_of  # noqa: E402
from mlcost.bench.runner import run  # noqa: E402
from mlcost.bench.store import read_results_csv  # noqa: E402
from mlcost.calibrate import calibrate, check_consistency, isotonic_increasing  # noqa: E402
from mlcost.layout import Layout  # noqa: E402
from mlcost.specs import Accelerator, load_spec_text  # noqa: E402
from mlcost.timing import step_time  # noqa: E402
from mlcost.validate import summary, validate  # noqa: E402
from mlcost.workload import TrainingConfig  # noqa: E402


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The quick suite, measured again (up to three times) while calibration would refuse it
    as disturbed by other work (:func:`mlcost.calibrate.check_consistency`: the test suite
    itself loads the machine)."""
    for _ in range(3):
        directory = tmp_path_factory.mktemp("bench")
        # one pass: what is asserted here does not depend on the timings' noise
        run(directory, device="cpu", preset="quick", progress=False, passes=1)
        if not check_consistency(read_results_csv(directory)):
            break
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


def test_validation_report_before_and_after(results: Path) -> None:
    profile = calibrate(results)
    report = validate(results, profile, profile)
    assert {"gemm", "memory", "launch", "e2e"} <= set(report["family"])
    for column in ("measured_s", "predicted_before_s", "predicted_after_s"):
        assert (report[column] > 0).all()
    # The error is predicted / measured - 1, before (default efficiencies) and after.
    expected = report["predicted_after_s"] / report["measured_s"] - 1
    assert np.allclose(report["error_after"], expected)
    table = summary(report)
    assert list(table.columns) == [
        "median |error_before|",
        "worst |error_before|",
        "median |error_after|",
        "worst |error_after|",
    ]
    # The launch benchmark is what calibration takes the launch overhead from.
    assert float(table.loc["launch", "median |error_after|"]) == pytest.approx(0.0, abs=1e-9)


def test_collectives_are_fitted(results: Path) -> None:
    profile = calibrate(results)
    assert profile.measured is not None
    fits = {fit.collective: fit for fit in profile.measured.collectives}
    assert set(fits) >= {"all_reduce", "all_gather", "reduce_scatter"}
    for fit in fits.values():
        assert fit.alpha.to("s").magnitude >= 0
        assert fit.bandwidth.to("B/s").magnitude > 0
        assert fit.r_squared <= 1.0


def test_profile_is_accepted_in_place_of_a_gpu(results: Path) -> None:
    profile = calibrate(results)
    predicted = step_time(
        spec_of(GPTConfig()),
        TrainingConfig(sequence_length=256, precision="fp32"),
        profile,
        Layout(micro_batch_size=2),
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


def test_a_cpu_profile_plans_a_cpu_run(results: Path, tmp_path: Path) -> None:
    """Issue 62: ``mlcost plan`` refused a calibrated CPU profile ("no tdp in its spec"). Its
    power is now the stated assumption ``Assumptions.measured_host_power``."""
    from mlcost import Plan
    from mlcost.assumptions import Assumptions

    profile = calibrate(results)
    assert profile.tdp == Assumptions().measured_host_power
    path = tmp_path / "cpu.yaml"
    path.write_text(profile.to_yaml())
    config = TrainingConfig(sequence_length=256, precision="fp32")
    model = spec_of(GPTConfig())
    assert Plan(model, gpu=str(path), gpus=1, tokens=1e6, config=config).energy()["energy"] > 0
