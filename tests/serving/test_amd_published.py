"""AMD's published ceilings and serving rows, as the sources print them.

The FP8 GEMM ceilings of MI300X and MI325X: AMD ROCm blog "Measuring Max-Achievable FLOPs -
Part 2", Table 1 (MAF FP8 1273 and 1519 TFLOPs) at the FP8 shape of its Appendix B
(hipblaslt-bench -m 4096 -n 3648 -k 32896). The BF16 ceilings stay Stas Bekman's MAMF (668.4 and
784.9 TFLOPS). The serving rows: AMD's "Performance results" page, vLLM throughput on 8 MI300X,
docker rocm/vllm:rocm6.4.1_vllm_0.9.0.1_20250605.
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


def test_a_vendor_factor_is_the_median_of_its_rows_and_scales_the_forward() -> None:
    """The AMD factor is the median of measured / predicted time over AMD's published vLLM rows,
    each ratio computed here from the published tokens/s and the uncorrected prediction
    (predicted / measured tokens/s for a throughput); an MI300X plan's decode step, less the
    engine's own per-step work, is that factor times the uncorrected one (its kernels and its
    tensor-parallel all-reduces)."""
    import numpy as np

    import mlcost
    from mlcost.serving.published import serving_predictions

    rows = [r for r in serving_predictions(calibrated=False) if r["family"] == "amd-vllm"]
    published = [16581.5, 13667.3, 13367.1, 8352.6, 4275.0, 3356.7, 3201.4, 2179.7]
    assert sorted(r["measured"] for r in rows) == sorted(published)
    factor = float(np.median([r["predicted"] / r["measured"] for r in rows]))
    args = {
        "gpu": None,
        "system": "supermicro-as-8125gs-tnmr2",
        "tp": 8,
        "weights": "fp8",
        "kv_format": "fp8",
    }
    plan = mlcost.ServePlan("llama-3.1-70b", batch=64, **args)  # type: ignore[arg-type]
    assert plan.calibration is not None
    # rel 1e-5: serving_band.json keeps the factor to 6 decimals (x1.463 to about 1e-6)
    assert plan.calibration.factor == pytest.approx(factor, rel=1e-5)
    raw = mlcost.ServePlan("llama-3.1-70b", batch=64, calibrated=False, **args)  # type: ignore[arg-type]
    overhead = plan.resolved_engine.step_seconds
    assert float(plan.timing(64)["step"]) - overhead == pytest.approx(
        plan.calibration.factor * (float(raw.timing(64)["step"]) - overhead), rel=1e-9
    )
    assert raw.calibration is None
