"""Sequence packing, on an example worked by hand."""

from __future__ import annotations

import pytest

from mlcost.errors import MlcostError
from mlcost.workload.packing import minimum_rows, packing_report


def test_worked_example() -> None:
    # Lengths 100, 300, 50, 600 at S = 512: 600 splits into 512 + 88, so chunks
    # 100, 300, 50, 512, 88: 5 padded rows, 1050 useful tokens of 2560 slots.
    report = packing_report([100, 300, 50, 600], 512)
    assert report.useful_tokens == 1050
    assert report.padded_rows == 5
    assert report.padding_fraction == pytest.approx(1 - 1050 / 2560)
    # First-fit decreasing: [512], [300, 100, 88] (488), [50] -> 3 rows; ceil(1050/512) = 3.
    assert report.packed_rows == 3 == minimum_rows(1050, 512)
    assert report.useful_token_gain == pytest.approx(5 / 3)
    # Causal scores with document masking: sum l(l+1)/2; without: 3 rows of 512·513/2.
    masked = sum(length * (length + 1) / 2 for length in (100, 300, 50, 512, 88))
    assert report.scores_packed_masked == masked
    assert report.scores_packed_unmasked == 3 * 512 * 513 / 2


def test_histogram_equals_list() -> None:
    from_list = packing_report([128] * 10 + [1000] * 3, 2048)
    from_histogram = packing_report({128: 10, 1000: 3}, 2048)
    assert from_list == from_histogram


def test_wasted_flops() -> None:
    # One document of 256 in a 1024 row; linear cost only: 3/4 of the FLOPs are padding.
    report = packing_report([256], 1024)
    assert report.wasted_flops_fraction(flops_per_token=1.0, flops_per_score=0.0) == 0.75


@pytest.mark.parametrize("bad", [[], [0, 5], [-3]])
def test_bad_lengths(bad: list[int]) -> None:
    with pytest.raises(MlcostError, match="lengths"):
        packing_report(bad, 512)
