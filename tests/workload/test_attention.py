"""Attention patterns against brute-force counts of explicit boolean masks (the oracle is a
mask built element by element from each paper's definition, then summed)."""

from __future__ import annotations

import numpy as np
import pytest

from mlcost.specs import Catalog
from mlcost.workload import TrainingConfig, attention_pairs, operators


def causal_window_mask(s: int, w: int) -> np.ndarray:
    # Mistral (Jiang et al. 2023, section 2): query i sees keys i-w+1 .. i.
    i, j = np.ogrid[:s, :s]  # a column and a row, broadcast: an (s, s) boolean mask
    return (j <= i) & (j > i - w)


def longformer_mask(s: int, w: int) -> np.ndarray:
    # Longformer (Beltagy et al. 2020, section 3.1): w/2 keys on each side, plus itself.
    i, j = np.ogrid[:s, :s]  # a column and a row, broadcast: an (s, s) boolean mask
    return np.abs(i - j) <= w // 2


def dilated_pairs(s: int, segments: list[int], rates: list[int], causal: bool) -> int:
    # LongNet (Ding et al. 2023, section 2.2): split into segments of w, keep every r-th token,
    # attend densely (or causally) among the kept tokens of a segment; sum over (w, r).
    total = 0
    for w, r in zip(segments, rates, strict=True):
        for start in range(0, s, w):
            kept = list(range(start, min(start + w, s), r))
            for qi, _ in enumerate(kept):
                for ki, _ in enumerate(kept):
                    total += 1 if not causal or ki <= qi else 0
    return total


@pytest.mark.parametrize("s", [1, 5, 16, 17, 40])
@pytest.mark.parametrize("w", [1, 4, 16])
def test_causal_sliding_window(s: int, w: int) -> None:
    assert attention_pairs(s, causal=True, window=w) == causal_window_mask(s, w).sum()


@pytest.mark.parametrize("s", [1, 5, 16, 17, 40])
@pytest.mark.parametrize("w", [2, 4, 16])
def test_bidirectional_sliding_window(s: int, w: int) -> None:
    assert attention_pairs(s, causal=False, window=w) == longformer_mask(s, w).sum()


def test_full_and_causal() -> None:
    assert attention_pairs(7, causal=False) == 49
    assert attention_pairs(7, causal=True) == np.tril(np.ones((7, 7))).sum() == 28


@pytest.mark.parametrize("causal", [False, True])
def test_dilated(causal: bool) -> None:
    segments, rates = [8, 16, 32], [1, 2, 4]
    for s in (32, 64, 96):
        expected = dilated_pairs(s, segments, rates, causal)
        assert (
            attention_pairs(s, causal=causal, dilated_segments=segments, dilation_rates=rates)
            == expected
        )


def test_linear_growth_at_fixed_window() -> None:
    s = np.array([4096, 8192, 16384, 32768])
    for pairs in (
        attention_pairs(s, causal=True, window=1024),
        attention_pairs(s, causal=False, window=1024),
        attention_pairs(s, causal=True, dilated_segments=[1024, 4096], dilation_rates=[1, 4]),
    ):
        per_token = pairs / s
        # Linear in s: pairs per token converges to a constant (the window's), to within the
        # edge effect w/(2s) of the first w tokens, which halves at each doubling.
        assert np.all(np.diff(pairs / s) >= 0)
        assert per_token[-1] / per_token[-2] == pytest.approx(1.0, abs=0.02)
    full = attention_pairs(s, causal=True)
    assert full[-1] / full[-2] == pytest.approx(4.0, rel=0.001)  # quadratic, for contrast


def test_mistral_table_uses_the_window_under_flash(catalog: Catalog) -> None:
    model = catalog.transformer("mistral-7b")  # window 4096
    flops = []
    for s in (8192, 16384, 32768):
        table = operators(model, TrainingConfig(sequence_length=s, attention="flash"))
        scores = [op for op in table.operators if op.name.startswith("attention scores QK")]
        flops.append(scores[0].forward_flops)
    # 2·d·pairs·heads with pairs = w(w+1)/2 + (s-w)·w; doubling s past w adds s·w pairs.
    d, heads, w = 128, 32, 4096
    assert flops[1] - flops[0] == 2 * d * heads * 8192 * w
    assert flops[2] - flops[1] == 2 * d * heads * 16384 * w


def test_gemma2_alternates_local_and_global(catalog: Catalog) -> None:
    table = operators(catalog.transformer("gemma-2-9b"), TrainingConfig(sequence_length=8192))
    counts = {op.name: op.count for op in table.operators if op.kind == "attention"}
    assert counts["attention scores QK^T (local)"] == 21
    assert counts["attention scores QK^T (global)"] == 21


def test_causal_convention_halves_eager(catalog: Catalog) -> None:
    model = catalog.transformer("llama-2-7b")
    executed = operators(model, TrainingConfig(sequence_length=1024, attention="eager"))
    useful = operators(
        model, TrainingConfig(sequence_length=1024, attention="eager", attention_flops="causal")
    )

    def attention(table: object) -> float:
        return sum(op.forward_flops for op in table.operators if op.kind == "attention")  # type: ignore[attr-defined]

    assert attention(useful) / attention(executed) == pytest.approx(1025 / 2048, rel=1e-12)


def test_config_patterns_apply_to_every_layer(catalog: Catalog) -> None:
    model = catalog.transformer("llama-2-7b")  # 32 heads of 128
    windowed = operators(
        model, TrainingConfig(sequence_length=8192, attention="flash", attention_window=1024)
    )
    scores = next(op for op in windowed.operators if op.name.startswith("attention scores QK"))
    assert scores.count == 32
    assert scores.forward_flops == 2 * 128 * 32 * causal_window_mask(8192, 1024).sum()
    dilated = operators(
        model,
        TrainingConfig(
            sequence_length=64, attention="flash", dilated_segments=(16, 32), dilation_rates=(1, 2)
        ),
    )
    scores = next(op for op in dilated.operators if op.name.startswith("attention scores QK"))
    assert scores.forward_flops == 2 * 128 * 32 * dilated_pairs(64, [16, 32], [1, 2], True)


def test_dilation_needs_one_rate_per_segment() -> None:
    from mlcost.errors import SpecError

    with pytest.raises(SpecError, match="dilation_rates"):
        TrainingConfig(dilated_segments=(16, 32), dilation_rates=(1,))
