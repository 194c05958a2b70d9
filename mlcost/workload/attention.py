"""How many (query, key) scores an attention pattern has, and what they cost.

Everything here is a pure function of counts that also accepts numpy arrays, so
``attention_pairs(np.arange(1, 100_001), causal=True)`` is one call.

Per head and per sequence of length ``s``:

* full, bidirectional: ``s^2`` (Vaswani et al. 2017);
* causal: ``s(s+1)/2`` (each query sees itself and the past);
* causal sliding window of width ``w`` (Mistral: query ``i`` sees keys ``i-w+1 .. i``; Jiang et al.
  2023 section 2): ``sum_{i=1..s} min(i, w)``, which is ``s(s+1)/2`` for ``s <= w`` and
  ``w(w+1)/2 + (s-w)·w`` after, linear in ``s``;
* bidirectional sliding window of width ``w`` (Longformer: ``w/2`` keys on each side plus the
  query itself; Beltagy et al. 2020 section 3.1): ``s + 2·sum_{i=0..s-1} min(i, w/2)``;
* dilated (LongNet, Ding et al. 2023 section 2.2): for each pair (segment length ``w_j``,
  dilation ``r_j``) the sequence splits into ``ceil(s / w_j)`` segments, each keeps every
  ``r_j``-th token, ``ceil(w_j / r_j)`` tokens, with dense (or causal) attention among them:
  ``segments · t^2`` (or ``segments · t(t+1)/2``). The patterns are summed.

FLOPs: the score matmul ``Q·K^T`` and the ``P·V`` matmul each cost ``2·d`` FLOPs per pair per head.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mlcost.arrays import Real, plain
from mlcost.checks import finite


def _sum_min(count: Real, cap: Real) -> Real:
    """``sum_{i=0}^{count-1} min(i, cap)`` in closed form (vectorized)."""
    count = np.asarray(count, dtype=np.float64)
    cap = np.asarray(cap, dtype=np.float64)
    below = count * (count - 1) / 2
    above = cap * (cap + 1) / 2 + (count - cap - 1) * cap
    return np.where(count <= cap + 1, below, above)


def attention_pairs(
    sequence_length: Real,
    *,
    causal: bool,
    window: Real | None = None,
    dilated_segments: Sequence[int] | None = None,
    dilation_rates: Sequence[int] | None = None,
) -> Real:
    """Number of (query, key) scores per head for one sequence (see the module docstring)."""
    s = np.asarray(finite(sequence_length, "sequence_length"), dtype=np.float64)
    if window is not None:
        finite(window, "window", strict=True)
    if dilated_segments:
        rates = dilation_rates or [1] * len(dilated_segments)
        total = np.zeros_like(s)
        for segment, rate in zip(dilated_segments, rates, strict=True):
            width = np.minimum(float(segment), s)
            segments = np.ceil(s / width)
            tokens = np.ceil(width / rate)
            per_segment = tokens * (tokens + 1) / 2 if causal else tokens * tokens
            total = total + segments * per_segment
        return plain(total)
    if window is not None:
        w = np.asarray(window, dtype=np.float64)
        if causal:
            return plain(_sum_min(s + 1, w))  # sum_{j=0..s} min(j, w) = sum_{i=1..s} min(i, w)
        half = np.floor(w / 2)
        return plain(s + 2 * _sum_min(s, half))
    pairs = s * (s + 1) / 2 if causal else s * s
    return plain(pairs)


def attention_matmul_flops(pairs: Real, *, head_dim: int, heads: int, batch: Real = 1) -> Real:
    """Forward FLOPs of one of the two attention matmuls (scores, or scores x V):
    ``2 · d · pairs · heads · batch``."""
    return 2 * head_dim * pairs * heads * batch
