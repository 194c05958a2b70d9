"""AMD's published ceilings and serving rows, as the sources print them.

The FP8 GEMM ceilings of MI300X and MI325X: AMD ROCm blog "Measuring Max-Achievable FLOPs -
Part 2", Table 1 (MAF FP8 1273 and 1519 TFLOPs) at the FP8 shape of its Appendix B
(hipblaslt-bench -m 4096 -n 3648 -k 32896). The BF16 ceilings stay Stas Bekman's MAMF (668.4 and
784.9 TFLOPS). The serving rows: AMD's "Performance results" page, vLLM throughput on 8 MI300X,
docker rocm/vllm:rocm6.4.1_vllm_0.9.0.1_20250605; and Oracle's vLLM latency sweep of Llama 3.1 405B
FP8 on one BM.GPU.MI300X.8 (blog of October 10, 2024).
"""

from __future__ import annotations

import pytest

import mlcost
from mlcost.roofline import Ceilings
from mlcost.serving.published import serving_cases, serving_sources

# (gpu, format, TFLOPS as the source prints it)
CEILINGS = [
    ("mi300x-192gb", "fp8", 1273.0),  # AMD MAF, Table 1
    ("mi325x-256gb", "fp8", 1519.0),  # AMD MAF, Table 1
    ("mi300x-192gb", "bf16", 668.4),  # Bekman MAMF
    ("mi325x-256gb", "bf16", 784.9),  # Bekman MAMF
]


@pytest.mark.parametrize(("gpu", "fmt", "tflops"), CEILINGS)
def test_measured_gemm_ceiling_is_the_sources_number(gpu: str, fmt: str, tflops: float) -> None:
    accelerator = mlcost.accelerator(gpu)
    (point,) = accelerator.measured.gemm_efficiency[fmt]
    peak = Ceilings.from_accelerator(accelerator, fmt).peak.to("TFLOP/s").magnitude
    # The efficiency is stored to four decimals: within half a unit of the fourth of the peak.
    assert point.efficiency * peak == pytest.approx(tflops, abs=0.00005 * peak)


@pytest.mark.parametrize("gpu", ["mi300x-192gb", "mi325x-256gb"])
def test_fp8_ceiling_at_amds_maf_shape(gpu: str) -> None:
    measured = mlcost.accelerator(gpu).measured
    assert measured.gemm_best_shape["fp8"] == (4096, 3648, 32896)  # Appendix B, FP8 command
    (point,) = measured.gemm_efficiency["fp8"]
    assert point.flops == pytest.approx(2 * 4096 * 3648 * 32896, rel=1e-5)


@pytest.mark.parametrize(("gpu", "fmt", "tflops"), CEILINGS)
def test_no_gemm_is_predicted_above_amds_ceiling(gpu: str, fmt: str, tflops: float) -> None:
    ceilings = Ceilings.from_accelerator(mlcost.accelerator(gpu), fmt)
    best = 0.0
    for m in (128, 1024, 3648, 4096, 8192, 16384):
        for n in (128, 1024, 3648, 4864, 8192, 16384):
            for k in (512, 8192, 32896, 65536):
                efficiency = (ceilings.compute_efficiency * ceilings.gemm_wave_efficiency(m, n)
                              * ceilings.gemm_depth_efficiency(k))  # fmt: skip
                best = max(best, float(efficiency))
    assert best * ceilings.peak.to("TFLOP/s").magnitude <= tflops * (1 + 1e-4)


# AMD "Performance results", vLLM throughput, docker rocm/vllm:rocm6.4.1_vllm_0.9.0.1_20250605:
# (model, input, output, num prompts = max num seqs, throughput tokens/s)
AMD_VLLM = [
    ("llama-3.1-70b", 128, 2048, 3200, 16581.5),
    ("llama-3.1-70b", 128, 4096, 1500, 13667.3),
    ("llama-3.1-70b", 500, 2000, 2000, 13367.1),
    ("llama-3.1-70b", 2048, 2048, 1500, 8352.6),
    ("llama-3.1-405b", 128, 2048, 1500, 4275.0),
    ("llama-3.1-405b", 128, 4096, 1500, 3356.7),
    ("llama-3.1-405b", 500, 2000, 2000, 3201.4),
    ("llama-3.1-405b", 2048, 2048, 500, 2179.7),
]


def test_amd_vllm_rows_are_the_published_table() -> None:
    rows = [c for c in serving_cases() if c["family"] == "amd-vllm"]
    got = sorted((c["model"], c["prompt"], c["output"], c["load"], c["value"]) for c in rows)
    assert got == sorted(AMD_VLLM)
    for c in rows:
        assert (c["engine"], c["tp"], c["weights"], c["kv_format"]) == ("vllm", 8, "fp8", "fp8")
        assert mlcost.system(c["system"]).accelerator.name == "mi300x-192gb"
        assert mlcost.system(c["system"]).gpus == 8
        assert "rocm6.4.1_vllm_0.9.0.1_20250605" in serving_sources()[c["source"]]


