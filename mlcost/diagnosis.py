"""Bottleneck diagnosis in the textbook chapter's D·A·M terms (data, algorithm/compute, memory),
with the techniques that address each, as data users can print.

From a predicted step (:class:`mlcost.timing.StepTime`) the compute- and memory-bound shares of
the step time follow from the roofline; a measured data-wait fraction (time the GPU waits for
input, from a profiler) adds the data axis, and a measured utilization can replace the
prediction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from mlcost.errors import MlcostError
from mlcost.records import Record
from mlcost.results import Figure, Result
from mlcost.timing import StepTime

if TYPE_CHECKING:
    import pandas as pd

#: What addresses each bottleneck (the chapter's optimization section; Micikevicius et al. 2018
#: for mixed precision; Dao et al. 2022 for FlashAttention; Chen et al. 2016 for recomputation).
TECHNIQUES: dict[str, tuple[str, ...]] = {
    "data-bound": (
        "prefetching and more data-loader workers (overlap loading with compute)",
        "pinned host memory and non-blocking host-to-device copies",
        "faster storage or caching the dataset; sequence packing to cut padding",
    ),
    "memory-bound": (
        "mixed precision (halves bytes per element)",
        "FlashAttention / fused kernels (no score matrix round trips through HBM)",
        "larger micro-batches (more FLOPs per byte of weights) where memory allows",
    ),
    "compute-bound": (
        "lower-precision tensor cores (BF16 -> FP8 doubles the peak on H100)",
        "avoid recomputation where memory allows (HFU > MFU means repeated work)",
        "shapes that fill whole waves (multiples of 64/128; the 32 vs 33 example)",
    ),
    "capacity-bound": (
        "activation recomputation (selective or full)",
        "gradient accumulation (smaller micro-batches, same global batch)",
        "ZeRO / FSDP sharding or CPU offload of optimizer states",
    ),
}


class Diagnosis(Record, Result, frozen=True):
    """The share of a step on each D·A·M axis, the bottleneck and what addresses it."""

    shares: dict[str, float]
    mfu: float
    description: str = ""

    @property
    def bottleneck(self) -> str:
        return max(self.shares, key=lambda k: self.shares[k])

    def title(self) -> str:
        return f"diagnosis ({self.bottleneck}, MFU {self.mfu:.1%}): {self.description}"

    def figures(self) -> list[Figure]:
        return [
            Figure(
                axis, share, "share of the step time on this axis",
                "the bottleneck" if axis == self.bottleneck else "", "; ".join(TECHNIQUES[axis]),
                key=axis,
            )
            for axis, share in self.shares.items()
        ]  # fmt: skip

    def to_frame(self) -> pd.DataFrame:
        """One row per axis (index): share of step, verdict, techniques."""
        import pandas as pd

        rows: list[dict[str, Any]] = [
            {
                "axis": axis,
                "share of step": share,
                "verdict": "the bottleneck" if axis == self.bottleneck else "",
                "techniques": "; ".join(TECHNIQUES[axis]),
            }
            for axis, share in self.shares.items()
        ]
        return pd.DataFrame(rows).set_index("axis")


def diagnose(
    step: StepTime, *, data_wait_fraction: float = 0.0, measured_utilization: float | None = None
) -> Diagnosis:
    """The data-, memory- and compute-bound shares of ``step`` (``data_wait_fraction`` measured
    by a profiler; the rest split by each operator's roofline bound) and what to do about it."""
    if not 0.0 <= data_wait_fraction <= 1.0:
        raise MlcostError(
            f"data_wait_fraction: got {data_wait_fraction!r}, expected a share in [0, 1]"
        )
    frame = step.to_frame()
    compute = np.array([np.sum(v) for v in frame["compute_s"]], dtype=float)
    memory = np.array([np.sum(v) for v in frame["memory_s"]], dtype=float)
    total = np.array([np.sum(v) for v in frame["time_s"]], dtype=float)
    memory_bound = float(total[memory > compute].sum() / total.sum())
    busy = 1.0 - data_wait_fraction
    shares = {
        "data-bound": data_wait_fraction,
        "memory-bound": memory_bound * busy,
        "compute-bound": (1.0 - memory_bound) * busy,
    }
    mfu = float(np.max(step.mfu())) if measured_utilization is None else measured_utilization
    return Diagnosis(shares=shares, mfu=mfu, description=step.title())
