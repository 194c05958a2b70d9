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
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pint

from mlcost.errors import MlcostError
from mlcost.records import cached_property
from mlcost.results import divide, plain
from mlcost.specs import Accelerator
from mlcost.units import Q_, format_quantity, in_unit

Number = Any


def arithmetic_intensity(flops: pint.Quantity, bytes_moved: pint.Quantity) -> pint.Quantity:
    """``FLOPs / bytes moved`` in FLOP/byte."""
    return (flops / bytes_moved).to("flop/byte")


def gemm_intensity(
    m: Number, n: Number, k: Number, bytes_per_element: float = 2.0
) -> pint.Quantity:
    """``2·M·N·K / (e·(M·K + K·N + M·N))`` FLOP/byte: operands read once, result written once."""
    return Q_(2 * m * n * k / (bytes_per_element * (m * k + k * n + m * n)), "flop/byte")


def elementwise_intensity(
    flops_per_element: float, bytes_per_element: float = 2.0, inputs: int = 1
) -> pint.Quantity:
    """``f / ((inputs + 1)·e)`` FLOP/byte for an element-wise operator."""
    return Q_(flops_per_element / ((inputs + 1) * bytes_per_element), "flop/byte")


def attainable_throughput(
    intensity: pint.Quantity,
    peak: pint.Quantity,
    bandwidth: pint.Quantity,
    *,
    compute_efficiency: float = 1.0,
    memory_efficiency: float = 1.0,
) -> pint.Quantity:
    """``min(peak · eta_c, I · bandwidth · eta_m)`` in FLOP/s (vectorized over ``intensity``)."""
    compute = (peak * compute_efficiency).to("flop/s").magnitude
    memory = (intensity * bandwidth * memory_efficiency).to("flop/s").magnitude
    return Q_(np.minimum(compute, memory), "flop/s").to("TFLOP/s")


def warp_quantization_efficiency(size: Number, granule: int = 32) -> Number:
    """Share of lanes doing useful work when ``size`` items run in granules of ``granule``
    (warps of 32 threads): ``size / (granule · ceil(size / granule))``. Batch 32 fills one warp
    (100%); batch 33 needs two (33/64 = 51.6%, the chapter's "52%"); 65 needs three (67.7%)."""
    size = np.asarray(size, dtype=np.float64)
    return plain(size / (granule * np.ceil(size / granule)))


