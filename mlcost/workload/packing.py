"""Sequence packing: what padding wastes and what packing recovers.

Given document lengths (a list, or a histogram ``{length: count}``) and a maximum length
``S``:

* **padded batching** puts one document per row of ``S`` tokens (longer documents are split into
  ``ceil(l / S)`` rows): useful tokens ``sum min-split(l)``, rows ``sum ceil(l / S)``, padding
  fraction ``1 - useful / (rows · S)``;
* **packing** concatenates documents into rows of ``S`` (first-fit decreasing bin packing of the
  chunks; Krell et al. 2021 analyse the same problem for BERT), so rows ``>= ceil(useful / S)``;
* **attention** per row: without document masking a packed row attends across documents, ``S^2``
  (or ``S(S+1)/2`` causal) scores per row; with document masking (block-diagonal, as
  FlashAttention's variable-length kernels do) only ``sum l_i^2`` (or ``sum l_i(l_i+1)/2``).

The gain of packing in useful tokens per step is ``rows_padded / rows_packed`` at a fixed number
of rows per step.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

from mlcost.errors import MlcostError
from mlcost.records import Record
from mlcost.results import Figure, Result

SOURCE = "mlcost.workload.packing (first-fit decreasing; Krell et al. 2021 for the problem)"


def _chunks(lengths: Iterable[int] | Mapping[int, int], maximum: int) -> np.ndarray:
    """Document lengths split into chunks of at most ``maximum`` tokens."""
    if isinstance(lengths, Mapping):
        values = np.repeat(
            np.asarray(list(lengths.keys()), dtype=np.int64),
            np.asarray(list(lengths.values()), dtype=np.int64),
        )
    else:
        values = np.asarray(list(lengths), dtype=np.int64)
    if values.size == 0:
        raise MlcostError("lengths: got no documents, expected at least one length")
    if (values <= 0).any():
        raise MlcostError(f"lengths: got {int(values.min())}, expected positive token counts")
    full = values // maximum
    rest = values % maximum
    pieces = [np.full(int(full.sum()), maximum, dtype=np.int64), rest[rest > 0]]
    return np.concatenate(pieces)


def _first_fit_decreasing(chunks: np.ndarray, maximum: int) -> list[list[int]]:
    bins: list[list[int]] = []
    space: list[int] = []
    for length in sorted(chunks.tolist(), reverse=True):
        for index, free in enumerate(space):
            if length <= free:
                bins[index].append(length)
                space[index] -= length
                break
        else:
            bins.append([length])
            space.append(maximum - length)
    return bins


class PackingReport(Record, Result, frozen=True):
    """Padding vs packing for one set of documents at one maximum length."""

    maximum_length: int
    useful_tokens: int
    padded_rows: int
    packed_rows: int
    scores_padded: float
    scores_packed_masked: float
    scores_packed_unmasked: float

    @property
    def padding_fraction(self) -> float:
        """Share of padded-batch token slots that hold padding."""
        return 1 - self.useful_tokens / (self.padded_rows * self.maximum_length)

    @property
    def packed_padding_fraction(self) -> float:
        return 1 - self.useful_tokens / (self.packed_rows * self.maximum_length)

    @property
    def useful_token_gain(self) -> float:
        """Useful tokens per step with packing over without, at the same rows per step."""
        return self.padded_rows / self.packed_rows

    def title(self) -> str:
        return f"padding vs packing at {self.maximum_length:,} tokens per row"

    def figures(self) -> list[Figure]:
        s = self.maximum_length
        return [
            Figure("useful tokens", self.useful_tokens, "sum of the document lengths", "", SOURCE),
            Figure("padded rows", self.padded_rows, "sum ceil(l / S)", f"S = {s}", SOURCE),
            Figure("packed rows", self.packed_rows, "first-fit decreasing bins of S", "", SOURCE),
            Figure(
                "padding fraction", self.padding_fraction, "1 - useful / (padded rows x S)",
                f"1 - {self.useful_tokens:,} / ({self.padded_rows:,} x {s})", SOURCE,
            ),
            Figure(
                "packed padding fraction", self.packed_padding_fraction,
                "1 - useful / (packed rows x S)",
                f"1 - {self.useful_tokens:,} / ({self.packed_rows:,} x {s})", SOURCE,
            ),
            Figure(
                "useful token gain", self.useful_token_gain, "padded rows / packed rows",
                f"{self.padded_rows:,} / {self.packed_rows:,}", SOURCE,
            ),
            Figure(
                "attention scores, masked / unmasked", self.scores_packed_masked
                / self.scores_packed_unmasked, "sum l_i^2 / (rows x S^2) (causal: halves)",
                "", SOURCE,
            ),
        ]  # fmt: skip

    def wasted_flops_fraction(self, flops_per_token: float, flops_per_score: float) -> float:
        """Share of a padded batch's FLOPs spent on padding, for a model whose per-token (linear)
        cost is ``flops_per_token`` and whose attention costs ``flops_per_score`` per
        (query, key) pair, counting all padded positions as executed."""
        slots = self.padded_rows * self.maximum_length
        total = (
            slots * flops_per_token + self.padded_rows * self.maximum_length**2 * flops_per_score
        )
        useful = self.useful_tokens * flops_per_token + self.scores_padded * flops_per_score
        return 1 - useful / total


def packing_report(
    lengths: Iterable[int] | Mapping[int, int], maximum_length: int, *, causal: bool = True
) -> PackingReport:
    """Compare padded batches with packed rows (see the module docstring)."""
    if maximum_length <= 0:
        raise MlcostError(f"maximum_length: got {maximum_length}, expected a positive length")
    chunks = _chunks(lengths, maximum_length)
    bins = _first_fit_decreasing(chunks, maximum_length)

    def scores(length: np.ndarray | float) -> np.ndarray | float:
        return length * (length + 1) / 2 if causal else length * length

    per_row = float(scores(maximum_length))
    return PackingReport(
        maximum_length=maximum_length,
        useful_tokens=int(chunks.sum()),
        padded_rows=int(chunks.size),
        packed_rows=len(bins),
        scores_padded=float(np.sum(scores(chunks.astype(np.float64)))),
        scores_packed_masked=float(np.sum(scores(chunks.astype(np.float64)))),
        scores_packed_unmasked=per_row * len(bins),
    )


def minimum_rows(useful_tokens: int, maximum_length: int) -> int:
    """Lower bound on packed rows: ``ceil(useful / S)``."""
    return math.ceil(useful_tokens / maximum_length)
