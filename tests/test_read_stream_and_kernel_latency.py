"""The read-stream ceiling and the per-class kernel latencies of the roofline, against hand
derivations written here and against the H200 measurements they were fitted to
(``benchmarks/data/h200-2026-11-27/kernels.json``)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from mlcost.operator_time import Execution, memory_seconds, operator_time
from mlcost.roofline import Ceilings
from mlcost.specs import Catalog
from mlcost.units import Q_
from mlcost.workload.table import Operator

ROOT = Path(__file__).resolve().parents[1]


def _ceilings(read: object = Q_(4, "TB/s"), **extra: object) -> Ceilings:
    """Round numbers: 4.8 TB/s datasheet at 50% (a 2.4 TB/s triad), a 4 TB/s read stream."""
    return Ceilings(
        name="test",
        peak=Q_(1000, "TFLOP/s"),
        vector_peak=Q_(60, "TFLOP/s"),
        bandwidth=Q_(4.8, "TB/s"),
        compute_units=100,
        memory_efficiency=0.5,
        read_bandwidth=read,  # type: ignore[arg-type]
        **extra,  # type: ignore[arg-type]
    )


def test_reads_beyond_twice_the_writes_stream_at_the_read_rate() -> None:
    """1,000 bytes read and 100 written: 100 written with 200 read as a triad at 2.4 TB/s,
    the other 800 read at 4 TB/s: 300/2.4e12 + 800/4e12 = 1.25e-10 + 2.0e-10 s. A copy (100
    read, 100 written) and an add (200 read, 100 written) stay on the triad: 200/2.4e12 and
    300/2.4e12 s. Pure reads: 1,000/4e12."""
    c = _ceilings()
    assert c.stream_seconds(1000, 100) == pytest.approx(300 / 2.4e12 + 800 / 4e12)
    assert c.stream_seconds(100, 100) == pytest.approx(200 / 2.4e12)
    assert c.stream_seconds(200, 100) == pytest.approx(300 / 2.4e12)
    assert c.stream_seconds(1000, 0) == pytest.approx(1000 / 4e12)
    np.testing.assert_allclose(
        c.stream_seconds(np.array([1000.0, 100.0]), np.array([100.0, 100.0])),
        [300 / 2.4e12 + 800 / 4e12, 200 / 2.4e12],
    )


def test_without_a_read_stream_every_byte_runs_at_the_triad() -> None:
    """No measured read stream: 1,100 bytes at 2.4 TB/s whatever their split, so the rule
    leaves every GPU without the measurement where it was."""
    c = _ceilings(read=None)
    assert c.stream_rates == (2.4e12, 2.4e12)
    assert c.stream_seconds(1000, 100) == pytest.approx(1100 / 2.4e12)


def test_backward_and_recomputed_traffic() -> None:
    """A row with a backward: the forward's 1,000 read / 100 written by the rule, twice (a
    recomputed forward: fraction 1), the backward's 600 bytes at the triad:
    2·(300/2.4e12 + 800/4e12) + 600/2.4e12."""
    op = Operator(
        name="gemv",
        kind="matmul",
        block="layer",
        count=1,
        bytes_read=1000,
        bytes_written=100,
        backward_bytes=600,
        recompute_fraction=1.0,
    )
    expected = 2 * (300 / 2.4e12 + 800 / 4e12) + 600 / 2.4e12
    assert memory_seconds(op, _ceilings()) == pytest.approx(expected)


def test_kernel_latency_once_per_launch_of_its_class() -> None:
    """A memory-bound GEMV row of 4 MB read, 8 KB written, three executions (``count`` 3), on
    ceilings with a 5 us GEMM latency: each execution is 8,192 + 16,384 bytes at the triad
    plus 4,169,728 - 16,384 bytes at the read rate, plus 5 us; a norm row gets its own
    class's 2 us; an element-wise row none (no launch gap: the serving ceilings' setting)."""
    c = _ceilings(kernel_latency=(("matmul", 5e-6), ("norm", 2e-6)), launch_overhead=Q_(0, "us"))
    ex = Execution({"": c})
    read, written = 4_169_728, 8_192
    gemv = Operator(
        name="gemv", kind="matmul", block="layer", count=3, bytes_read=read,
        bytes_written=written, forward_flops=2 * 2048 * 1, m=1, n=2048, k=1024,
    )  # fmt: skip
    one = (written + 2 * written) / 2.4e12 + (read - 2 * written) / 4e12 + 5e-6
    row = operator_time(gemv, ex, {}, 0.0)
    assert row.memory == pytest.approx(3 * one)
    assert row.total == pytest.approx(3 * one)
    norm = Operator(name="norm", kind="norm", block="layer", count=1, bytes_read=8192,
                    bytes_written=8192)  # fmt: skip
    assert operator_time(norm, ex, {}, 0.0).memory == pytest.approx(16384 / 2.4e12 + 2e-6)
    add = Operator(name="add", kind="elementwise", block="layer", count=1, bytes_read=16384,
                   bytes_written=8192)  # fmt: skip
    assert operator_time(add, ex, {}, 0.0).memory == pytest.approx(24576 / 2.4e12)


def test_the_h200_figures_are_the_fit_of_its_measured_kernels(catalog: Catalog) -> None:
    """The H200 spec's read stream and kernel latencies equal what
    ``benchmarks/fit_read_stream.py`` derives from the kernels measured on an H200 (rounded as
    the spec writes them: 10 GB/s, 0.1 us); the H100 SXM's transferred latencies are the same
    figures (the spec says so and why)."""
    spec = importlib.util.spec_from_file_location("fit", ROOT / "benchmarks" / "fit_read_stream.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = module.fit(json.loads((module.DATA).read_text()))
    h200 = catalog.accelerator("h200-sxm-141gb").measured
    assert h200 is not None and h200.memory_read_bandwidth is not None
    assert h200.memory_read_bandwidth.to("GB/s").magnitude == pytest.approx(
        round(found["read_stream"] / 1e10) * 10
    )
    for kind in ("matmul", "norm", "attention"):
        assert h200.kernel_latency[kind].to("us").magnitude == pytest.approx(
            round(found[kind] * 1e6, 1)
        )
    assert h200.roofline_corner == pytest.approx(found["corner"])
    h100 = catalog.accelerator("h100-sxm5-80gb").measured
    assert h100 is not None and h100.memory_read_bandwidth is None
    assert h100.kernel_latency == h200.kernel_latency
    assert h100.roofline_corner is None  # not transferred: it depends on the bandwidth per SM


def test_smooth_roofline_corner() -> None:
    """``(t_c^p + t_m^p)^(1/p)``, p = 2.5: equal times give ``2^(1/2.5) = 1.3195`` times
    either; 1 us against 10 us gives ``10·(1 + 0.1^2.5)^(0.4) = 10.0126`` us (within 0.13% of
    the max); zeros stay zero; the sharp default is the max."""
    smooth = _ceilings(corner=2.5)
    assert smooth.combine(1e-6, 1e-6) == pytest.approx(2 ** (1 / 2.5) * 1e-6)
    assert smooth.combine(1e-6, 10e-6) == pytest.approx(10e-6 * (1 + 0.1**2.5) ** 0.4)
    assert smooth.combine(0.0, 0.0) == 0.0
    np.testing.assert_allclose(
        smooth.combine(np.array([0.0, 2e-6]), np.array([3e-6, 0.0])), [3e-6, 2e-6]
    )
    assert _ceilings().combine(1e-6, 3e-6) == 3e-6


def test_serving_forwards_pay_the_gemm_latency_once_per_launch(catalog: Catalog) -> None:
    """On the H200 (GEMM latency 4.0 us, its spec), one decode step at batch 1 (every GEMM
    memory-bound, so the latency adds in full):

    * Llama 3 8B with its projections fused as engines run them (Q, K, V one GEMM; gate and up
      one) saves ``(3 - 1) + (2 - 1) = 3`` launches a layer against one GEMM per projection:
      ``3 x 32 layers x 4.0 us = 384 us``;
    * Mixtral 8x7B with its 8 local experts in one grouped launch (fused gate+up, and down)
      saves ``2 x (8 - 1) x 32 layers x 4.0 us = 1,792 us`` against one launch per expert."""
    from mlcost.records import replace
    from mlcost.serving.latency import forward_time, serving_ceilings
    from mlcost.serving.workload import decode_operators

    gpu = catalog.accelerator("h200-sxm-141gb")
    assert gpu.measured is not None
    gemm = gpu.measured.kernel_latency["matmul"].to("s").magnitude
    ceilings = serving_ceilings(gpu)

    def step(model: str, **metadata: bool) -> float:
        table = decode_operators(catalog.transformer(model), 1, 512)
        changed = replace(table, metadata={**table.metadata, **metadata})
        return float(forward_time(changed, ceilings).seconds)

    dense = step("llama-3-8b", fused_projections=False) - step("llama-3-8b")
    assert dense == pytest.approx(3 * 32 * gemm, rel=1e-6)
    moe = step("mixtral-8x7b", grouped_experts=False) - step("mixtral-8x7b", grouped_experts=True)
    assert moe == pytest.approx(2 * 7 * 32 * gemm, rel=1e-6)
