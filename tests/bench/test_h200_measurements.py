"""The H200 measurements of 2026-11-26 (``benchmarks/data/h200-2026-11-26``, issue 19) against
mlcost: the shipped measured profile, the unaligned-GEMM mechanism, and real training steps.

Expected values come from the raw measurements (CSV and JSON written on the GPU by
``scripts/measure_gpu.sh`` and ``scripts/profile_steps.py``), read and derived here by hand."""

from __future__ import annotations

import dataclasses
import json
import statistics
from pathlib import Path

import pytest

import mlcost
from mlcost.bench.store import read_results_csv
from mlcost.calibrate import fit_unaligned
from mlcost.layout import Layout
from mlcost.operator_time import gemm_compute
from mlcost.roofline import Ceilings, alignment_elements, is_unaligned
from mlcost.specs import as_accelerator, from_hf_config
from mlcost.validate import training_steps
from mlcost.workload import TrainingConfig, operators

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "h200-2026-11-26"
PROFILE = "h200-sxm-141gb-measured"


def _achieved(results, name: str, fmt: str) -> float:  # type: ignore[no-untyped-def]
    row = results[(results["name"] == name) & (results["format"] == fmt)].iloc[0]
    return float(row["flops"] / row["median_s"])


def test_the_measured_profile_is_in_the_catalog_by_name() -> None:
    gpu = as_accelerator(PROFILE)
    assert gpu.measured is not None and gpu.measured.based_on == "h200-sxm-141gb"
    assert mlcost.catalog().names("measured") == [PROFILE]
    assert PROFILE not in mlcost.catalog().names("accelerators")
    # its bandwidth is the STREAM median at the largest size of the raw results
    results = read_results_csv(DATA / "mlcost-bench")
    stream = results[(results["family"] == "memory") & (results["status"] == "ok")]
    largest = stream[stream["params"].map(lambda p: json.loads(p)["elements"]) == 2**28]
    expected = statistics.median((largest["bytes"] / largest["median_s"]).tolist())
    assert gpu.measured.memory_bandwidth.to("B/s").magnitude == pytest.approx(expected, rel=1e-9)


def test_alignment_rule() -> None:
    assert alignment_elements("bf16") == 8
    assert alignment_elements("fp32") == 4
    assert alignment_elements("fp8") == 16
    assert is_unaligned(50257, 768, 8)  # GPT-2's vocabulary
    assert not is_unaligned(50304, 768, 8)  # nanoGPT's padded one
    assert is_unaligned(4096, 4100, 8)
    assert not is_unaligned(4096, 4100, 4)


def test_unaligned_ratio_is_the_measured_one() -> None:
    # bf16, forward layout: each unaligned shape over the aligned shape nearest in FLOPs
    results = read_results_csv(DATA / "mlcost-bench")
    vocab = _achieved(results, "16384x50257x768-nn", "bf16") / _achieved(
        results, "16384x50304x768-nn", "bf16"
    )
    hidden = _achieved(results, "8192x4096x4100-nn", "bf16") / _achieved(
        results, "8192x4096x4096-nn", "bf16"
    )
    fitted = fit_unaligned(results)
    assert fitted["bf16"] == pytest.approx(statistics.median([vocab, hidden]), rel=1e-12)
    # the tn layout's leading dimensions are m and n: 8192 x 4096 x 4100-tn is aligned
    assert _achieved(results, "8192x4096x4100-tn", "bf16") > 0.9 * _achieved(
        results, "8192x4096x4096-tn", "bf16"
    )
    # FP32 runs on the CUDA cores, where alignment does not matter
    assert 0.9 < fitted["fp32"] < 1.1
    shipped = as_accelerator(PROFILE).measured
    assert shipped is not None and shipped.gemm_unaligned == fitted


