"""Published figures and the textbook chapter's worked example (seed_catalog.md W-02, D-03/D-04)."""

from __future__ import annotations

import numpy as np
import pytest

from mlcost.flops import (
    chapter_layer_forward_flops,
    layer_forward_flops,
    narayanan_flops,
    six_nd,
    training_flops,
)
from mlcost.layout import Layout
from mlcost.specs import Catalog
from mlcost.workload import TrainingConfig, operators


def test_resnet50_forward_is_two_times_4_09_gmacs(catalog: Catalog) -> None:
    # torchvision publishes 4.09 GFLOPS (multiply-adds) for ResNet-50 at 224 x 224.
    table = operators(catalog.model("resnet-50"), TrainingConfig(), Layout(micro_batch_size=1))
    gemm_forward = sum(op.forward_flops * op.count for op in table.operators if op.is_matmul)
    assert gemm_forward == pytest.approx(2 * 4.09e9, rel=0.01)


def by_name(table: object, name: str) -> float:
    ops = [op for op in table.operators if op.name == name]  # type: ignore[attr-defined]
    assert len(ops) == 1, name
    return float(ops[0].forward_flops)


def test_chapter_gpt2_xl_example(catalog: Catalog) -> None:
    # The chapter's GPT-2 XL: B 32, S 1024, H 1600, 25 heads, 48 layers, 50,000 steps.
    b, s, h, layers, steps = 32, 1024, 1600, 48, 50_000
    config = TrainingConfig(sequence_length=s, attention="eager")
    layout = Layout(micro_batch_size=b)
    table = operators(catalog.model("gpt2-xl"), config, layout)
    qkv = sum(by_name(table, f"{x} projection") for x in "qkv")
    assert qkv == 503_316_480_000  # chapter: 3·B·S·H^2 MACs x 2
    assert by_name(table, "attention scores QK^T") == 107_374_182_400  # B·heads·S^2·64 x 2
    # The chapter's layer and step totals, from its formula 22·B·s·h^2 + 4·B·s^2·h:
    chapter_layer = chapter_layer_forward_flops(b, s, h).to("flop").magnitude
    assert chapter_layer == 2_060_242_124_800
    assert 3 * layers * chapter_layer == 296_674_865_971_200
    assert 3 * layers * chapter_layer * steps == 14_833_743_298_560_000_000
    # The complete layer adds the output projection, 2·B·s·h^2 = 167,772,160,000 FLOPs (D-04).
    layer_gemms = sum(
        op.forward_flops for op in table.operators if op.block == "layer" and op.is_matmul
    )
    assert layer_gemms == layer_forward_flops(b, s, h).to("flop").magnitude
    assert layer_gemms - chapter_layer == 2 * b * s * h * h == 167_772_160_000
    # D-03: the chapter's "2 seconds for attention" is the whole step on a 125 TFLOP/s V100.
    assert 3 * layers * chapter_layer / 125e12 == pytest.approx(2.3734, rel=1e-4)


def test_six_nd_gpt3() -> None:
    # Brown et al. 2020: 175B parameters, 300B tokens -> 6ND = 3.15e23 FLOPs.
    assert six_nd(175e9, 300e9).to("flop").magnitude == pytest.approx(3.15e23, rel=1e-12)


def test_exact_minus_six_nd_grows_with_s_over_h(catalog: Catalog) -> None:
    model = catalog.transformer("gpt3-175b")
    n, h, layers = model.parameter_count, model.hidden_size, model.num_layers
    seqs = [512, 2048, 8192, 32768]
    model_diffs, gemm_diffs = [], []
    for s in seqs:
        summary = training_flops(model, TrainingConfig(sequence_length=s, attention="eager"))
        estimate = six_nd(n, summary.tokens).to("flop").magnitude
        model_diffs.append(summary.model_flops.to("flop").magnitude / estimate - 1)
        gemm_diffs.append(summary.table.matmul_flops().to("flop").magnitude / estimate - 1)
    assert model_diffs == sorted(model_diffs)  # the reported difference grows with s
    # GEMMs: per token the attention matmuls add 3·(2·2·L·s·h) = 12·L·s·h FLOPs, so the
    # difference from 6N grows by 12·L·h·Δs / (6N) = 2·L·h·Δs / N (hand derivation) ...
    slopes = np.diff(gemm_diffs) / np.diff(seqs)
    assert slopes == pytest.approx(2 * layers * h / n, rel=1e-9)
    # ... which is the closed form's s/(6h), because N ≈ 12·L·h^2 (within 1% for GPT-3).
    assert slopes == pytest.approx(1 / (6 * h), rel=0.01)


def test_narayanan_closed_form_matches_exact_for_a_gpt(catalog: Catalog) -> None:
    # Eq. 3 counts GEMMs only, MHA, FFN 4h, executed attention, LM head V·h: exactly our GEMMs.
    model = catalog.transformer("gpt3-175b")
    config = TrainingConfig(sequence_length=2048, attention="eager")
    layout = Layout(micro_batch_size=2)
    gemm = operators(model, config, layout).matmul_flops().to("flop").magnitude
    closed = narayanan_flops(2, 2048, 96, 12288, model.vocab_size, recompute=False)
    assert gemm == pytest.approx(closed.to("flop").magnitude, rel=1e-12)
    # With full recomputation eq. 3 has 4 passes over the layers (96 = 4 x 24) but 3 over the
    # LM head (6·B·s·h·V), as Megatron recomputes layers only; so does our table.
    full = operators(model, config, layout.model_copy(update={"recompute": "full"}))
    recomputed_gemms = sum(op.recompute_flops * op.count for op in full.operators if op.is_matmul)
    closed_recompute = narayanan_flops(2, 2048, 96, 12288, model.vocab_size, recompute=True)
    assert full.matmul_flops().to("flop").magnitude + recomputed_gemms == pytest.approx(
        closed_recompute.to("flop").magnitude, rel=1e-12
    )
