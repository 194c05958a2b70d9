"""The benchmark harness: timing statistics, the result schema, atomic writes, resumption,
and out-of-memory / unsupported records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from mlcost.bench import suites  # noqa: E402
from mlcost.bench.runner import run  # noqa: E402
from mlcost.bench.store import COLUMNS, ResultStore, record  # noqa: E402
from mlcost.bench.timer import Timing, time_callable  # noqa: E402
from tests.conftest import under_test_env  # noqa: E402


def test_timing_statistics() -> None:
    timing = Timing((1.0, 2.0, 3.0, 4.0, 100.0))
    assert timing.median == 3.0  # robust to the outlier
    assert timing.mean == 22.0
    assert timing.repeats == 5
    assert timing.p10 == pytest.approx(1.4)  # numpy linear interpolation: 1 + 0.4·(2-1)
    assert timing.p90 == pytest.approx(61.6)  # 4 + 0.6·(100-4)


def test_time_callable_warms_up_then_repeats() -> None:
    calls = []
    timing = time_callable(lambda: calls.append(1), warmup=3, repeats=5)
    assert len(calls) == 8 and timing.repeats == 5
    assert all(sample >= 0 for sample in timing.samples)
    with pytest.raises(ValueError, match="repeats"):
        time_callable(lambda: None, repeats=0)


def test_record_schema() -> None:
    row = record(
        "gemm",
        "8x8x8",
        "cpu",
        "fp32",
        {"m": 8},
        timing=Timing((1.0, 3.0)),
        flops=1024.0,
        bytes_moved=768.0,
    )
    assert list(row) != [] and set(row) == set(COLUMNS)
    assert row["median_s"] == 2.0 and row["status"] == "ok"
    assert json.loads(row["params"]) == {"m": 8}
    with pytest.raises(ValueError, match="status"):
        record("gemm", "x", "cpu", "fp32", {}, status="crashed")


def test_oom_and_unsupported_are_recorded_not_raised() -> None:
    def out_of_memory() -> dict[str, object]:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 80.00 GiB")

    def unsupported() -> dict[str, object]:
        raise RuntimeError("addmm_impl_cpu_ not implemented for 'Float8_e4m3fn'")

    oom = suites._guarded("gemm", "huge", "cuda", "bf16", {}, out_of_memory)
    assert oom is not None and oom["status"] == "oom" and "out of memory" in oom["detail"]
    missing = suites._guarded("gemm", "fp8", "cpu", "fp8", {}, unsupported)
    assert missing is not None and missing["status"] == "unsupported"
    # The transfer family needs CUDA: on the CPU every row says so and the suite goes on.
    rows = [r for r in suites.transfer("cpu", suites.PRESETS["quick"]) if r is not None]
    assert rows and {r["status"] for r in rows} == {"unsupported"}


def test_store_writes_atomically_and_resumes(tmp_path: Path) -> None:
    store = run(tmp_path / "results", families=["launch", "memory"], progress=False)
    first = store.load()
    assert len(first) == 1 + 4 * len(suites.PRESETS["quick"]["stream_elements"])
    assert (first["status"] == "ok").all()
    # Measured in the quick preset's three interleaved passes, each one attempt or more; the
    # fastest repetition kept is a repetition of one of them, never slower than its median.
    assert suites.PRESETS["quick"]["passes"] == 3 and (first["attempts"] >= 3).all()
    assert (first["best_s"] <= first["median_s"]).all()
    assert not list((tmp_path / "results").glob(".results.csv.*"))  # no temporary left
    metadata = json.loads(store.metadata.read_text())
    assert {"date", "host", "torch", "preset"} <= set(metadata)
    # Drop some rows as if the run had been interrupted, then run again: only those are
    # measured again, and nothing is duplicated.
    kept = first.iloc[: len(first) // 2]
    (tmp_path / "results" / "results.csv").write_text(kept.to_csv(index=False))
    again = run(tmp_path / "results", families=["launch", "memory"], progress=False).load()
    assert len(again) == len(first)
    assert again.iloc[: len(kept)]["median_s"].tolist() == kept["median_s"].tolist()
    assert again.iloc[: len(kept)]["attempts"].tolist() == kept["attempts"].tolist()
    assert ResultStore(tmp_path / "results").done() == ResultStore(tmp_path / "results").done()


def test_unknown_family_and_preset() -> None:
    from mlcost.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match="did you mean 'gemm'"):
        run("/tmp/never", families=["gem"], progress=False)
    with pytest.raises(UnknownNameError, match="preset"):
        run("/tmp/never", preset="quik", progress=False)


def test_a_collective_worker_process_does_not_load_pandas() -> None:
    """Each local rank of the collective benchmark is a fresh interpreter importing
    :mod:`mlcost.bench.collectives` (the spawn start method): it records rows, it never reads a
    CSV, so the 0.25 s of importing pandas is not paid per rank."""
    import subprocess
    import sys

    code = (
        "import sys, mlcost.bench.collectives\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pandas'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        env=under_test_env(),
    )  # fmt: skip
    assert done.stdout.strip() == "[]"