def test_gpt2_lm_head_against_the_measured_gemms() -> None:
    # The LM head of GPT-2 at 16 x 1024 tokens, three passes, measured by
    # scripts/profile_steps.py at vocabulary 50,257 and 50,304 (BF16).
    measured = json.loads((DATA / "profile_steps.json").read_text())["lm_head_gemms"]
    seconds = {n: sum(g["median_s"] for g in measured if g["n"] == n) for n in (50257, 50304)}
    assert seconds[50257] / seconds[50304] > 4  # the effect being modelled

    config = {
        "model_type": "gpt2", "vocab_size": 50257, "n_positions": 1024, "n_embd": 768,
        "n_layer": 12, "n_head": 12, "activation_function": "gelu_new",
    }  # fmt: skip
    ceilings = Ceilings.from_accelerator(as_accelerator(PROFILE), "bf16")
    plain = dataclasses.replace(ceilings, unaligned_gemm=(1.0, 1.0, 1.0))
    training = TrainingConfig(sequence_length=1024, precision="bf16-mixed", dropout=False)
    predicted = {}
    for vocab in (50257, 50304):
        spec = from_hf_config({**config, "vocab_size": vocab}, name=f"gpt2-{vocab}")
        table = operators(spec, training, Layout(micro_batch_size=16))
        head = [op for op in table.operators if op.name.startswith("lm head")]
        assert len(head) == 1 and (head[0].n, head[0].k) == (vocab, 768)
        predicted[vocab] = gemm_compute(head, ceilings, [False])[0]
        if vocab == 50257:
            without = gemm_compute(head, plain, [False])[0]
    # Tolerances: the aligned head within 15 % (the size curves' median GEMM error on this GPU
    # is 8.6 %, docs/benchmarks.md); the unaligned one within 35 %, since its penalty is the median
    # ratio over two unaligned shapes (vocabulary and hidden size), not this shape's own.
    assert predicted[50257] == pytest.approx(seconds[50257], rel=0.35)
    assert predicted[50304] == pytest.approx(seconds[50304], rel=0.15)
    assert without == pytest.approx(predicted[50304], rel=0.01)  # no penalty without it


def test_training_steps_against_predictions() -> None:
    raw = json.loads((DATA / "train_steps.json").read_text())
    report = training_steps(
        DATA / "train_steps.json", {"datasheet": "h200-sxm-141gb", "measured": PROFILE}
    )
    assert len(report) == len(raw["rows"]) == 10
    assert report["measured_ms"].tolist() == [r["step_median_s"] * 1e3 for r in raw["rows"]]
    assert report["measured_peak_gib"].tolist() == [
        r["peak_allocated_bytes"] / 2**30 for r in raw["rows"]
    ]
    # The nanoGPT-shaped reference GPT (fused GELU and LayerNorm, padded vocabulary): what
    # ddp-eager describes. Within the 10 % (time, measured profile) and 5 % (memory).
    nano = report[report["model"] == "bench-gpt-124m"]
    assert (nano["time error (measured)"].abs() < 0.10).all()
    assert (nano["memory error"].abs() < 0.05).all()
    # Every row's memory within 20 % and time within 40 % of the measurement: what holds today
    # (docs/benchmarks.md lists every row; Hugging Face GPT-2's unfused FP32 GELU chain is the
    # worst, see there).
    assert (report["memory error"].abs() < 0.20).all()
    assert (report["time error (measured)"].abs() < 0.40).all()


def test_unaligned_ratio_stays_bounded_on_a_loaded_machine() -> None:
    """A loaded machine disturbs single timings (issue 62 fitted "35x slower" and "33x faster"):
    the same H200 results with the unaligned GEMMs' times multiplied by 35 and divided by 33
    fit ratios at the stated bounds, not outside them."""
    from mlcost.calibrate import UNALIGNED_BOUNDS

    results = read_results_csv(DATA / "mlcost-bench")
    unaligned = results["name"].isin(["16384x50257x768-nn", "8192x4096x4100-nn"])
    for factor in (35.0, 1 / 33):
        noisy = results.copy()
        noisy.loc[unaligned, "median_s"] = noisy.loc[unaligned, "median_s"].astype(float) * factor
        fitted = fit_unaligned(noisy)
        assert all(UNALIGNED_BOUNDS[0] <= v <= UNALIGNED_BOUNDS[1] for v in fitted.values())
        expected = UNALIGNED_BOUNDS[0] if factor > 1 else UNALIGNED_BOUNDS[1]
        assert fitted["bf16"] == expected
