"""Host work of an eager training step on a host-executed device (a CPU, issue 62): the
operations a for-loop optimizer dispatches, counted by PyTorch's own dispatcher; the page faults
of fresh buffers at or above glibc's mmap threshold, counted by the kernel, and the buffers of a
model that reach it, derived by hand from mallopt(3); the first-touch rate fitted from the bench's
host family. Nothing here is timed."""

from __future__ import annotations

import platform
import resource
import subprocess
import sys
from typing import Any

import pandas as pd
import pytest

from mlcost.assumptions import ASSUMPTION_SOURCES, Assumptions
from mlcost.bench.model import GPT, GPTConfig, spec_of
from mlcost.bench.store import COLUMNS, record
from mlcost.calibrate import FIRST_TOUCH_BOUNDS, fit_first_touch
from mlcost.errors import MlcostError
from mlcost.implementation import HOST_IMPLEMENTATION, implementation
from mlcost.layout import Layout
from mlcost.specs import Accelerator, spec_from_dict
from mlcost.timing import step_time
from mlcost.validate import bench_training

torch = pytest.importorskip("torch")

MIB = 2**20


def _cpu(first_touch: str | None = "2 GB/s") -> Accelerator:
    """A CPU profile as ``mlcost calibrate`` writes one, its first-touch rate given."""
    measured: dict[str, Any] = {
        "measured_on": "cpu",
        "date": "2026-11-27",
        "launch_overhead": "3 us",
    }
    if first_touch:
        measured |= {"first_touch_bandwidth": first_touch, "mmap_threshold": "32 MiB"}
    spec = spec_from_dict(
        {
            "kind": "accelerator",
            "name": "test-cpu",
            "vendor": "measured",
            "memory_capacity": "64 GiB",
            "memory_bandwidth": "20 GB/s",
            "tdp": "125 W",
            "peak_compute": [{"format": "fp32", "engine": "vector", "dense": "100 GFLOP/s"}],
            "measured": measured,
            "references": {"test": "a profile written by hand for this test"},
            "sources": {"*": "test"},
        }
    )
    assert isinstance(spec, Accelerator)
    return spec


def _loss_row(vocab: int, micro_batch: int, gpu: Accelerator, software: str = HOST_IMPLEMENTATION):
    config = GPTConfig(vocab_size=vocab, sequence_length=256, layers=2, hidden=256, heads=4)
    step = step_time(
        spec_of(config),
        bench_training(256, "fp32"),
        gpu,
        Layout(micro_batch_size=micro_batch),
        implementation=software,
    )
    return step, next(row for row in step.rows if row.kind == "loss")


class _Dispatched(torch.utils._python_dispatch.TorchDispatchMode):
    """Counts the aten operations PyTorch's dispatcher runs (its own count, not mlcost's)."""

    count: int

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        self.count += func.namespace == "aten"  # not the profiler's record_function marks
        return func(*args, **(kwargs or {}))


def test_a_cpu_adamw_dispatches_the_operations_per_tensor_the_profile_counts() -> None:
    # A real tiny model on the CPU: torch.optim.AdamW takes its for-loop path there, and the
    # dispatcher counts what one step runs per parameter tensor.
    torch.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=64, sequence_length=8, layers=1, hidden=16, heads=2))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ids = torch.randint(0, 64, (2, 8))
    model(ids).backward()
    optimizer.step()  # the first step creates the state
    model(ids).backward()
    with _Dispatched() as dispatched:
        optimizer.step()
    tensors = len(list(model.parameters()))
    spec = implementation(HOST_IMPLEMENTATION).spec
    assert dispatched.count == spec.optimizer_ops_per_tensor * tensors
    assert spec.optimizer_kernel == "for-loop"
    # 80 bytes per FP32 parameter (the profile's notes, op by op) over a fused kernel's 28
    assert spec.optimizer_passes == pytest.approx((8 + 12 + 8 + 12 + 8 + 8 + 8 + 16) / 28, 1e-3)