# Oracle Cloud Infrastructure blog, "Serving Llama 3.1 405B model with AMD Instinct MI300X
# Accelerators" (October 10, 2024), "Latency measurements": vLLM benchmark_latency.py, Llama 3.1
# 405B FP8, 128 input and 128 output tokens, one BM.GPU.MI300X.8: (batch size, output throughput
# TPS, average latency in seconds), as printed.
OCI_VLLM = [
    (1, 36, 3.530), (2, 71, 3.583), (4, 137, 3.734), (8, 258, 3.974), (16, 468, 4.375),
    (32, 798, 5.130), (64, 1184, 6.919), (128, 1585, 10.340), (256, 1846, 17.750),
]  # fmt: skip


def test_oci_vllm_rows_are_the_published_table() -> None:
    rows = [c for c in serving_cases() if c["family"] == "oci-vllm"]
    got = sorted((int(c["load"].removeprefix("static-")), c["value"]) for c in rows)
    assert got == [(batch, pytest.approx(seconds * 1e3)) for batch, _, seconds in OCI_VLLM]
    for c in rows:
        assert (c["model"], c["prompt"], c["output"]) == ("llama-3.1-405b", 128, 128)
        assert (c["engine"], c["tp"], c["weights"], c["unit"]) == ("vllm", 8, "fp8", "ms")
        assert mlcost.system(c["system"]).accelerator.name == "mi300x-192gb"
        assert mlcost.system(c["system"]).gpus == 8
        assert "benchmark_latency.py" in serving_sources()[c["source"]]


@pytest.mark.parametrize(("batch", "tps", "seconds"), OCI_VLLM)
def test_oci_throughput_column_is_the_batch_over_its_latency(
    batch: int, tps: int, seconds: float
) -> None:
    """The page's two columns agree: output tokens/s = batch x 128 / latency (to the printed
    integer), so the latency column is the end-to-end time of one batch of 128 new tokens each."""
    assert batch * 128 / seconds == pytest.approx(tps, abs=0.5 + 1e-9)


def test_a_vendor_factor_is_the_median_of_its_rows_and_scales_the_forward() -> None:
    """The AMD factor is the median of measured / predicted time over the published rows on AMD
    GPUs (AMD's vLLM throughput and Oracle's vLLM latency sweep), each ratio computed here from
    the published figure and the uncorrected prediction (predicted / measured tokens/s for a
    throughput, measured / predicted ms for a latency); an MI300X plan's decode step, less the
    engine's own per-step work, is that factor times the uncorrected one (its kernels and its
    tensor-parallel all-reduces)."""
    import numpy as np

    import mlcost
    from mlcost.serving.published import serving_predictions

    uncorrected = serving_predictions(calibrated=False)
    amd = [r for r in uncorrected if r["family"] == "amd-vllm"]
    oci = [r for r in uncorrected if r["family"] == "oci-vllm"]
    assert sorted(r["measured"] for r in amd) == sorted(row[-1] for row in AMD_VLLM)
    assert sorted(r["measured"] for r in oci) == pytest.approx([s * 1e3 for *_, s in OCI_VLLM])
    assert {r["vendor"] for r in uncorrected if r["vendor"] != "NVIDIA"} == {"AMD"}
    assert len([r for r in uncorrected if r["vendor"] == "AMD"]) == len(amd) + len(oci)
    ratios = [r["predicted"] / r["measured"] for r in amd]
    ratios += [r["measured"] / r["predicted"] for r in oci]
    factor = float(np.median(ratios))
    args = {
        "gpu": None,
        "system": "supermicro-as-8125gs-tnmr2",
        "tp": 8,
        "weights": "fp8",
        "kv_format": "fp8",
    }
    plan = mlcost.ServePlan("llama-3.1-70b", batch=64, **args)  # type: ignore[arg-type]
    assert plan.calibration is not None
    # rel 1e-5: serving_band.json keeps the factor to 6 decimals (x1.416 to about 1e-6)
    assert plan.calibration.factor == pytest.approx(factor, rel=1e-5)
    raw = mlcost.ServePlan("llama-3.1-70b", batch=64, calibrated=False, **args)  # type: ignore[arg-type]
    overhead = plan.resolved_engine.step_seconds
    assert float(plan.timing(64)["step"]) - overhead == pytest.approx(
        plan.calibration.factor * (float(raw.timing(64)["step"]) - overhead), rel=1e-9
    )
    assert raw.calibration is None
