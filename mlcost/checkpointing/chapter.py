"""The textbook chapter's abstraction of activation checkpointing (its Table "Checkpointing
Memory-Compute Tradeoffs", T-14 and F-55 in the seed catalog): every layer stores ``A`` and a
checkpoint costs a whole layer's ``A``, so ``k`` evenly spaced checkpoints take ``k·A + (L/k)·A``
memory and ``L - k`` recomputed forwards, minimized at ``k = sqrt(L)``. The exact model of
per-layer costs is :mod:`mlcost.checkpointing.placement`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pint

from mlcost.arrays import Real
from mlcost.checks import counts
from mlcost.errors import MlcostError
from mlcost.units import Q_

if TYPE_CHECKING:
    import pandas as pd


def chapter_checkpoint_memory(
    layers: Real, checkpoints: Real, activation: Real | pint.Quantity
) -> Real | pint.Quantity:
    """Memory of ``k`` evenly spaced checkpoints: ``k·A + (L/k)·A``.

    Source: the textbook chapter, table "Checkpointing Memory-Compute Tradeoffs" (seed catalog
    T-14, F-55). Assumes every layer stores ``A`` (a quantity or a number) and a checkpoint costs
    a whole layer's ``A``; ``L/k`` is the segment rematerialized during backward. ``L`` and ``k``
    are whole counts >= 1 with ``k <= L``.
    """
    _layers_and_checkpoints(layers, checkpoints)
    return checkpoints * activation + (layers / checkpoints) * activation


def chapter_recompute_forwards(layers: Real, checkpoints: Real) -> Real:
    """Layer forwards recomputed with ``k`` checkpoints: ``L - k`` (chapter T-14): every layer but
    the checkpointed ones is run forward twice."""
    _layers_and_checkpoints(layers, checkpoints)
    return layers - checkpoints


def _layers_and_checkpoints(layers: Real, checkpoints: Real) -> None:
    counts(layers, "layers")
    counts(checkpoints, "checkpoints")
    if np.any(np.asarray(checkpoints) > np.asarray(layers)):
        raise MlcostError(
            f"checkpoints: got {checkpoints!r}, expected at most the {layers!r} layers"
        )


def chapter_optimal_checkpoints(layers: Real) -> Real:
    """``k = sqrt(L)``: where ``d/dk (k·A + L·A/k) = A - L·A/k^2 = 0`` (chapter, L3037). Rounded
    to the nearest whole checkpoint (the chapter's "sqrt(48) approximately equals 7")."""
    counts(layers, "layers")
    return np.rint(np.sqrt(layers)).astype(int)


def chapter_strategy_table(layers: int, activation: pint.Quantity | float = 1.0) -> pd.DataFrame:
    """The chapter's table T-14 for ``L`` layers with the optimal ``k = round(sqrt(L))``.

    The "checkpoint every layer" row is the chapter's literal (memory ``A``, ``L - 1``
    forwards). It is not the ``k = L`` case of the chapter's own ``k``-checkpoint formula, which
    gives ``L·A + A`` and 0 forwards; it holds when a checkpoint (a layer input) is small next to
    ``A``: memory ``L·c + A ~ A``, every layer recomputed but the last.
    """
    import pandas as pd

    k = int(chapter_optimal_checkpoints(layers))
    unit = activation if isinstance(activation, pint.Quantity) else Q_(activation, "")
    rows = [
        ("no checkpointing", layers * unit, 0, "L x A"),
        ("checkpoint every layer", unit, layers - 1, "A (chapter's literal)"),
        (
            f"k = {k} checkpoints",
            chapter_checkpoint_memory(layers, k, unit),
            chapter_recompute_forwards(layers, k),
            "k x A + (L/k) x A",
        ),
    ]
    frame = pd.DataFrame(
        [
            {
                "strategy": name,
                "memory": memory.magnitude,
                "memory / A": (memory / unit).to("").magnitude,
                "saving": 1 - (memory / (layers * unit)).to("").magnitude,
                "recomputed forwards": forwards,
                "formula": formula,
            }
            for name, memory, forwards, formula in rows
        ]
    )
    frame.attrs["unit"] = str(unit.units)
    return frame
