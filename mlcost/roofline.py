"""The roofline model (Williams, Waterman and Patterson 2009, "Roofline: an insightful visual
performance model"): arithmetic intensity, ridge points, attainable throughput, and the ceilings
a prediction uses.

* Arithmetic intensity ``I = FLOPs / bytes moved`` (FLOP/byte).
* Attainable throughput ``min(peak · eta_c, I · bandwidth · eta_m)``; an operator with ``I``
  below the ridge point ``peak / bandwidth`` is memory-bound.
* GEMM ``[M x K]·[K x N]`` reading both operands and writing the result once, ``e`` bytes per
  element: ``I = 2·M·N·K / (e·(M·K + K·N + M·N))``.
* Element-wise operator with ``f`` FLOPs per element reading ``r`` tensors and writing one:
  ``I = f / ((r + 1)·e)``. A ReLU in FP16 is ``1 / 4 = 0.25`` FLOP/byte (the chapter's figure);
  LayerNorm (7 FLOPs per element, ``ELEMENTWISE_FLOPS``) is ``1.75`` and softmax (5) ``1.25``
  FLOP/byte in FP16. The chapter's table says "~10" and "~5" for these (hard-coded, and its own
  text later says LayerNorm is "approximately 1 FLOP/byte"); both are memory-bound either way.

Efficiencies are inputs with stated defaults (:class:`Ceilings`), never literals in formulas;
the calibration layer replaces datasheet peaks with measured ones through the same class.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt
import pint

from mlcost.arrays import Array, Real, divide, plain
from mlcost.checks import counts, finite, quantity
from mlcost.errors import MlcostError
from mlcost.specs import Accelerator
from mlcost.units import Q_, format_quantity, in_unit


def arithmetic_intensity(flops: pint.Quantity, bytes_moved: pint.Quantity) -> pint.Quantity:
    """``FLOPs / bytes moved`` in FLOP/byte (FLOPs >= 0, bytes > 0, finite)."""
    work = quantity(flops, "flop", "flops")
    moved = quantity(bytes_moved, "byte", "bytes_moved", strict=True)
    return Q_(work / moved, "flop/byte")


def gemm_intensity(m: Real, n: Real, k: Real, bytes_per_element: float = 2.0) -> pint.Quantity:
    """``2·M·N·K / (e·(M·K + K·N + M·N))`` FLOP/byte: operands read once, result written once."""
    for value, name in ((m, "m"), (n, "n"), (k, "k"), (bytes_per_element, "bytes_per_element")):
        finite(value, name, strict=True)
    return Q_(2 * m * n * k / (bytes_per_element * (m * k + k * n + m * n)), "flop/byte")


def elementwise_intensity(
    flops_per_element: float, bytes_per_element: float = 2.0, inputs: int = 1
) -> pint.Quantity:
    """``f / ((inputs + 1)·e)`` FLOP/byte for an element-wise operator."""
    finite(flops_per_element, "flops_per_element")
    finite(bytes_per_element, "bytes_per_element", strict=True)
    counts(inputs, "inputs")
    return Q_(flops_per_element / ((inputs + 1) * bytes_per_element), "flop/byte")


def attainable_throughput(
    intensity: pint.Quantity,
    peak: pint.Quantity,
    bandwidth: pint.Quantity,
    *,
    compute_efficiency: float = 1.0,
    memory_efficiency: float = 1.0,
) -> pint.Quantity:
    """``min(peak · eta_c, I · bandwidth · eta_m)`` in FLOP/s (vectorized over ``intensity``);
    intensity >= 0, peak and bandwidth > 0, efficiencies in (0, 1]."""
    for share, name in ((compute_efficiency, "compute_efficiency"),
                        (memory_efficiency, "memory_efficiency")):  # fmt: skip
        if not 0 < float(share) <= 1:
            raise MlcostError(f"{name}: got {share!r}, expected a share in (0, 1]")
    compute = quantity(peak, "flop/s", "peak", strict=True) * compute_efficiency
    memory = (
        quantity(intensity, "flop/byte", "intensity")
        * quantity(bandwidth, "byte/s", "bandwidth", strict=True)
        * memory_efficiency
    )
    return Q_(np.minimum(compute, memory), "flop/s").to("TFLOP/s")


def warp_quantization_efficiency(size: Real, granule: int = 32) -> Real:
    """Share of lanes doing useful work when ``size`` items run in granules of ``granule``
    (warps of 32 threads): ``size / (granule · ceil(size / granule))``. Batch 32 fills one warp
    (100%); batch 33 needs two (33/64 = 51.6%, the chapter's "52%"); 65 needs three (67.7%)."""
    size = np.asarray(finite(size, "size", strict=True), dtype=np.float64)
    counts(granule, "granule")
    return plain(size / (granule * np.ceil(size / granule)))


def wave_quantization_efficiency(tiles: Real, units: int) -> Real:
    """Share of the SMs busy across the waves of a kernel: ``tiles / (units · ceil(tiles/units))``
    (a GEMM's output tiles run in waves of one tile per SM)."""
    counts(units, "units")
    tiles = np.maximum(np.asarray(tiles, dtype=np.float64), 1.0)
    return plain(tiles / (units * np.ceil(tiles / units)))


@dataclass(frozen=True)
class Ceilings:
    """The ceilings a time prediction uses: datasheet peaks by default, measured ones after
    calibration. Defaults and where they come from:

    * ``compute_efficiency`` 0.8: large BF16 GEMMs reach roughly 80-90% of the tensor peak on
      A100/H100-class GPUs (NVIDIA "Matrix Multiplication Background" performance guide); an
      assumption until measured with ``mlcost bench``.
    * ``memory_efficiency`` 0.85: streaming kernels reach about 85-90% of HBM peak (STREAM-style
      copy/triad on A100/H100); an assumption until measured.
    * ``vector_efficiency`` 0.5: element-wise kernels on the CUDA cores (they are memory-bound,
      so this rarely matters).
    * ``launch_overhead`` 5 us per kernel (CUDA kernel launch latency is a few microseconds);
      an assumption until measured.
    * ``tile`` 128 x 128 output tile per SM for the wave quantization of GEMMs (the common
      CUTLASS/cuBLAS tile for large BF16 GEMMs).
    * ``unaligned_gemm`` (1, 1, 1): the throughput of a GEMM whose feature dimension is not a
      multiple of 16 bytes, relative to an aligned one, per pass (forward ``nn``, input gradient
      ``nt``, weight gradient ``tn``); no penalty unless measured (``Measured.gemm_unaligned``).
    * ``read_bandwidth`` None: a pure read stream at the triad's rate unless measured
      (``Measured.memory_read_bandwidth``; :meth:`stream_seconds` says which bytes it carries).
    * ``kernel_latency`` none: per kernel class, seconds a memory-bound kernel takes beyond its
      bytes (``Measured.kernel_latency``; :meth:`latency_of`).
    * ``corner`` infinite: the sharp roofline ``max(compute, memory)`` unless a smoother corner
      was measured (``Measured.roofline_corner``; :meth:`combine`).
    * ``first_touch_bandwidth`` 0 (none): a host-executed device's rate of mapping and first
      writing fresh pages, for buffers of at least ``mmap_threshold`` bytes
      (``Measured.first_touch_bandwidth``; :meth:`first_touch_seconds`); a GPU has none.
    """

    name: str
    peak: pint.Quantity
    vector_peak: pint.Quantity
    bandwidth: pint.Quantity
    compute_units: int
    compute_efficiency: float = 0.8
    memory_efficiency: float = 0.85
    vector_efficiency: float = 0.5
    launch_overhead: pint.Quantity = field(default_factory=lambda: Q_(5, "us"))
    tile: tuple[int, int] = (128, 128)
    format: str = "bf16"
    gemm_curve: tuple[tuple[float, float], ...] = ()
    gemm_curve_nt: tuple[tuple[float, float], ...] = ()
    gemm_curve_tn: tuple[tuple[float, float], ...] = ()
    attention_curve: tuple[tuple[float, float], ...] = ()
    unaligned_gemm: tuple[float, float, float] = (1.0, 1.0, 1.0)
    sustained_curve: tuple[tuple[float, float], ...] = ()
    kind_efficiency: tuple[tuple[str, float], ...] = ()
    kind_memory_efficiency: tuple[tuple[str, float], ...] = ()
    optimizer_curve: tuple[tuple[float, float], ...] = ()
    wave_quantization: bool = True
    wave_reference: float = 1.0
    k_overhead: float = 0.0
    k_reference: float = math.inf
    read_bandwidth: pint.Quantity | None = None
    kernel_latency: tuple[tuple[str, float], ...] = ()
    corner: float = math.inf
    first_touch_bandwidth: float = 0.0
    mmap_threshold: float = math.inf
    source: str = "Ceilings defaults (assumptions; see the class docstring)"

    # ----- magnitudes in SI, converted once ---------------------------------------------------
    @cached_property
    def peak_flops(self) -> float:
        """``peak`` in FLOP/s."""
        return float(in_unit(self.peak, "flop/s"))

    @cached_property
    def vector_flops(self) -> float:
        """``vector_peak`` in FLOP/s."""
        return float(in_unit(self.vector_peak, "flop/s"))

    @cached_property
    def bandwidth_bytes(self) -> float:
        """``bandwidth`` in byte/s."""
        return float(in_unit(self.bandwidth, "byte/s"))

    @cached_property
    def _kind_efficiencies(self) -> dict[str, float]:
        """``kind_efficiency`` as a mapping (built once)."""
        return dict(self.kind_efficiency)

    @cached_property
    def _kind_memory_efficiencies(self) -> dict[str, float]:
        """``kind_memory_efficiency`` as a mapping (built once)."""
        return dict(self.kind_memory_efficiency)

    @cached_property
    def stream_rates(self) -> tuple[float, float]:
        """(triad, read) stream rates in byte/s: ``bandwidth · eta_m`` (a STREAM triad's two
        reads and one write) and :attr:`read_bandwidth` (never below the triad's; the triad's
        where it was not measured)."""
        triad = self.bandwidth_bytes * self.memory_efficiency
        if self.read_bandwidth is None:
            return triad, triad
        return triad, max(float(in_unit(self.read_bandwidth, "byte/s")), triad)

    def stream_seconds(self, read: Real, written: Real, triad: float | None = None) -> Real:
        """Seconds to read ``read`` and write ``written`` bytes, the one rule for which bytes
        stream at the read rate: each written byte goes with two read bytes as in a STREAM
        triad (``a = b + s·c``: two reads, one write) at the triad rate ``T``; the reads beyond
        twice the writes form a pure read stream at the read rate ``R`` (:attr:`stream_rates`)::

            t = (W + min(Rd, 2W)) / T + max(Rd - 2W, 0) / R

        A GEMV at one token (its output ``1/k`` of its bytes) and decode attention over a KV
        cache are almost all read stream; a copy, a norm, an element-wise add (at most two reads
        per write) stay on the triad. ``triad`` replaces the triad rate (a per-kind measured
        efficiency); the read rate is never below it."""
        base, stream = self.stream_rates
        rate = base if triad is None else triad
        stream = max(stream, rate)
        if stream == rate:  # no faster read stream: every byte at the one rate
            return plain(np.add(read, written) / rate)
        r = np.asarray(read, dtype=np.float64)
        w = np.asarray(written, dtype=np.float64)
        paired = np.minimum(r, 2 * w)
        return plain((w + paired) / rate + (r - paired) / stream)

    def combine(self, compute: Real, memory: Real) -> Real:
        """A kernel's time from its compute and memory times: ``max(t_c, t_m)`` on the sharp
        roofline, else ``(t_c^p + t_m^p)^(1/p)`` with ``p`` = :attr:`corner`, which tends to the
        max far from the ridge point and is ``2^(1/p)`` times it where the two are equal (a
        skinny GEMM of a few hundred tokens overlaps its loads and its math only in part: on an
        H200 they ran 1.1-1.6x the max of the two, benchmarks/fit_read_stream.py)."""
        p = self.corner
        if p == math.inf:
            return np.maximum(compute, memory)
        c = np.asarray(compute, dtype=np.float64)
        m = np.asarray(memory, dtype=np.float64)
        high = np.maximum(c, m)
        safe = np.where(high > 0, high, 1.0)  # scaled by the larger: no overflow, 0 stays 0
        return plain(high * ((c / safe) ** p + (m / safe) ** p) ** (1 / p))

    @cached_property
    def _latencies(self) -> dict[str, float]:
        """``kernel_latency`` as a mapping (built once)."""
        return dict(self.kernel_latency)

    def latency_of(self, kind: str) -> float:
        """Seconds a memory-bound kernel of ``kind`` (``matmul``, ``norm``, ``attention``)
        takes beyond its bytes at the stream rate (its ramp, tail and any reduction kernel:
        ``t = a + V / b``, the small-kernel fit of RRZE-HPC gpu-benches ``gpu-small-kernels``);
        0 where not measured."""
        return self._latencies.get(kind, 0.0)

    def memory_efficiency_of(self, kind: str) -> float:
        """Share of the datasheet bandwidth a memory-bound operator of ``kind`` reaches: the
        share its kernels reached in a profiled run (``Measured.kind_memory_efficiency``), else
        :attr:`memory_efficiency`."""
        return self._kind_memory_efficiencies.get(kind, self.memory_efficiency)

    def first_touch_seconds(self, buffer_bytes: Real, buffers: Real) -> Real:
        """Seconds a host-executed device spends mapping ``buffers`` fresh buffers of
        ``buffer_bytes`` each, every step: ``n · B / r_touch`` where ``B >= threshold`` (the
        allocator maps such a buffer afresh and unmaps it on free, so each step faults its
        pages in again: glibc's ``M_MMAP_THRESHOLD``, mallopt(3)), else 0; ``r_touch`` the
        first-touch rate measured by ``mlcost bench`` beyond a write to mapped pages. 0 without
        a measured rate (a GPU, or a profile that measured none)."""
        if self.first_touch_bandwidth <= 0:
            return 0.0
        size = np.asarray(buffer_bytes, dtype=np.float64)
        seconds = np.where(size >= self.mmap_threshold, buffers * size, 0.0)
        return plain(seconds / self.first_touch_bandwidth)

    @cached_property
    def launch_seconds(self) -> float:
        """``launch_overhead`` in seconds."""
        return float(in_unit(self.launch_overhead, "s"))

    def __post_init__(self) -> None:
        for name in ("compute_efficiency", "memory_efficiency", "vector_efficiency"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and 0 < value <= 1):
                raise MlcostError(
                    f"{name}: got {value!r}, expected a fraction in (0, 1], e.g. 0.8 for 80% of "
                    "the peak"
                )
        if not (isinstance(self.compute_units, int) and self.compute_units >= 1):
            raise MlcostError(f"compute_units: got {self.compute_units!r}, expected >= 1")

    @classmethod
    def from_accelerator(cls, gpu: Accelerator, format: str = "bf16", **overrides: Any) -> Ceilings:
        """Ceilings of ``gpu`` for GEMMs in ``format`` (dense peak): its measured profile where it
        has one (a catalog accelerator's published measurements, or ``mlcost calibrate``'s
        fits), the class defaults (assumptions) for what it does not measure. A resolved
        :class:`mlcost.systems.System` keeps its GPU's per format (:meth:`System.ceilings`)."""
        if format not in gpu.formats:
            hint = {
                "bf16": " (e.g. --precision fp16-mixed)",
                "fp8": " (e.g. --precision bf16-mixed)",
            }
            raise MlcostError(
                f"format: {gpu.name} has no {format} peak; it lists {', '.join(gpu.formats)}; "
                f"choose a precision it supports{hint.get(format, '')}"
            )
        vector = gpu.peak("fp32", engine="vector") if "fp32" in gpu.formats else gpu.peak(format)
        base: dict[str, Any] = {
            "name": gpu.name,
            "peak": gpu.peak(format),
            "vector_peak": vector,
            "bandwidth": gpu.memory_bandwidth,
            "compute_units": gpu.compute_units or 1,
            "format": format,
            "k_overhead": gemm_depth_overhead(gpu, format),
        }
        if gpu.compute_units is None:  # no SM count: no tiles per SM to quantize or deepen
            base["wave_quantization"] = False
        measured = {} if gpu.measured is None else _measured_ceilings(gpu, format, base)
        if not measured:
            measured["source"] = (
                f"{gpu.name} datasheet peaks ({gpu.source_of('peak_compute') or 'spec'}); "
                "efficiencies: Ceilings defaults (assumptions)"
            )
        if gpu.compute_units is None:
            measured["source"] += (
                "; no compute_units in the spec, so GEMM tile, wave and depth effects are left out"
            )
        return cls(**{**base, **measured, **overrides})

    def gemm_efficiency(self, flops: Real, *, attention: bool = False, layout: str = "nn") -> Real:
        """Fraction of the peak a GEMM (or, with ``attention``, one attention matmul) of
        ``flops`` reaches: the calibrated size curve for its operand layout (``nn`` forward,
        ``nt`` input gradient, ``tn`` weight gradient; interpolated in log FLOPs, flat beyond
        its ends) or the constant default."""
        curve = self._size_curve(layout, attention)
        if curve is None:
            return self.compute_efficiency
        return plain(np.interp(log_flops(flops), *curve))

    def _size_curve(self, layout: str, attention: bool = False) -> tuple[Array, Array] | None:
        """The size curve a GEMM reads (:attr:`_log_curves`): an attention matmul's own where
        there is one, else its operand layout's, else the forward ``nn`` one; None: no curve,
        the constant ``compute_efficiency``."""
        key = "attention" if attention and self.attention_curve else layout
        return self._log_curves.get(key) or self._log_curves["nn"]

    @cached_property
    def alignment_elements(self) -> int:
        """:func:`alignment_elements` of this format."""
        return alignment_elements(self.format)

    def gemm_alignment_efficiency(self, n: Real, k: Real) -> Array:
        """Per pass (``nn``, ``nt``, ``tn``; shape ``(3, *shape)``), the throughput of a linear
        layer's GEMM ``[m x k]·[k x n]`` relative to an aligned one: ``unaligned_gemm`` where
        ``n`` or ``k`` is not a multiple of :attr:`alignment_elements`, else 1.

        ``n`` and ``k`` (the layer's out- and in-features) are the leading dimensions of every
        operand of the three passes (``m``, the tokens, never is); cuBLAS runs a GEMM whose
        leading dimension is not 16-byte aligned on slower kernels without TMA and wgmma. On an
        H200 a GPT-2 LM head (16,384 x 50,257 x 768, BF16) ran at 125, 95 and 141 TFLOP/s
        against 687, 606 and 588 at a vocabulary of 50,304 (benchmarks/data/h200-2026-11-26/
        profile_steps.json): nanoGPT pads its vocabulary to 50,304 for this reason."""
        unaligned = np.asarray(is_unaligned(n, k, self.alignment_elements))
        factors = np.asarray(self.unaligned_gemm, dtype=np.float64).reshape(
            (3,) + (1,) * unaligned.ndim
        )
        return np.where(unaligned, factors, 1.0)

    def gemm_pass_efficiencies(self, flops: Array, attention: npt.NDArray[np.bool_]) -> Array:
        """:meth:`gemm_efficiency` of GEMM rows of ``flops`` for each pass's operand layout,
        shape ``(3, *flops.shape)`` (forward ``nn``, input gradient ``nt``, weight gradient
        ``tn``): the rows where ``attention`` (broadcast over ``flops``) on the attention curve
        where there is one."""
        out = np.empty((3, *np.shape(flops)))
        for index, layout in enumerate(("nn", "nt", "tn")):
            out[index] = self.gemm_efficiency(flops, layout=layout)
        if self.attention_curve and attention.any():
            out[:] = np.where(attention, self.gemm_efficiency(flops, attention=True), out)
        return out * self.sustained_fraction(flops)

    def sustained_fraction(self, flops: Real) -> Real:
        """The throughput a GEMM of ``flops`` keeps at the clock the GPU sustains under a
        training step's load, over its burst throughput (``sustained_curve``, a measured
        profile's ``gemm_sustained``; interpolated in log FLOPs, flat beyond its ends; 1
        without one). On an H100 at its 700 W limit large GEMMs run at 1,390-1,670 MHz where
        small ones keep 1,980 (benchmarks/data/h100-2026-11-25/power_duty.json)."""
        if not self.sustained_curve:
            return 1.0
        points = np.asarray(self.sustained_curve, dtype=np.float64)
        return plain(np.interp(log_flops(flops), np.log10(points[:, 0]), points[:, 1]))

    @cached_property
    def _log_curves(self) -> dict[str, tuple[Array, Array] | None]:
        """Each size curve as (log10 FLOPs, efficiencies), converted once per instance (None
        where there is no curve): ``nn``, ``nt``, ``tn``, ``attention``, ``optimizer``."""
        curves = {
            "nn": self.gemm_curve,
            "nt": self.gemm_curve_nt,
            "tn": self.gemm_curve_tn,
            "attention": self.attention_curve,
            "optimizer": self.optimizer_curve,
        }
        return {
            key: (np.log10([f for f, _ in curve]), np.array([e for _, e in curve]))
            if curve
            else None
            for key, curve in curves.items()
        }

    def vector_efficiency_of(self, kind: str, flops: Real = 0.0) -> Real:
        """Fraction of the vector peak a non-GEMM operator of ``kind`` reaches: measured per
        kind (softmax, norm, activation, loss) when calibrated; the optimizer update follows
        its measured curve over FLOPs (per-tensor overheads weigh on small models); else the
        default."""
        curve = self._log_curves["optimizer"]
        if kind == "optimizer" and curve is not None:
            return plain(np.interp(log_flops(flops), *curve))
        return self._kind_efficiencies.get(kind, self.vector_efficiency)

    @property
    def ridge_point(self) -> pint.Quantity:
        """``peak / bandwidth`` (datasheet, before efficiencies)."""
        return (self.peak / self.bandwidth).to("flop/byte")

    def gemm_depth_efficiency(self, k: Real) -> Real:
        """Share of a GEMM tile's time spent in its main loop over ``k``: ``K / (K + K0)``, the
        tile's prologue and epilogue costing as much as ``K0`` elements of depth, relative to the
        depth ``k_reference`` of the shape the efficiency was measured at and never above it (a
        GEMM deeper than the best shape is not faster than it); 1 where these ceilings have no
        ``K0``."""
        if not self.k_overhead:
            return 1.0
        depth = np.maximum(np.asarray(k, dtype=np.float64), 1.0)
        return plain(np.minimum(depth / (depth + self.k_overhead) / self._depth_reference, 1.0))

    @cached_property
    def _depth_reference(self) -> float:
        """``K / (K + K0)`` at ``k_reference`` (1 where there is none)."""
        if math.isinf(self.k_reference):
            return 1.0
        return self.k_reference / (self.k_reference + self.k_overhead)

    def gemm_wave_efficiency(self, m: Real, n: Real, batch: Real = 1) -> Real:
        """Share of the SMs' tile slots doing useful work for a GEMM with an ``m x n`` output
        (``batch`` of them): ``m·n·batch / (waves · SMs · tile_m · tile_n)`` with
        ``waves = ceil(tiles / SMs)`` and ``tiles = ceil(m/tile_m)·ceil(n/tile_n)·batch``. It
        charges both the padding of partial tiles and the idle SMs of the last wave, so the
        predicted time ``FLOPs / (peak · efficiency) = waves · (time of one tile)`` never
        falls when the GEMM grows. Relative to ``wave_reference``, the share at the shape where
        the efficiency was measured, and never above 1 (never faster than that shape); 1 where
        these ceilings leave wave quantization out."""
        if not self.wave_quantization:
            return 1.0
        rows = np.asarray(m, dtype=np.float64)
        cols = np.asarray(n, dtype=np.float64)
        count = np.maximum(np.asarray(batch, dtype=np.float64), 1.0)
        (tile_m, tile_n), units = self.tile, self.compute_units
        tiles = np.ceil(rows / tile_m) * np.ceil(cols / tile_n) * count
        waves = np.ceil(np.maximum(tiles, 1.0) / units)
        share = rows * cols * count / (waves * units * tile_m * tile_n)
        return plain(np.minimum(share / self.wave_reference, 1.0))

    def gemm_shape_efficiency(self, rows: Real, cols: Real, depth: Real, batch: Real) -> Real:
        """:meth:`gemm_wave_efficiency` of ``rows x cols`` output tiles (``batch`` of them)
        times :meth:`gemm_depth_efficiency` of ``depth``."""
        return self.gemm_wave_efficiency(rows, cols, batch) * self.gemm_depth_efficiency(depth)


def alignment_elements(format: str) -> int:
    """Elements in 16 bytes of ``format`` (8 in BF16 and FP16, 4 in FP32 and TF32, 16 in FP8):
    the alignment of a leading dimension that cuBLAS's TMA and wgmma kernels need (NVIDIA,
    "Matrix Multiplication Background User's Guide", section "Requirements to use Tensor Cores":
    dimensions multiples of 16 bytes)."""
    from mlcost.specs import default_catalog

    return max(int(16 // default_catalog().element_bytes(format)), 1)


def is_unaligned(n: Real, k: Real, step: int) -> Real:
    """Whether a linear layer's GEMM ``[m x k]·[k x n]`` has a feature dimension (``n`` or ``k``)
    that is not a multiple of ``step`` elements (:func:`alignment_elements`)."""
    n = np.asarray(n, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    return plain((np.mod(n, step) != 0) | (np.mod(k, step) != 0))


def layout_unaligned(m: int, n: int, k: int, layout: str, step: int) -> bool:
    """Whether the GEMM ``[m x k]·[k x n]`` in operand ``layout`` (``nn``, ``nt``, ``tn``, as
    ``mlcost bench`` runs them) has an unaligned leading dimension (:func:`is_unaligned`): ``k``
    and ``n`` in ``nn`` and ``nt``, ``m`` and ``n`` in ``tn`` (``A^T`` is stored ``k x m``)."""
    return bool(is_unaligned(n, m if layout == "tn" else k, step))


def log_flops(flops: Real) -> np.ndarray:
    """Where a size curve is read: ``log10`` of the FLOPs, at least 1 FLOP."""
    return np.log10(np.maximum(np.asarray(flops, dtype=np.float64), 1.0))


def gemm_pass_seconds(flops: Real, peak: float, size: Real, shape: Real) -> Real:
    """Seconds of GEMM passes of ``flops``: ``F / (peak · eta · (w · d))`` with ``eta`` the
    size curve's efficiency (:meth:`Ceilings.gemm_pass_efficiencies`) and ``shape = w · d`` the
    wave times the depth efficiency (:meth:`Ceilings.gemm_shape_efficiency`), divided as IEEE
    does: a zero denominator gives an infinity or NaN, not an error
    (:func:`mlcost.arrays.divide`)."""
    return divide(flops, peak * size * shape)


#: The depth-equivalent ``K0`` of a GEMM tile's prologue and epilogue, and the per-SM peak it
#: was measured at: fitted to DeepGEMM's FP8 GEMMs on H800-SXM with 128 x 128 block tiles
#: (deepseek-ai/DeepGEMM pull request #73, table "Normal GEMMs for dense models", CUDA 12.8: at
#: M = 4096, K = 16384 / 2048 / 1536 / 512 reach 1404 / 1031 / 999 / 591 TFLOP/s; each ratio to
#: the K = 16384 shape under ``K / (K + K0)`` gives K0 = 893, 717 and 761, mean 790) at 1979
#: TFLOP/s over 132 SMs. A fixed time per tile is a fixed depth times the per-SM rate, so other
#: GPUs and formats scale ``K0`` by their per-SM peak (BF16 on H100: 395; on A100: 152).
GEMM_DEPTH_OVERHEAD = (790.0, 1978.9e12 / 132)


def gemm_depth_overhead(gpu: Accelerator, format: str) -> float:
    """``K0`` of ``gpu`` in ``format`` (:data:`GEMM_DEPTH_OVERHEAD`, scaled by per-SM peak); 0
    (no depth effect) for a spec without ``compute_units``, whose per-SM peak is unknown."""
    k0, per_unit = GEMM_DEPTH_OVERHEAD
    if gpu.compute_units is None:
        return 0.0
    return k0 * gpu.peak(format).to("flop/s").magnitude / gpu.compute_units / per_unit


def _measured_ceilings(gpu: Accelerator, format: str, base: dict[str, Any]) -> dict[str, Any]:
    """The fields of :class:`Ceilings` that ``gpu``'s measured profile sets for ``format``."""
    measured = gpu.measured
    if measured is None:
        return {}

    def points(key: str) -> tuple[tuple[float, float], ...]:
        return tuple((p.flops, p.efficiency) for p in measured.gemm_efficiency.get(key, ()))

    fields: dict[str, Any] = {}
    curve = points(format)
    best_shape = measured.gemm_best_shape.get(format)
    parts = []
    if len(curve) == 1:
        # One point, the best shape of a sweep: the ceiling; shape effects apply relative to it.
        reference = (
            Ceilings(**base).gemm_wave_efficiency(best_shape[0], best_shape[1])
            if best_shape
            else 1.0
        )
        fields.update(
            compute_efficiency=curve[0][1],
            wave_reference=float(reference),
            k_reference=float(best_shape[2]) if best_shape else math.inf,
        )
        shape = f"best shape {'x'.join(map(str, best_shape))}" if best_shape else "best shape"
        parts.append(f"{format} GEMMs at most {curve[0][1]:.1%} of peak ({shape})")
    elif curve:
        fields.update(
            gemm_curve=curve,
            gemm_curve_nt=points(f"{format}/nt"),
            gemm_curve_tn=points(f"{format}/tn"),
            wave_quantization=False,
            k_overhead=0.0,
        )
        parts.append(f"{format} GEMM size curve")
    sustained = measured.gemm_sustained.get(format, ())
    if sustained:
        fields["sustained_curve"] = tuple((p.flops, p.efficiency) for p in sustained)
        parts.append(f"{format} GEMMs at the clock sustained under load")
    unaligned = measured.gemm_unaligned
    if format in unaligned:
        fields["unaligned_gemm"] = tuple(
            float(unaligned.get(key, unaligned[format]))
            for key in (format, f"{format}/nt", f"{format}/tn")
        )
        parts.append(f"unaligned {format} GEMMs at {unaligned[format]:.0%} of aligned")
    attention = tuple(
        (p.flops, p.efficiency) for p in measured.attention_efficiency.get(format, ())
    )
    if attention:
        fields["attention_curve"] = attention
    if measured.memory_bandwidth is not None:
        # The measured share of the datasheet bandwidth (1 for a profile whose own bandwidth is
        # the measured one), so the ridge point stays the datasheet's.
        share = (measured.memory_bandwidth / gpu.memory_bandwidth).to("").magnitude
        fields["memory_efficiency"] = float(share)
        parts.append(f"memory {format_quantity(measured.memory_bandwidth.to('GB/s'))}")
    if measured.memory_read_bandwidth is not None:
        fields["read_bandwidth"] = measured.memory_read_bandwidth
        parts.append(f"read stream {format_quantity(measured.memory_read_bandwidth.to('GB/s'))}")
    if measured.kernel_latency:
        fields["kernel_latency"] = tuple(
            sorted(
                (kind, float(in_unit(value, "s")))
                for kind, value in measured.kernel_latency.items()
            )
        )
        parts.append("kernel latencies per class")
    if measured.roofline_corner is not None:
        fields["corner"] = float(measured.roofline_corner)
        parts.append(f"roofline corner p = {measured.roofline_corner:g}")
    if measured.launch_overhead is not None:
        fields["launch_overhead"] = measured.launch_overhead
    if measured.first_touch_bandwidth is not None and measured.mmap_threshold is not None:
        fields["first_touch_bandwidth"] = float(in_unit(measured.first_touch_bandwidth, "B/s"))
        fields["mmap_threshold"] = float(in_unit(measured.mmap_threshold, "B"))
        rate = format_quantity(measured.first_touch_bandwidth.to("GB/s"))
        parts.append(
            f"first touch of fresh pages {rate} for buffers of "
            f"{format_quantity(measured.mmap_threshold.to('MiB'))} or more "
            "(mlcost bench, measured on this machine)"
        )
    if measured.vector_efficiency is not None:
        fields["vector_efficiency"] = measured.vector_efficiency
    if measured.kind_efficiency:
        fields["kind_efficiency"] = tuple(sorted(measured.kind_efficiency.items()))
    if measured.kind_memory_efficiency:
        fields["kind_memory_efficiency"] = tuple(sorted(measured.kind_memory_efficiency.items()))
        parts.append("per-kind memory efficiencies of a profiled run")
    if measured.optimizer_efficiency:
        fields["optimizer_curve"] = tuple(
            (p.flops, p.efficiency) for p in measured.optimizer_efficiency
        )
    cited = {
        text
        for key in ("gemm_efficiency", "memory_bandwidth", "memory_read_bandwidth")
        if (text := gpu.source_of(f"measured.{key}"))
    }
    citation = "; ".join(sorted(cited)) or gpu.source_of("measured") or "mlcost calibrate"
    fields["source"] = (
        f"measured profile of {gpu.name} ({measured.measured_on}, {measured.date}: "
        f"{', '.join(parts) or 'no GEMM or memory ceiling for ' + format}; {citation}); "
        "the rest: Ceilings defaults (assumptions)"
    )
    return fields


def ridge_point(gpu: Accelerator, format: str = "bf16", *, sparse: bool = False) -> pint.Quantity:
    """Ridge point of ``gpu`` in ``format`` (dense unless ``sparse``)."""
    return gpu.ridge_point(format, sparse=sparse)


__all__ = [
    "Ceilings",
    "arithmetic_intensity",
    "attainable_throughput",
    "elementwise_intensity",
    "gemm_intensity",
    "ridge_point",
    "warp_quantization_efficiency",
    "wave_quantization_efficiency",
]