def wave_quantization_efficiency(tiles: Number, units: int) -> Number:
    """Share of the SMs busy across the waves of a kernel: ``tiles / (units · ceil(tiles/units))``
    (a GEMM's output tiles run in waves of one tile per SM)."""
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
    kind_efficiency: tuple[tuple[str, float], ...] = ()
    optimizer_curve: tuple[tuple[float, float], ...] = ()
    wave_quantization: bool = True
    wave_reference: float = 1.0
    k_overhead: float = 0.0
    k_reference: float = math.inf
    source: str = "Ceilings defaults (assumptions; see the class docstring)"

    # ----- magnitudes in SI, converted once (the per-operator hot path reads these) -----------
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
        fits), the class defaults (assumptions) for what it does not measure. Built once per
        accelerator and format (without ``overrides``)."""
        key = f"ceilings:{format}"
        if not overrides and key in gpu.derived:
            return gpu.derived[key]  # type: ignore[return-value]
        built = cls._from_accelerator(gpu, format, **overrides)
        if not overrides:
            gpu.derived[key] = built
        return built

    @classmethod
    def _from_accelerator(cls, gpu: Accelerator, format: str, **overrides: Any) -> Ceilings:
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
            "name": gpu.name, "peak": gpu.peak(format), "vector_peak": vector,
            "bandwidth": gpu.memory_bandwidth, "compute_units": gpu.compute_units or 1,
            "format": format, "k_overhead": gemm_depth_overhead(gpu, format),
        }  # fmt: skip
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

    def gemm_efficiency(
        self, flops: Number, *, attention: bool = False, layout: str = "nn"
    ) -> Number:
        """Fraction of the peak a GEMM (or, with ``attention``, one attention matmul) of
        ``flops`` reaches: the calibrated size curve for its operand layout (``nn`` forward,
        ``nt`` input gradient, ``tn`` weight gradient; interpolated in log FLOPs, flat beyond
        its ends) or the constant default."""
        curve = self._size_curve(layout, attention)
        if curve is None:
            return self.compute_efficiency
        return _on_log_curve(curve, flops)

    def _size_curve(
        self, layout: str, attention: bool = False
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The size curve a GEMM reads (:attr:`_log_curves`): an attention matmul's own where
        there is one, else its operand layout's, else the forward ``nn`` one; None: no curve,
        the constant ``compute_efficiency``."""
        key = "attention" if attention and self.attention_curve else layout
        return self._log_curves.get(key) or self._log_curves["nn"]

    @cached_property
    def alignment_elements(self) -> int:
        """:func:`alignment_elements` of this format."""
        return alignment_elements(self.format)

    def gemm_alignment_efficiency(self, n: Number, k: Number) -> Number:
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

    def gemm_pass_efficiencies(self, flops: np.ndarray, attention: np.ndarray) -> np.ndarray:
        """:meth:`gemm_efficiency` of GEMM rows of ``flops`` for each pass's operand layout at
        once, shape ``(3, *flops.shape)`` (forward ``nn``, input gradient ``nt``, weight
        gradient ``tn``): the rows where ``attention`` (broadcast over ``flops``) on the
        attention curve where there is one. The same numbers as a call per layout, with the
        log of the FLOPs and the attention rows' efficiency evaluated once."""
        x = log_flops(flops)
        out = np.empty((3, *np.shape(flops)))
        for index, layout in enumerate(("nn", "nt", "tn")):
            curve = self._size_curve(layout)
            out[index] = self.compute_efficiency if curve is None else np.interp(x, *curve)
        heads = self._size_curve("nn", attention=True) if self.attention_curve else None
        if heads is not None and attention.any():
            out[:] = np.where(attention, np.interp(x, *heads), out)
        return out

    @cached_property
    def _log_curves(self) -> dict[str, tuple[np.ndarray, np.ndarray] | None]:
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

    def vector_efficiency_of(self, kind: str, flops: Number = 0.0) -> Number:
        """Fraction of the vector peak a non-GEMM operator of ``kind`` reaches: measured per
        kind (softmax, norm, activation, loss) when calibrated; the optimizer update follows
        its measured curve over FLOPs (per-tensor overheads weigh on small models); else the
        default."""
        if kind == "optimizer" and self.optimizer_curve:
            return _on_log_curve(self._log_curves["optimizer"], flops)  # type: ignore[arg-type]
        return self._kind_efficiencies.get(kind, self.vector_efficiency)

    @property
    def ridge_point(self) -> pint.Quantity:
        """``peak / bandwidth`` (datasheet, before efficiencies)."""
        return (self.peak / self.bandwidth).to("flop/byte")

    def gemm_depth_efficiency(self, k: Number) -> Number:
        """Share of a GEMM tile's time spent in its main loop over ``k``: ``K / (K + K0)``, the
        tile's prologue and epilogue costing as much as ``K0`` elements of depth, relative to the
        depth ``k_reference`` of the shape the efficiency was measured at and never above it (a
        GEMM deeper than the best shape is not faster than it)."""
        if not self.k_overhead:
            return 1.0
        k = np.asarray(k, dtype=np.float64)
        return plain(_shape_share(self, None, None, k, None, ARRAY_OPS, waves=False))

    @cached_property
    def _shape_constants(
        self,
    ) -> tuple[bool, tuple[int, int], int, float, float, float]:
        """What :func:`_shape_share` reads of these ceilings, in one tuple: whether waves are
        quantized, the tile, the SMs, the wave reference, the depth overhead ``K0`` and the
        reference depth's share."""
        return (
            self.wave_quantization, self.tile, self.compute_units, self.wave_reference,
            self.k_overhead, self._depth_reference,
        )  # fmt: skip

    @cached_property
    def _depth_reference(self) -> float:
        """``K / (K + K0)`` at ``k_reference`` (1 where there is none)."""
        if math.isinf(self.k_reference):
            return 1.0
        return self.k_reference / (self.k_reference + self.k_overhead)

    def gemm_wave_efficiency(self, m: Number, n: Number, batch: Number = 1) -> Number:
        """Share of the SMs' tile slots doing useful work for a GEMM with an ``m x n`` output
        (``batch`` of them): ``m·n·batch / (waves · SMs · tile_m · tile_n)`` with
        ``waves = ceil(tiles / SMs)`` and ``tiles = ceil(m/tile_m)·ceil(n/tile_n)·batch``. It
        charges both the padding of partial tiles and the idle SMs of the last wave, so the
        predicted time ``FLOPs / (peak · efficiency) = waves · (time of one tile)`` never
        falls when the GEMM grows. Relative to ``wave_reference``, the share at the shape where
        the efficiency was measured, and never above 1 (never faster than that shape)."""
        if not self.wave_quantization:
            return 1.0
        m = np.asarray(m, dtype=np.float64)
        n = np.asarray(n, dtype=np.float64)
        batch = np.asarray(batch, dtype=np.float64)
        return plain(_shape_share(self, m, n, None, batch, ARRAY_OPS, depths=False))

    def gemm_shape_efficiency(self, rows: Any, cols: Any, depth: Any, batch: Any) -> Any:
        """:meth:`gemm_wave_efficiency` of ``rows x cols`` output tiles (``batch`` of them)
        times :meth:`gemm_depth_efficiency` of ``depth``, arrays of GEMM passes in one call
        (each factor 1 where these ceilings leave its effect out)."""
        return _shape_share(self, rows, cols, depth, batch, ARRAY_OPS)

    def gemm_row_seconds(
        self,
        m: float,
        n: float,
        k: float,
        batch: float,
        forward: float,
        attention: bool,
        passes: tuple[Any, Any, Any],
    ) -> float:
        """Compute seconds of one GEMM row of Python numbers (one configuration, the whole
        GEMM: no sweep, no shard) whose passes (forward, input gradient, weight gradient) do
        ``passes`` FLOPs: :func:`gemm_pass_seconds` of each pass with FLOPs at its size
        curve's efficiency (times the alignment factor of a linear layer, ``not attention``),
        its wave and its depth efficiency, summed in pass order. What the arrays' path
        (:meth:`gemm_pass_efficiencies`, :meth:`gemm_alignment_efficiency`,
        :meth:`gemm_shape_efficiency`) gives the row: the same formulas (:func:`_shape_share`)
        on Python numbers (:data:`NUMBER_OPS`) and numpy's interpolation for one point
        (:func:`interp_point`) at ``log10(max(F, 1))`` of the row's ``forward`` FLOPs, taken
        by numpy (:func:`log_flops`) where a curve is read."""
        curves = self._pass_curves
        sizes: list[float]
        if attention and curves[3] is not None:
            sizes = [interp_point(float(log_flops(forward)), *curves[3])] * 3
        elif curves[0] is None and curves[1] is None and curves[2] is None:
            sizes = [self.compute_efficiency] * 3  # no size curve: the constant
        else:
            x = float(log_flops(forward))
            sizes = [
                self.compute_efficiency if curve is None else interp_point(x, *curve)
                for curve in curves[:3]
            ]
        if (
            not attention
            and self.unaligned_gemm != (1.0, 1.0, 1.0)
            and is_unaligned(n, k, self.alignment_elements)
        ):
            sizes = [e * a for e, a in zip(sizes, self.unaligned_gemm, strict=True)]
        # Each pass's output tiles, [m x n], [m x k], [k x n], and depth, k, n, m.
        # gemm_pass_seconds of each pass, inline (every GEMM row of every step): its
        # denominator, and IEEE's answer where it is zero (divide).
        peak, total = self.peak_flops, 0.0
        first, second, third = passes
        if first != 0:  # a pass without FLOPs costs nothing
            rate = peak * sizes[0] * _shape_share(self, m, n, k, batch, NUMBER_OPS)
            total = total + (first / rate if rate else divide(first, rate))
        if second != 0:
            rate = peak * sizes[1] * _shape_share(self, m, k, n, batch, NUMBER_OPS)
            total = total + (second / rate if rate else divide(second, rate))
        if third != 0:
            rate = peak * sizes[2] * _shape_share(self, k, n, m, batch, NUMBER_OPS)
            total = total + (third / rate if rate else divide(third, rate))
        return total

    @cached_property
    def _pass_curves(self) -> tuple[tuple[list[float], list[float]] | None, ...]:
        """The size curves of the three passes (``nn``, ``nt``, ``tn``, :meth:`_size_curve`)
        and the attention matmuls' own (None where there is none) as Python lists, read by
        :meth:`gemm_row_seconds`."""
        chosen = [self._size_curve(layout) for layout in ("nn", "nt", "tn")]
        chosen.append(self._size_curve("nn", attention=True) if self.attention_curve else None)
        return tuple(
            None if curve is None else (curve[0].tolist(), curve[1].tolist()) for curve in chosen
        )


