"""Evaluation in blocks of rows (mlcost.blocks): the blocks cover every row once and in order, a
record's per-row columns are cut and nothing else, and the layout search evaluated in blocks
gives, column by column and to the bit, what the same search gives evaluated in one block (the
whole vectorized evaluation at once: every candidate's memory and step are its own)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mlcost
from mlcost import blocks
from mlcost.blocks import row_blocks, rows_of
from mlcost.parallel import search
from mlcost.parallel.degrees import Degrees
from mlcost.workload import TrainingConfig


@given(st.integers(0, 5000), st.integers(1, 700))
def test_blocks_cover_every_row_once_in_order(rows: int, size: int) -> None:
    found = row_blocks(rows, size)
    covered = [i for block in found for i in range(rows)[block]]
    assert covered == list(range(rows))
    assert all(0 < block.stop - block.start <= size for block in found)
    assert len(found) == -(-rows // size)  # ceil(rows / size), by hand


def test_a_block_needs_a_row() -> None:
    with pytest.raises(ValueError, match="size"):
        row_blocks(10, 0)


def test_a_records_per_row_columns_are_cut_and_nothing_else() -> None:
    rows = 7
    tp = np.arange(1, rows + 1)
    broadcast = np.array([4])  # one value for every row: kept as it is
    degrees = Degrees(
        dp=tp * 10, tp=tp, pp=2, cp=broadcast, ep=1, micro_batch=1, micro_batches=tp + 100,
        zero=0, sequence_parallel=False, virtual=1, recompute_fraction=0.0, first_layers=4,
        last_layers=4, middle_layers=4, tp_overlap=False, ep_overlap=False,
    )  # fmt: skip
    cut = rows_of(degrees, slice(2, 5), rows)
    assert cut.tp.tolist() == [3, 4, 5]
    assert cut.dp.tolist() == [30, 40, 50]
    assert cut.micro_batches.tolist() == [103, 104, 105]
    assert cut.pp == 2 and cut.cp is broadcast
    assert rows_of(Degrees.from_layouts([mlcost.Layout()], 32), slice(0, 1), 1).tp.tolist() == [1]


def test_the_search_in_blocks_equals_the_search_in_one_block(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = mlcost.model("llama-2-7b")
    config = TrainingConfig(sequence_length=4096)

    def columns(block_rows: int) -> dict[str, np.ndarray]:
        monkeypatch.setattr(blocks, "BLOCK_ROWS", block_rows)
        found = search(model, "dgx-h100", 512, config=config, gpus=16, keep_unfit=True)
        return {
            name: np.asarray(values) if np.ndim(values) == 0 else np.asarray(values)[found.order]
            for name, values in found.columns.items()
        }

    whole = columns(10**9)
    rows = whole["step_s"].size
    assert rows > 5 * 997  # several blocks of 997 rows, the last one shorter
    blocked = columns(997)
    assert blocked.keys() == whole.keys()
    for name, values in whole.items():
        assert values.dtype == blocked[name].dtype, name
        assert np.array_equal(values, blocked[name], equal_nan=values.dtype.kind == "f"), name
