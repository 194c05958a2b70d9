"""Scaling curves: step time, speedup and efficiency as the data-parallel degree grows, from the
same vectorized evaluation as one layout (:func:`mlcost.parallel.step.evaluate`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from mlcost.errors import MlcostError
from mlcost.implementation import SoftwareLike
from mlcost.implementation import implementation as implementation_of
from mlcost.layout import Layout
from mlcost.parallel.closed_forms import implied_communication_fraction
from mlcost.parallel.compute import compute_parts, model_dims
from mlcost.parallel.degrees import CommOptions, Degrees
from mlcost.parallel.step import evaluate
from mlcost.records import Record
from mlcost.results import Figure, Result
from mlcost.specs import ModelSpec, TransformerSpec
from mlcost.specs.catalog import as_model
from mlcost.systems import SystemLike, system
from mlcost.timing import Mode
from mlcost.units import Q_
from mlcost.workload import TrainingConfig

if TYPE_CHECKING:
    import pandas as pd


class ScalingCurve(Record, Result, frozen=True):
    """One row per GPU count (:func:`scaling_curve`); ``plot()`` draws speedup and efficiency."""

    frame: pd.DataFrame
    kind: str
    description: str

    def title(self) -> str:
        return f"{self.kind} scaling: {self.description}"

    def figures(self) -> list[Figure]:
        last = self.frame.iloc[-1]
        return [
            Figure(
                f"efficiency at {int(last.gpus)} GPUs",
                Q_(last.efficiency, "").to("percent"),
                "S(N) / N",
                f"speedup {last.speedup:.4g} on {int(last.gpus)} GPUs",
                "mlcost.parallel.step (this curve); the chapter's N / (1 + (N-1)·r) with "
                f"r = {last.implied_r:.4g}",
            )
        ]

    def to_frame(self) -> pd.DataFrame:
        return self.frame

    def plot(self, ax: Any = None) -> Any:
        """Speedup against GPUs, beside linear scaling (:func:`mlcost.plot.scaling`)."""
        from mlcost import plot

        return plot.scaling(self, ax=ax)


def _micro_batches(
    kind: str, layout: Layout, dp: np.ndarray, global_batch_size: int | None, gpus: list[int]
) -> np.ndarray:
    """Micro-batches per step at each data-parallel degree: the global batch split over
    ``dp x micro-batch`` (strong scaling), or the layout's (weak scaling)."""
    mb = layout.micro_batch_size
    if kind == "weak":
        return np.full_like(dp, layout.micro_batches)
    example = int(np.lcm.reduce(dp)) * mb
    if global_batch_size is None and layout.global_batch_size is None:
        raise MlcostError(
            "global_batch_size: a strong-scaling curve keeps the global batch fixed; give "
            f"global_batch_size= (e.g. {example}) or a layout with one, or kind='weak'"
        )
    batch = global_batch_size or layout.global_batch
    if np.any(batch % (dp * mb)):
        raise MlcostError(
            f"global_batch_size: {batch} is not a multiple of dp x micro_batch for every "
            f"count in {gpus}; e.g. {example}"
        )
    return batch // (dp * mb)


def scaling_curve(
    model: ModelSpec | str,
    config: TrainingConfig,
    target: SystemLike,
    gpus: Sequence[int],
    *,
    layout: Layout | None = None,
    kind: str = "strong",
    global_batch_size: int | None = None,
    mode: Mode = "roofline",
    options: CommOptions | None = None,
    implementation: SoftwareLike = None,
) -> ScalingCurve:
    """Step time, speedup and scaling efficiency as the data-parallel degree grows (the other
    degrees, micro-batch and ZeRO stage from ``layout``), in one vectorized evaluation.

    * ``strong``: fixed global batch (``global_batch_size`` or the layout's); ``m`` shrinks as
      GPUs are added. Speedup ``S(N) = N0 · T(N0) / T(N)``.
    * ``weak``: fixed work per GPU (``m`` fixed); the global batch grows with ``N``.
      Speedup ``S(N) = N · W(N) / T(N)`` with ``W = compute + bubble`` the step without
      communication (the same per-GPU work on one replica). This is the chapter's
      ``N / (1 + (N-1)·r)`` with ``r`` derived rather than assumed.

    ``N0 = t·p·c`` is the smallest layout (one data-parallel replica); efficiency ``S/N``; the
    ``comm_fraction`` column is the exposed communication share of the step, and ``implied_r``
    the chapter's ``r`` that reproduces the model's speedup.
    """
    import pandas as pd

    if kind not in ("strong", "weak"):
        raise MlcostError(f"kind: got {kind!r}, expected 'strong' or 'weak'")
    spec = as_model(model)
    layout = layout or Layout()
    base = layout.model_parallel
    counts = np.asarray(list(gpus), dtype=np.int64)
    if counts.size == 0 or np.any(counts % base) or np.any(counts < base):
        raise MlcostError(
            f"gpus: every count must be a multiple of t x p x c = {base}; got {list(gpus)}"
        )
    resolved = system(target).for_gpus(int(counts.max()))
    layers = spec.num_layers if isinstance(spec, TransformerSpec) else 1
    if isinstance(spec, TransformerSpec):
        layout.check_model(
            spec.num_layers,
            spec.num_attention_heads,
            config.sequence_length,
            experts=spec.routed_experts,
        )
    dp = counts // base
    all_counts = np.concatenate([[base], counts])
    all_dp = np.concatenate([[1], dp])
    mb = layout.micro_batch_size
    micro_batches = _micro_batches(kind, layout, all_dp, global_batch_size, list(gpus))
    software = implementation_of(implementation)
    parts = compute_parts(
        spec, config, resolved, layout, np.array([mb]), mode=mode, software=software
    )
    parts = parts.take(np.zeros(all_dp.shape, dtype=np.int64))
    degrees = Degrees.from_layouts([layout], layers).broadcast_to(
        all_dp.shape, dp=all_dp, micro_batches=micro_batches
    )
    result = evaluate(
        model_dims(spec, config, software),
        resolved,
        degrees,
        parts,
        gpus_per_node=np.minimum(resolved.gpus_per_node, all_counts),
        options=options,
        software=software,
    )
    t0, totals = result.total[0], result.total[1:]
    if kind == "strong":
        speedup = base * t0 / totals
    else:
        # Compute over the step as the model splits it (the calibration scales both alike).
        speedup = counts * (result.compute[1:] + result.bubble[1:]) / result.uncorrected[1:]
    sequence = config.sequence_length if isinstance(spec, TransformerSpec) else 1
    tokens = all_dp * mb * micro_batches * sequence
    frame = pd.DataFrame(
        {
            "gpus": counts,
            "nodes": np.ceil(counts / resolved.gpus_per_node).astype(int),
            "dp": dp,
            "micro_batches": np.asarray(micro_batches)[1:],
            "step_s": totals,
            "compute_s": result.compute[1:],
            "bubble_s": result.bubble[1:],
            "exposed_comm_s": result.exposed[1:],
            "total_comm_s": result.communication[1:],
            "tokens_per_s": tokens[1:] / totals,
            "mfu": result.mfu[1:],
            "speedup": speedup,
            "efficiency": speedup / counts,
            "comm_fraction": result.exposed[1:] / result.uncorrected[1:],
            "implied_r": implied_communication_fraction(speedup, counts),
        }
    )
    return ScalingCurve(
        frame=frame,
        kind=kind,
        description=f"{spec.name} on {resolved.name}, {layout.describe()}",
    )
