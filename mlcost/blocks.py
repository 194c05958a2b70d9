"""Evaluating many candidates in blocks of rows that fit the CPU's cache.

A vectorized formula over a million candidates makes one array per intermediate value, each of
a million float64 (8 MB): larger than a core's L2 cache, and, above glibc's allocation
threshold, mapped fresh from the kernel and faulted in page by page every time. Where each
candidate's value depends on that candidate's inputs only (a layout search: every layout's
memory and step time are its own), the same formula over blocks of :data:`BLOCK_ROWS` rows
gives the same values, element by element the same IEEE operations, with intermediates of
256 KiB that stay in cache and are reused by the allocator.

Measured on this project's 2-core CI machine (``benchmarks/parallel_search.py``, Llama-2-70B
on 4096 H100s, 1,165,716 candidates, evaluation of the step times alone in blocks): 2.24 s ->
1.59 s per search with blocks of 16,384 or 65,536 rows, 1.85 s with 262,144.
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from mlcost.records import Record, replace

#: Rows per block: 32,768 float64 = 256 KiB per intermediate array (module docstring: 16,384
#: and 65,536 measured alike).
BLOCK_ROWS = 32_768

R = TypeVar("R", bound=Record)


def row_blocks(rows: int, size: int | None = None) -> list[slice]:
    """Slices covering ``range(rows)`` in order, each of at most ``size`` rows (default
    :data:`BLOCK_ROWS`, read at the call); one slice of all the rows when they fit in one
    block; none for no rows."""
    size = BLOCK_ROWS if size is None else size
    if size < 1:
        raise ValueError(f"size: got {size}, expected at least one row per block")
    return [slice(start, min(start + size, rows)) for start in range(0, rows, size)]


def rows_of(record: R, block: slice, rows: int) -> R:
    """``record`` (a :class:`mlcost.records.Record` of columns) with every field that holds one
    value per row (a one-dimensional array of ``rows`` values) cut to ``block``; numbers and
    arrays that broadcast (of another shape) are kept as they are."""
    cut: dict[str, Any] = {}
    for name in record.__struct_fields__:
        value = getattr(record, name)
        if type(value) is np.ndarray and value.shape == (rows,):
            cut[name] = value[block]
    return replace(record, **cut) if cut else record


__all__ = ["BLOCK_ROWS", "row_blocks", "rows_of"]