def alignment_elements(format: str) -> int:
    """Elements in 16 bytes of ``format`` (8 in BF16 and FP16, 4 in FP32 and TF32, 16 in FP8):
    the alignment of a leading dimension that cuBLAS's TMA and wgmma kernels need (NVIDIA,
    "Matrix Multiplication Background User's Guide", section "Requirements to use Tensor Cores":
    dimensions multiples of 16 bytes)."""
    from mlcost.specs import default_catalog

    return max(int(16 // default_catalog().element_bytes(format)), 1)


def is_unaligned(n: Number, k: Number, step: int) -> Number:
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


def _on_log_curve(curve: tuple[np.ndarray, np.ndarray], flops: Number) -> Number:
    """A size curve ``(log10 FLOPs, efficiencies)`` at ``flops``: interpolated in log FLOPs,
    flat beyond its ends."""
    return plain(np.asarray(np.interp(log_flops(flops), curve[0], curve[1])))


def log_flops(flops: Number) -> np.ndarray:
    """Where a size curve is read: ``log10`` of the FLOPs, at least 1 FLOP."""
    return np.log10(np.maximum(np.asarray(flops, dtype=np.float64), 1.0))


class Operations(NamedTuple):
    """What the GEMM efficiency formulas (:func:`_shape_share`) need
    besides arithmetic: numpy's for arrays (:data:`ARRAY_OPS`), Python's for one GEMM pass of
    numbers (:data:`NUMBER_OPS`)."""

    ceil: Callable[[Any], Any]
    maximum: Callable[[Any, Any], Any]
    minimum: Callable[[Any, Any], Any]


#: numpy's, for arrays.
ARRAY_OPS = Operations(np.ceil, np.maximum, np.minimum)
#: Python's, for numbers: on the finite values of a GEMM's dimensions the same values as
#: numpy's (``math.ceil`` gives an int where ``np.ceil`` gives the same integer as a float;
#: the tile and wave counts stay exact integers below 2**53 either way).
NUMBER_OPS = Operations(math.ceil, max, min)


def gemm_pass_seconds(flops: Any, peak: float, size: Any, shape: Any) -> Any:
    """Seconds of GEMM passes of ``flops``: ``F / (peak · eta · (w · d))`` with ``eta`` the
    size curve's efficiency and ``shape = w · d`` the wave times the depth efficiency
    (:func:`_shape_share`); arrays or Python numbers, divided as IEEE does (a zero
    denominator gives an infinity or NaN, not an error or a warning: :func:`mlcost.results.
    divide`)."""
    return divide(flops, peak * size * shape)


def _shape_share(
    ceilings: Ceilings, rows: Any, cols: Any, depth: Any, batch: Any, ops: Operations, *,
    waves: bool = True, depths: bool = True,
) -> Any:  # fmt: skip
    """The wave times the depth efficiency of GEMM passes (:meth:`Ceilings.
    gemm_wave_efficiency`, :meth:`Ceilings.gemm_depth_efficiency`: their formulas, written
    once), on arrays or on Python numbers (``ops``); 1 for an effect the ceilings leave out or
    the caller turns off (``waves``, ``depths``)."""
    quantized, (tile_m, tile_n), units, wave_reference, overhead, depth_reference = (
        ceilings._shape_constants
    )
    ceil, maximum, minimum = ops
    wave = deep = 1.0
    if waves and quantized:
        batch = maximum(batch, 1.0)
        tiles = ceil(rows / tile_m) * ceil(cols / tile_n) * batch
        count = ceil(maximum(tiles, 1.0) / units)
        share = rows * cols * batch / (count * units * tile_m * tile_n)
        wave = minimum(share / wave_reference, 1.0)
    if depths and overhead:
        k = maximum(depth, 1.0)
        deep = minimum(k / (k + overhead) / depth_reference, 1.0)
    return wave * deep


def interp_point(x: float, xs: Sequence[float], fs: Sequence[float]) -> float:
    """``np.interp(x, xs, fs)`` of one Python float, numpy's own arithmetic (``arr_interp`` in
    numpy/_core/src/multiarray/compiled_base.c): NaN as it is; ``fs[0]`` below the first knot
    and ``fs[-1]`` above the last; a knot's own value at the knot; else ``slope·(x - xs[j]) +
    fs[j]`` with ``slope = (fs[j+1] - fs[j]) / (xs[j+1] - xs[j])``, from the other end of the
    interval where that is NaN. ``xs`` increasing, as numpy asks."""
    if x != x:
        return x
    last = len(xs) - 1
    if x < xs[0]:
        return fs[0]
    if x > xs[last]:
        return fs[last]
    j = bisect_right(xs, x) - 1
    if j == last or xs[j] == x:
        return fs[j]
    slope = (fs[j + 1] - fs[j]) / (xs[j + 1] - xs[j])
    value = slope * (x - xs[j]) + fs[j]
    if value != value:
        value = slope * (x - xs[j + 1]) + fs[j + 1]
        if value != value and fs[j] == fs[j + 1]:
            value = fs[j]
    return value


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
            compute_efficiency=curve[0][1], wave_reference=float(reference),
            k_reference=float(best_shape[2]) if best_shape else math.inf,
        )  # fmt: skip
        shape = f"best shape {'x'.join(map(str, best_shape))}" if best_shape else "best shape"
        parts.append(f"{format} GEMMs at most {curve[0][1]:.1%} of peak ({shape})")
    elif curve:
        fields.update(
            gemm_curve=curve, gemm_curve_nt=points(f"{format}/nt"),
            gemm_curve_tn=points(f"{format}/tn"), wave_quantization=False, k_overhead=0.0,
        )  # fmt: skip
        parts.append(f"{format} GEMM size curve")
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
    if measured.launch_overhead is not None:
        fields["launch_overhead"] = measured.launch_overhead
    if measured.vector_efficiency is not None:
        fields["vector_efficiency"] = measured.vector_efficiency
    if measured.kind_efficiency:
        fields["kind_efficiency"] = tuple(sorted(measured.kind_efficiency.items()))
    if measured.optimizer_efficiency:
        fields["optimizer_curve"] = tuple(
            (p.flops, p.efficiency) for p in measured.optimizer_efficiency
        )
    cited = {
        text
        for key in ("gemm_efficiency", "memory_bandwidth")
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