def test_which_logit_buffers_reach_the_mmap_threshold_by_hand() -> None:
    # mallopt(3): an allocation of DEFAULT_MMAP_THRESHOLD_MAX (32 MiB on 64-bit) or more is
    # always mapped afresh and unmapped on free. The reference GPT's FP32 logits are
    # micro-batch x 256 tokens x vocabulary x 4 bytes; the eager loss allocates four buffers of
    # that shape a step (logits, log-probabilities, zero-filled gradient, logits' gradient).
    assert Assumptions().host_mmap_threshold.to("MiB").magnitude == 32
    assert "mallopt(3)" in ASSUMPTION_SOURCES["host_mmap_threshold"]
    cpu = _cpu("2 GB/s")
    cases = {  # (vocabulary, micro-batch): logits bytes
        (4096, 4): 4 * 256 * 4096 * 4,  # 16 MiB: below, not mapped afresh
        (8192, 4): 4 * 256 * 8192 * 4,  # 32 MiB: at the threshold
        (8192, 8): 8 * 256 * 8192 * 4,  # 64 MiB
    }
    assert cases[(4096, 4)] == 16 * MIB and cases[(8192, 4)] == 32 * MIB
    for (vocab, batch), size in cases.items():
        _, row = _loss_row(vocab, batch, cpu)
        expected = 4 * size / 2e9 if size >= 32 * MIB else 0.0
        assert float(row.first_touch) == pytest.approx(expected), (vocab, batch)
    # 4 x 32 MiB at 2 GB/s: 67.1 ms, added to the loss's time
    step, row = _loss_row(8192, 4, cpu)
    bare, plain = _loss_row(8192, 4, _cpu(None))
    assert float(row.first_touch) == pytest.approx(0.0671088640)
    assert float(row.total - plain.total) == pytest.approx(0.0671088640)
    assert float(step.seconds - bare.seconds) == pytest.approx(0.0671088640)
    # explain() names the term and where its rate came from
    figure = next(f for f in step.figures() if f.name == "first touch")
    assert "measured on this machine by mlcost bench" in figure.source
    assert "mallopt(3)" in figure.source


def test_a_gpu_or_an_implementation_without_logit_buffers_pays_no_first_touch() -> None:
    _, row = _loss_row(8192, 8, _cpu("2 GB/s"), software="ddp-eager")
    assert float(row.first_touch) == 0.0
    _, row = _loss_row(8192, 8, _cpu(None))
    assert float(row.first_touch) == 0.0


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="the mmap threshold is glibc's",
)
def test_a_fresh_buffer_above_the_threshold_faults_every_page_in() -> None:
    # The kernel's own count (getrusage's minor faults), in a fresh interpreter (a long test
    # process's allocator state is not a step's): a 64 MiB buffer allocated afresh is mapped
    # afresh every time, so filling it faults in each of its pages; the same fill of a buffer
    # kept is no fault at all.
    code = """
import resource, torch
elements = 64 * 2**20 // 4
kept = torch.empty(elements); kept.fill_(0.0)
def faults(function):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    function()
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
for _ in range(3):
    print(faults(lambda: torch.empty(elements).fill_(1.0)), faults(lambda: kept.fill_(1.0)))
"""
    pages = 64 * MIB // resource.getpagesize()
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    fresh, kept = [int(x) for x in out[0::2]], [int(x) for x in out[1::2]]
    assert len(fresh) == 3 and all(count >= 0.9 * pages for count in fresh), fresh
    assert all(count <= 0.01 * pages for count in kept), kept


def _host_results(fresh: float, reused: float, nbytes: int = 64 * MIB) -> pd.DataFrame:
    rows = [
        record(
            "host",
            name,
            "cpu",
            "fp32",
            {"bytes": nbytes},
            timing=None,
            bytes_moved=nbytes,
        )
        for name in ("fill-fresh", "fill-reused")
    ]
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    for column in ("median_s", "best_s", "p10_s", "p90_s"):
        frame[column] = [fresh, reused]
    frame["status"] = "ok"
    return frame


def test_the_first_touch_rate_is_fitted_and_bounded() -> None:
    # 64 MiB in 26 ms beyond the reused fill: 2^26 B / 0.026 s = 2.581 GB/s
    assert fit_first_touch(_host_results(0.030, 0.004)) == pytest.approx(2**26 / 0.026)
    # no extra time: no page faults measured (an allocator that keeps its pages), no term
    assert fit_first_touch(_host_results(0.004, 0.004)) is None
    # slower than a page fault allows (64 MiB in 1 s: 0.067 GB/s): a disturbed timing, refused
    assert FIRST_TOUCH_BOUNDS[0] > 2**26 / 1.0
    with pytest.raises(MlcostError, match=r"host fill-fresh: .* disturbed"):
        fit_first_touch(_host_results(1.004, 0.004))
    assert fit_first_touch(_host_results(0.004, 0.004).iloc[:0]) is None
