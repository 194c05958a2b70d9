"""The papers' and the textbook chapter's closed forms for parallel training: communication
volumes, the pipeline bubble, the communication tax, the network wall and Narayanan et al.'s
end-to-end training time. Quantities in, quantities out (counts may be numpy arrays)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pint

from mlcost.arrays import Real, plain
from mlcost.checks import counts, finite
from mlcost.errors import MlcostError
from mlcost.records import Record
from mlcost.results import Figure, Result
from mlcost.units import Q_, magnitude_in


def zero_communication_volume(
    parameters: Any, zero_stage: int, ranks: Real | None = None
) -> pint.Quantity:
    """Elements each GPU sends per step under data parallelism with ZeRO ``zero_stage``, in
    units of the model size ``Psi`` (Rajbhandari et al. 2020, section 7):

    * stage 0 (plain DP): all-reduce = reduce-scatter + all-gather, ``2·Psi``;
    * stages 1 and 2: reduce-scatter of gradients + all-gather of parameters, ``2·Psi``;
    * stage 3: all-gather in forward, all-gather in backward, reduce-scatter: ``3·Psi`` (1.5x).

    With ``ranks`` the ring's exact ``(n-1)/n`` per collective is applied (the paper's figures are
    the large-``n`` limit, ``ranks=None``). One micro-batch per step.
    """
    if zero_stage not in (0, 1, 2, 3):
        raise MlcostError(f"zero_stage: got {zero_stage!r}, expected 0, 1, 2 or 3")
    psi = Q_(magnitude_in(parameters, "param", "parameters"), "param")
    collectives = 3 if zero_stage == 3 else 2
    if ranks is None:
        return psi * collectives
    n = np.asarray(ranks, dtype=np.float64)
    return psi * collectives * (n - 1) / n


def gradient_all_reduce_bytes(gradient_bytes: Real, ranks: Real | None = None) -> Real:
    """Bytes each GPU sends in a ring all-reduce of ``gradient_bytes``: ``2(n-1)/n x`` the data
    (Patarasuk and Yuan 2009; the chapter's footnote), or the chapter's ``2x`` without ``ranks``.
    Plain numbers; the one home of the "2 x gradient bytes" rule."""
    finite(gradient_bytes, "gradient_bytes")
    if ranks is None:
        return 2.0 * gradient_bytes
    n = np.asarray(counts(ranks, "ranks"), dtype=np.float64)
    return gradient_bytes * 2 * (n - 1) / n


def data_parallel_traffic(parameters: Any, bytes_per_gradient: Any, ranks: Real) -> pint.Quantity:
    """Bytes each GPU sends in a ring all-reduce of the gradients: ``2(n-1)/n · Psi · e_g``
    (Patarasuk and Yuan 2009; the chapter's footnote "2(N-1)/N x the data"). ``bytes_per_gradient``
    in bytes (per parameter)."""
    psi = magnitude_in(parameters, "param", "parameters")
    each = magnitude_in(bytes_per_gradient, "byte/param", "bytes_per_gradient", bare=True)
    return Q_(gradient_all_reduce_bytes(psi * each, ranks), "byte")


def tensor_parallel_traffic(
    micro_batch: Real,
    sequence: Real,
    hidden: int,
    layers: Real,
    bytes_per_activation: Any = 2.0,
    *,
    full_recompute: bool = False,
) -> pint.Quantity:
    """Bytes all-reduced per micro-batch by Megatron tensor parallelism: ``(4 [+2]) · L · b·s·h·e``.

    Shoeybi et al. 2019 (Megatron-LM), section 3 and Figure 4: the ``g`` operator all-reduces the
    output of the attention block and of the MLP in forward (2 per layer), the ``f`` operator the
    input gradients in backward (2 per layer). Full recomputation repeats the forward pair
    (Korthikanti et al. 2022, section 5). Sequence parallelism replaces each all-reduce by a
    reduce-scatter + all-gather of the same size (Korthikanti et al. 2022, section 4.2.2).
    """
    each = magnitude_in(bytes_per_activation, "byte", "bytes_per_activation", bare=True)
    calls = 4 + (2 if full_recompute else 0)
    return Q_(calls * layers * micro_batch * sequence * hidden * each, "byte")


def pipeline_bubble_fraction(stages: Real, micro_batches: Real, virtual: Real = 1) -> Real:
    """Pipeline bubble over ideal compute time: ``(p-1)/m`` for 1F1B (and GPipe), ``(p-1)/(v·m)``
    for the interleaved schedule with ``v`` model chunks per GPU (Narayanan et al. 2021,
    "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", sections
    2.2.1 and 2.2.2), for equal stages."""
    p = np.asarray(stages, dtype=np.float64)
    m = np.asarray(micro_batches, dtype=np.float64)
    v = np.asarray(virtual, dtype=np.float64)
    if np.any(m < 1) or np.any(p < 1) or np.any(v < 1):
        raise MlcostError(
            f"pipeline_bubble_fraction: got p={stages!r}, m={micro_batches!r}, v={virtual!r}; "
            "expected counts >= 1"
        )
    return plain((p - 1) / (v * m))


def communication_tax_speedup(gpus: Real, communication_fraction: Real) -> Real:
    """The chapter's communication tax ``speedup = N / (1 + (N-1)·r)`` (seed chapter,
    ``fig-communication-tax``; Amdahl's law with the communicating share ``r`` of a step not
    parallelized): equal to ``1 / (r + (1-r)/N)``."""
    n = np.asarray(gpus, dtype=np.float64)
    r = np.asarray(communication_fraction, dtype=np.float64)
    if np.any(n < 1) or np.any((r < 0) | (r > 1)):
        raise MlcostError(
            f"communication_tax_speedup: got N={gpus!r}, r={communication_fraction!r}; "
            "expected N >= 1 and 0 <= r <= 1"
        )
    return plain(n / (1 + (n - 1) * r))


def implied_communication_fraction(speedup: Real, gpus: Real) -> Real:
    """The ``r`` that makes the chapter's curve pass through a (model-derived) speedup:
    ``r = (N/S - 1) / (N - 1)`` (its inverse; undefined at N = 1, returned as 0)."""
    n = np.asarray(counts(gpus, "gpus"), dtype=np.float64)
    s = np.asarray(finite(speedup, "speedup", strict=True), dtype=np.float64)
    safe = np.where(n > 1, n - 1, 1.0)
    return plain(np.where(n > 1, (n / s - 1) / safe, 0.0))


def end_to_end_training_time(
    tokens: Any,
    parameters: Any,
    gpus: int,
    throughput_per_gpu: Any,
    *,
    flops_per_parameter_token: float = 8.0,
) -> pint.Quantity:
    """Narayanan et al. 2021, section 5.1, eq. (4): ``T ≈ 8·T·P / (n·X)`` for ``T`` tokens, ``P``
    parameters, ``n`` GPUs at ``X`` FLOP/s each; 8 = 2 forward + 4 backward + 2 recomputed
    forward (6 without activation recomputation)."""
    t = magnitude_in(tokens, "token", "tokens", bare=True)
    p = magnitude_in(parameters, "param", "parameters", bare=True)
    x = magnitude_in(throughput_per_gpu, "flop/s", "throughput_per_gpu")
    return Q_(flops_per_parameter_token * t * p / (gpus * x), "s").to("day")


class NetworkWall(Record, Result, frozen=True):
    """Gradient bytes, bytes moved by the all-reduce, its time, and whether it is the
    bottleneck against a compute time (the chapter's "network wall")."""

    gradient_bytes: pint.Quantity
    factor: float
    moved_bytes: pint.Quantity
    communication_time: pint.Quantity
    compute_time: pint.Quantity | None = None
    convention: str = ""

    @property
    def bottleneck(self) -> bool | None:
        """True when communication takes longer than computation (None without a compute time)."""
        if self.compute_time is None:
            return None
        return bool(self.communication_time > self.compute_time)

    def title(self) -> str:
        return "the network wall (textbook chapter, network-wall-calc)"

    def figures(self) -> list[Figure]:
        figures = [
            Figure(
                "moved bytes",
                self.moved_bytes,
                "gradients x all-reduce factor",
                f"{self.gradient_bytes.to('GB').magnitude:g} GB x {self.factor:g}",
                self.convention,
            ),
            Figure(
                "communication time",
                self.communication_time,
                "moved bytes / bandwidth",
                "",
                "the textbook chapter (latency ignored)",
            ),
        ]
        if self.compute_time is not None:
            verdict = "network-bound" if self.bottleneck else "compute-bound"
            figures.append(Figure("compute time", self.compute_time, verdict, "", "given"))
        return figures

    def explain(self) -> str:
        """The chapter's arithmetic in one line, under the title."""
        text = (
            f"{self.title()}\n"
            f"gradients {self.gradient_bytes.to('GB').magnitude:g} GB x {self.factor:g} "
            f"({self.convention}) = {self.moved_bytes.to('GB').magnitude:g} GB; at the link's "
            f"bandwidth: {self.communication_time.to('s').magnitude:.4g} s"
        )
        if self.compute_time is not None:
            verdict = "network-bound" if self.bottleneck else "compute-bound"
            text += f" vs compute {self.compute_time.to('s').magnitude:.4g} s: {verdict}"
        return text


def network_wall(
    parameters: Any,
    bytes_per_gradient: Any,
    bandwidth: Any,
    *,
    ranks: int | None = None,
    compute_time: pint.Quantity | None = None,
) -> NetworkWall:
    """The chapter's network wall (``network-wall-calc``): gradient bytes ``P x e``, times the
    all-reduce factor, over the link's bandwidth (``bytes_per_gradient`` in byte/param or a
    plain number of bytes). Without ``ranks``: the chapter's convention,
    factor 2 ("ring ≈ 2x"); with ``ranks`` the ring's exact ``2(n-1)/n`` (Patarasuk and Yuan
    2009; the chapter's footnote). Latency is ignored, as in the chapter."""
    psi = magnitude_in(parameters, "param", "parameters")
    each = magnitude_in(bytes_per_gradient, "byte/param", "bytes_per_gradient", bare=True)
    rate = magnitude_in(bandwidth, "byte/s", "bandwidth")
    if ranks is not None and ranks < 1:
        raise MlcostError(f"ranks: got {ranks!r}, expected >= 1")
    gradient = psi * each
    moved = gradient_all_reduce_bytes(gradient, ranks)
    factor = moved / gradient if gradient else 2.0
    convention = (
        "the chapter's all-reduce factor 2" if ranks is None else f"ring 2(n-1)/n, n = {ranks}"
    )
    return NetworkWall(
        gradient_bytes=Q_(gradient, "byte").to("GB"),
        factor=float(factor),
        moved_bytes=Q_(moved, "byte").to("GB"),
        communication_time=Q_(moved / rate, "s"),
        compute_time=compute_time,
        convention=convention,
    )
