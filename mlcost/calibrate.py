"""From benchmark results to a measured hardware profile, and how far predictions are from
measurements before and after.

* GEMM efficiency curve, per format: achieved throughput ``2·M·N·K / t`` over the format's peak
  (the base accelerator's datasheet peak, or the best measured when there is no base), against the
  GEMM's FLOPs; made non-decreasing in size by isotonic regression (pool-adjacent-violators,
  Barlow et al. 1972), so small GEMMs are never predicted faster per FLOP than large ones.
* Achievable memory bandwidth: the median over the STREAM kernels at the largest size measured
  (past the caches). Results where another memory-bound measurement moved its bytes faster than
  STREAM are physically inconsistent (a disturbed STREAM run) and refused
  (:func:`check_consistency`), not fitted.
* Launch overhead: the median time of a one-element kernel.
* First touch (a CPU): the rate of mapping fresh pages, a fresh buffer's fill above the
  allocator's mmap threshold less a reused one's (:func:`fit_first_touch`), with the threshold
  itself (:attr:`mlcost.assumptions.Assumptions.host_mmap_threshold`, glibc's, mallopt(3)).
* Collectives: least-squares alpha-beta fit ``t = alpha + bytes / bandwidth`` per collective
  (Hockney 1994), with its R^2.

Every measurement is fitted by its fastest repetition (:func:`mlcost.bench.store.measured_seconds`:
other work on a shared machine only slows a repetition down), or by its median for results
that predate it.

The profile is an :class:`mlcost.specs.Accelerator` (the catalog's schema) whose ``measured``
block holds the fits, what they came from and their quality, so every calculation accepts it in
place of a catalog accelerator. Calibrating twice on the same results gives the same profile.
"""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mlcost.assumptions import ASSUMPTION_SOURCES, Assumptions
from mlcost.bench.store import (
    measured_seconds,
    read_metadata,
    read_results_csv,
    results_path,
    successful_rows,
)
from mlcost.errors import MlcostError
from mlcost.roofline import alignment_elements, layout_unaligned
from mlcost.specs import Accelerator, spec_from_dict
from mlcost.units import Q_, format_quantity

if TYPE_CHECKING:
    import pandas as pd


def isotonic_increasing(values: list[float] | np.ndarray, weights: Any = None) -> np.ndarray:
    """Least-squares non-decreasing fit of ``values`` (pool adjacent violators)."""
    y = np.asarray(values, dtype=np.float64)
    w = np.ones_like(y) if weights is None else np.asarray(weights, dtype=np.float64)
    blocks: list[list[float]] = []  # [mean, weight, count]
    for value, weight in zip(y, w, strict=True):
        blocks.append([value, weight, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            mean2, weight2, count2 = blocks.pop()
            mean1, weight1, count1 = blocks.pop()
            total = weight1 + weight2
            blocks.append([(mean1 * weight1 + mean2 * weight2) / total, total, count1 + count2])
    return np.concatenate([np.full(int(count), mean) for mean, _, count in blocks])


#: A measurement whose 90th percentile is more than this many times its 10th is too noisy to
#: fit (a timing disturbed by other work on the machine); it is left out with a warning.
NOISE_LIMIT = 10.0
#: Above this p90/p10 ratio a measurement is fitted but reported as noisy.
NOISY = 2.0


def _spread(results: pd.DataFrame) -> pd.Series:
    """p90 / p10 of every row (1 where the percentiles are missing)."""
    ratio = results["p90_s"].astype(float) / results["p10_s"].astype(float)
    return ratio.where(ratio.notna() & (results["p10_s"].astype(float) > 0), 1.0)


def _ok(results: pd.DataFrame, family: str) -> pd.DataFrame:
    rows = results[
        (results["family"] == family)
        & (results["status"] == "ok")
        & (_spread(results) <= NOISE_LIMIT)
    ]
    rows = rows.astype({"median_s": float, "flops": float, "bytes": float})
    return rows.assign(seconds=measured_seconds(rows))


def measured_device(metadata: dict[str, Any]) -> str:
    """What the results were measured on: the GPU's name where the bench recorded one (``gpu``),
    else the device it ran on (``cpu``, ``cuda``)."""
    return str(metadata.get("gpu") or metadata.get("device") or "cpu")


def check_base(metadata: dict[str, Any], base: Accelerator, *, stand_in: bool = False) -> None:
    """Refuse a ``base`` GPU that is not the device the results were measured on, where the
    results say which it was (the bench's ``gpu``, or the CPU): a profile of one device under
    another's name would price every run on the wrong hardware, unless the caller asks for a
    ``stand_in`` (this device measured in the place of ``base``, as tests and dry runs do;
    ``mlcost calibrate --stand-in``). Results that name no GPU (``device: cuda`` only) are
    warned about by :func:`calibration_warnings` instead."""
    if stand_in:
        return
    device = measured_device(metadata)
    measured_on = "cpu" if device.startswith("cpu") else device
    # the model in the catalog name ("h100" of h100-sxm5-80gb), not the vendor or memory words
    model = base.name.split("-")[0].lower()
    if measured_on == "cpu" and base.vendor.lower() not in ("measured", "cpu"):
        raise MlcostError(
            f"--base: got {base.name}, but the results were measured on the CPU; expected the "
            "device they ran on (the profile would describe this CPU under that GPU's name); "
            "leave --base out for a CPU profile, run 'mlcost bench --device cuda' on the GPU, "
            "or give --stand-in to calibrate this device in its place on purpose"
        )
    if metadata.get("gpu") and model not in measured_on.lower().replace(" ", ""):
        raise MlcostError(
            f"--base: got {base.name}, but the results were measured on {measured_on!r}; "
            "expected the catalog GPU they ran on; give that one as --base (or --stand-in to "
            "calibrate this device in its place on purpose)"
        )


def calibration_warnings(
    results_directory: str | Path, base: Accelerator | None = None, *, stand_in: bool = False
) -> list[str]:
    """What a user should know before trusting a profile fitted from these results: noisy
    measurements (p90/p10 above :data:`NOISY`; above :data:`NOISE_LIMIT` they are not fitted),
    and results that do not name the GPU a ``base`` is meant to be (a ``base`` that is not the
    device they name is refused: :func:`check_base`)."""
    results = read_results_csv(results_directory)
    metadata = read_metadata(results_directory)
    warnings = []
    ok = successful_rows(results, results_directory)
    spread = _spread(ok)
    noisy = spread[spread > NOISY]
    if len(noisy):
        worst = ok.loc[spread == spread.max()].iloc[0]  # the first of the noisiest
        dropped = int((spread > NOISE_LIMIT).sum())
        warnings.append(
            f"{len(noisy)} of {len(ok)} measurements are noisy (p90/p10 > {NOISY:g}; worst "
            f"{spread.max():.3g}x: {worst['family']} {worst['name']} {worst['format']}); "
            f"{dropped} above {NOISE_LIMIT:g}x are left out of the fit; rerun on an idle machine"
        )
    if base is not None:
        check_base(metadata, base, stand_in=stand_in)
        if stand_in:
            warnings.append(
                f"--stand-in: the profile describes {measured_device(metadata)!r} under "
                f"{base.name}'s name and node"
            )
        elif not metadata.get("gpu") and measured_device(metadata) != "cpu":
            warnings.append(
                f"--base: the results do not name the GPU they were measured on (device "
                f"{measured_device(metadata)!r}); make sure it is {base.name}"
            )
    return warnings


def fit_gemm_curves(
    results: pd.DataFrame, peaks: dict[str, float]
) -> dict[str, list[dict[str, float]]]:
    """Per format: ``[{"flops", "efficiency"}]`` sorted by size, non-decreasing."""
    curves = {}
    gemms = _gemm_rows(results)
    gemms = gemms[~gemms["unaligned"]]  # the size curves are aligned GEMMs' (fit_unaligned)
    best = {str(f): float(group["achieved"].max()) for f, group in gemms.groupby("format")}
    for (fmt, layout), rows in gemms.groupby(["format", "layout"]):
        achieved = rows["achieved"].to_numpy()
        flops = rows["flops"].to_numpy()
        peak = peaks.get(str(fmt), best[str(fmt)])
        order = np.lexsort((achieved, flops))
        sizes, efficiency = flops[order], achieved[order] / peak
        unique, inverse = np.unique(sizes, return_inverse=True)
        means = np.array([efficiency[inverse == i].mean() for i in range(len(unique))])
        # never above the peak (the datasheet's, or with no datasheet the best measured)
        fitted = np.minimum(isotonic_increasing(means), EFFICIENCY_BOUNDS[1])
        key = str(fmt) if layout == "nn" else f"{fmt}/{layout}"
        curves[key] = [
            {"flops": float(f), "efficiency": float(e)} for f, e in zip(unique, fitted, strict=True)
        ]
    return curves


def _gemm_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The successful GEMM rows with their operand layout, achieved FLOP/s and whether a
    leading dimension is unaligned (:func:`mlcost.roofline.layout_unaligned`)."""
    gemms = _ok(results, "gemm")
    params = gemms["params"].map(json.loads)
    layouts = params.map(lambda p: p.get("layout", "nn"))
    return gemms.assign(
        layout=layouts,
        achieved=gemms["flops"] / gemms["seconds"],
        unaligned=[
            layout_unaligned(p["m"], p["n"], p["k"], layout, alignment_elements(str(fmt)))
            for p, layout, fmt in zip(params, layouts, gemms["format"], strict=True)
        ],
    )


#: Bounds of the fitted unaligned-GEMM ratio (an unaligned GEMM's throughput over an aligned
#: one's): not faster than aligned beyond the noise of two timings (1.1; FP32 without tensor
#: cores measured 0.99 to 1.05 on the H200), and at most ten times slower (the H200's worst
#: measured, a GPT-2 LM head at vocabulary 50,257 against 50,304, ran at 0.16 to 0.24 of
#: aligned: benchmarks/data/h200-2026-11-26/profile_steps.json).
#: A ratio outside comes from a disturbed timing (a loaded machine fitted 35x slower and 33x
#: faster in issue 62) and is kept at the bound.
UNALIGNED_BOUNDS = (0.1, 1.1)


def fit_unaligned(results: pd.DataFrame) -> dict[str, float]:
    """Per format and layout (keys as :func:`fit_gemm_curves`'), an unaligned GEMM's achieved
    FLOP/s over that of the aligned GEMM nearest in FLOPs (same format and layout), the median
    over the unaligned shapes measured, within :data:`UNALIGNED_BOUNDS`:
    ``Measured.gemm_unaligned``."""
    gemms = _gemm_rows(results)
    ratios: dict[str, list[float]] = {}
    for (fmt, layout), rows in gemms.groupby(["format", "layout"]):
        aligned = rows[~rows["unaligned"]]
        if aligned.empty:
            continue
        for _, row in rows[rows["unaligned"]].iterrows():
            nearest = aligned.iloc[int(np.argmin(np.abs(np.log(aligned["flops"] / row["flops"]))))]
            key = str(fmt) if layout == "nn" else f"{fmt}/{layout}"
            ratios.setdefault(key, []).append(float(row["achieved"] / nearest["achieved"]))
    return {
        key: float(np.clip(np.median(values), *UNALIGNED_BOUNDS))
        for key, values in sorted(ratios.items())
    }


def fit_attention_curves(
    results: pd.DataFrame, peaks: dict[str, float]
) -> dict[str, list[dict[str, float]]]:
    """Like :func:`fit_gemm_curves` for ``scaled_dot_product_attention``, keyed by the forward
    FLOPs of one of its two matmuls (a sixth of the fwd + bwd FLOPs recorded), as the workload
    table's attention rows are."""
    rows = _ok(results, "attention")
    if not rows.empty:
        # The backend PyTorch picks itself is what a training step runs: where the backends were
        # also forced one by one (CUDA), only its rows are fitted.
        backend = rows["params"].map(lambda p: json.loads(p).get("backend", "default"))
        rows = rows[backend == "default"]
    curves = {}
    for fmt, group in rows.groupby("format"):
        achieved = (group["flops"] / group["seconds"]).to_numpy()
        per_row = group["flops"].to_numpy() / 6
        peak = peaks.get(str(fmt), 0.0) or float(achieved.max())
        unique, inverse = np.unique(per_row, return_inverse=True)
        means = np.array([(achieved / peak)[inverse == i].mean() for i in range(len(unique))])
        fitted = isotonic_increasing(means)
        curves[str(fmt)] = [
            {"flops": float(f), "efficiency": float(min(e, EFFICIENCY_BOUNDS[1]))}
            for f, e in zip(unique, fitted, strict=True)
        ]
    return curves


def fit_bandwidth(results: pd.DataFrame) -> float | None:
    """Achievable bytes/s: median over the STREAM kernels at the largest size measured."""
    rows = _ok(results, "memory")
    if rows.empty:
        return None
    sizes = rows["params"].map(lambda p: json.loads(p)["elements"])
    largest = rows[sizes == sizes.max()]
    return float(np.median(largest["bytes"] / largest["seconds"]))


#: Bounds of every fitted efficiency: a share of the ceiling it is relative to (the datasheet
#: peak or bandwidth, or with no datasheet the best measured), never above it; below 1% the
#: measured time is not the work's (a stall).
EFFICIENCY_BOUNDS = (0.01, 1.0)
#: How much faster than STREAM another memory-bound measurement may move its counted bytes
#: before the two are taken as inconsistent. Physically none is faster: AdamW's 28 bytes per
#: parameter (read parameter, gradient and two moments, write three) and the kernels' five
#: tensor passes are the least each must move, and STREAM is the achievable bandwidth
#: (McCalpin 1995). The margin of 1.25 covers the timing noise of two measurements on a quiet
#: machine; on this repository's 2-core CPU the fastest of them moved 0.37 to 0.47 of STREAM's
#: bytes per second (three quiet runs, issue 62), while a STREAM run disturbed by other work
#: measured about a twentieth of its bandwidth.
STREAM_MARGIN = 1.25
#: Bounds of the fitted launch overhead (seconds per kernel): CUDA's launch latency is a few
#: microseconds (NVIDIA, CUDA C++ Best Practices Guide, "Asynchronous and Overlapping
#: Transfers"), a CPU operator's dispatch a few microseconds too; above a millisecond per
#: kernel the time is not a launch.
LAUNCH_BOUNDS = (1e-7, 1e-3)


def check_consistency(results: pd.DataFrame) -> list[str]:
    """Problems that make the results physically inconsistent, so that no profile may be fitted
    from them: the STREAM bandwidth (median over its kernels) below what another memory-bound
    measurement (the kernels, the AdamW step) moved at its largest size, beyond
    :data:`STREAM_MARGIN`; STREAM is taken at the same size (the same caches) where it was
    measured there, else at its largest. Each problem is one line naming the measurements,
    the values, and what to do."""
    stream = _ok(results, "memory")
    if stream.empty:
        return []
    stream_sizes = stream["params"].map(lambda p: json.loads(p)["elements"])
    problems = []
    for family in ("kernel", "optimizer"):
        rows = _ok(results, family)
        if rows.empty:
            continue
        params = rows["params"].map(json.loads)
        sizes = params.map(lambda p: p.get("elements", p.get("parameters", 0)))
        size = int(sizes.max())
        largest = rows[sizes == size]
        rates = largest["bytes"] / largest["seconds"]
        name = f"{family} {largest['name'].iloc[int(np.argmax(rates.to_numpy()))]}"
        # STREAM at the same size (the same caches), else at its largest
        same = stream[stream_sizes == size] if (stream_sizes == size).any() else None
        reference = same if same is not None else stream[stream_sizes == stream_sizes.max()]
        bandwidth = float(np.median(reference["bytes"] / reference["seconds"]))
        if bandwidth * STREAM_MARGIN < float(rates.max()):
            problems.append((float(rates.max()), name, bandwidth, size))
    if not problems:
        return []
    fastest, name, bandwidth, size = max(problems)
    return [
        f"memory: the STREAM bandwidth {bandwidth / 1e9:.3g} GB/s is below what the {name} "
        f"measurement moved ({fastest / 1e9:.3g} GB/s, {size} elements); no kernel moves "
        "memory faster than "
        "STREAM, so the STREAM measurement was disturbed by other work on the machine; measure "
        "again into a new folder ('mlcost bench --out NEW'), on a quieter machine if you can"
    ]


def fit_vector_efficiency(results: pd.DataFrame, vector_peak: float) -> float | None:
    """Element-wise kernels' achieved FLOP/s over the FP32 vector peak: the median over the
    softmax, layer-norm and GELU kernels (forward + backward) at the largest size, capped at 1."""
    rows = _ok(results, "kernel")
    if rows.empty or vector_peak <= 0:
        return None
    sizes = rows["params"].map(lambda p: json.loads(p)["elements"])
    largest = rows[sizes == sizes.max()]
    achieved = float(np.median(largest["flops"] / largest["seconds"]))
    return min(achieved / vector_peak, 1.0)


def fit_kind_efficiency(results: pd.DataFrame, vector_peak: float) -> dict[str, float]:
    """Per workload kind (softmax, norm, activation, loss; optimizer): achieved FLOP/s over
    the FP32 vector peak at the largest size measured, capped at 1."""
    efficiencies: dict[str, float] = {}
    if vector_peak <= 0:
        return efficiencies
    for family in ("kernel",):
        rows = _ok(results, family)
        if rows.empty:
            continue
        params = rows["params"].map(json.loads)
        sizes = params.map(lambda p: p.get("elements", p.get("parameters", 0)))
        kinds = params.map(lambda p: p.get("kind", "optimizer"))
        largest = rows[sizes == sizes.max()]
        for kind, group in largest.groupby(kinds[sizes == sizes.max()]):
            achieved = float(np.median(group["flops"] / group["seconds"]))
            efficiencies[str(kind)] = min(achieved / vector_peak, 1.0)
    return efficiencies


def fit_optimizer_curve(results: pd.DataFrame, vector_peak: float) -> list[dict[str, float]]:
    """AdamW step: achieved FLOP/s over the vector peak against the step's FLOPs (monotone)."""
    rows = _ok(results, "optimizer")
    if rows.empty or vector_peak <= 0:
        return []
    flops = rows["flops"].to_numpy()
    efficiency = (rows["flops"] / rows["seconds"]).to_numpy() / vector_peak
    order = np.argsort(flops)
    fitted = isotonic_increasing(efficiency[order])
    return [
        {"flops": float(f), "efficiency": float(min(e, 1.0))}
        for f, e in zip(flops[order], fitted, strict=True)
    ]


def fit_launch(results: pd.DataFrame) -> float | None:
    """The launch overhead: the one-element kernel's time, within :data:`LAUNCH_BOUNDS`."""
    rows = _ok(results, "launch")
    if rows.empty:
        return None
    return float(np.clip(rows["seconds"].median(), *LAUNCH_BOUNDS))


#: Bounds of the fitted first-touch rate (bytes of fresh pages mapped and first written per
#: second beyond a write to mapped ones): a minor page fault of a 4 KiB page costs about 0.1 to
#: a few microseconds on Linux (this repository's 2-core EPYC slice measured 1.3 us, 3 GB/s;
#: Gorman, "Understanding the Linux Virtual Memory Manager", ch. 4), so 4 KiB / 40 us = 0.1 GB/s
#: at the slow end; a rate below it is not page faults but a disturbed timing, and the results
#: are refused. A rate above 100 GB/s (40 ns a page) is no measurable cost: no term.
FIRST_TOUCH_BOUNDS = (1e8, 1e11)


def fit_first_touch(results: pd.DataFrame) -> float | None:
    """The first-touch rate ``B / (t_fresh - t_reused)`` (bytes per second) of the host family
    (:func:`mlcost.bench.suites.host`: the same fill of a buffer above the allocator's mmap
    threshold, allocated afresh and allocated once); ``None`` where it was not measured, or a
    fresh buffer cost no more than :data:`FIRST_TOUCH_BOUNDS` allows (no page faults: an
    allocator that keeps its pages, transparent huge pages). A rate below the bounds is refused
    (one line naming the values): the timing was disturbed."""
    rows = _ok(results, "host")
    by_name = {str(row["name"]): row for _, row in rows.iterrows()}
    if "fill-fresh" not in by_name or "fill-reused" not in by_name:
        return None
    fresh, reused = by_name["fill-fresh"], by_name["fill-reused"]
    extra = float(fresh["seconds"]) - float(reused["seconds"])
    nbytes = float(fresh["bytes"])
    if extra <= nbytes / FIRST_TOUCH_BOUNDS[1]:
        return None
    rate = nbytes / extra
    if rate < FIRST_TOUCH_BOUNDS[0]:
        raise MlcostError(
            f"host fill-fresh: the first touch of {nbytes / 2**20:.0f} MiB took "
            f"{extra * 1e3:.3g} ms beyond a reused buffer's fill, {rate / 1e9:.3g} GB/s, below "
            f"the {FIRST_TOUCH_BOUNDS[0] / 1e9:g} GB/s a page fault allows; the timing was "
            "disturbed by other work on the machine; measure again into a new folder "
            "('mlcost bench --out NEW'), on a quieter machine if you can"
        )
    return rate


def fit_alpha_beta(sizes: np.ndarray, times: np.ndarray) -> tuple[float, float, float]:
    """Least squares ``t = alpha + beta · bytes``; returns (alpha s, bandwidth B/s, R^2)."""
    design = np.vstack([np.ones_like(sizes), sizes]).T
    (alpha, beta), *_ = np.linalg.lstsq(design, times, rcond=None)
    predicted = alpha + beta * sizes
    residual = float(np.sum((times - predicted) ** 2))
    total = float(np.sum((times - times.mean()) ** 2)) or 1.0
    return max(float(alpha), 0.0), (1.0 / beta if beta > 0 else float("inf")), 1 - residual / total


def fit_collectives(results: pd.DataFrame) -> list[dict[str, Any]]:
    rows = _ok(results, "collective")
    fits = []
    for name, group in rows.groupby("name"):
        alpha, bandwidth, r2 = fit_alpha_beta(
            group["bytes"].to_numpy(), group["seconds"].to_numpy()
        )
        fits.append(
            {
                "collective": str(name),
                "alpha": format_quantity(Q_(alpha, "s")),
                "bandwidth": format_quantity(Q_(bandwidth, "B/s")),
                "r_squared": r2,
            }
        )
    return fits


def _host_memory_bytes() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 1


def host_profile_fields() -> dict[str, Any]:
    """The fields of a profile of this host (a CPU, no datasheet): its memory capacity (the
    host's RAM) and its power (:attr:`mlcost.assumptions.Assumptions.measured_host_power`, a
    stated assumption, so a CPU profile plans a CPU run), with their references and sources
    (merge them into the profile's own)."""
    return {
        "memory_capacity": format_quantity(Q_(_host_memory_bytes(), "B").to("GiB")),
        "tdp": format_quantity(Assumptions().measured_host_power),
        "references": {
            "host": "os.sysconf(SC_PHYS_PAGES) x page size",
            "power": ASSUMPTION_SOURCES["measured_host_power"],
        },
        "sources": {"memory_capacity": "host", "tdp": "power"},
    }


def calibrate(
    results_directory: str | Path,
    *,
    base: Accelerator | None = None,
    name: str | None = None,
    stand_in: bool = False,
) -> Accelerator:
    """A measured profile from the results in ``results_directory`` (see the module docstring);
    a ``base`` other than the device measured is refused unless ``stand_in``
    (:func:`check_base`)."""
    csv = results_path(results_directory)
    results = read_results_csv(csv)
    successful_rows(results, csv)
    metadata = read_metadata(csv)
    if base is not None:
        check_base(metadata, base, stand_in=stand_in)
    directory = csv.parent
    peaks = {}
    if base is not None:
        for fmt in base.formats:
            peaks[fmt] = base.peak(fmt).to("flop/s").magnitude
    curves = fit_gemm_curves(results, peaks)
    if not curves:
        raise MlcostError(f"results: no successful GEMM measurements in {csv}")
    problems = check_consistency(results)
    if problems:
        raise MlcostError(f"results {csv}: {problems[0]}")
    bandwidth = fit_bandwidth(results)
    if bandwidth is not None and base is not None:  # never above the datasheet's
        bandwidth = min(bandwidth, base.memory_bandwidth.to("B/s").magnitude)
    attention_peaks = dict(peaks)
    launch = fit_launch(results)
    first_touch = fit_first_touch(results) if measured_device(metadata) == "cpu" else None
    collectives = fit_collectives(results)
    measured_peaks = {}
    gemms = _ok(results, "gemm")
    for format_key, rows in gemms.groupby("format"):
        measured_peaks[str(format_key)] = float((rows["flops"] / rows["seconds"]).max())
    vector_peak = (
        base.peak("fp32", engine="vector").to("flop/s").magnitude
        if base is not None and "fp32" in base.formats
        else measured_peaks.get("fp32", 0.0)
    )
    vector_efficiency = fit_vector_efficiency(results, vector_peak)
    for fmt, peak in measured_peaks.items():
        attention_peaks.setdefault(fmt, peak)
    attention_curves = fit_attention_curves(results, attention_peaks)
    device = measured_device(metadata)
    if device == "cpu" and metadata.get("processor"):
        device = f"cpu ({metadata['processor']}, {metadata.get('cpu_threads', '?')} threads)"
    date = str(metadata.get("date", "1970-01-01"))[:10]
    source = (
        f"mlcost bench results {directory.name} ({metadata.get('preset', '?')} preset), "
        f"measured {date} on {device}, host {metadata.get('host', '?')}, "
        f"torch {metadata.get('torch', '?')}"
    )
    fit_quality = {f"collective {c['collective']} R^2": c["r_squared"] for c in collectives}
    for fmt, points in curves.items():
        fit_quality[f"gemm {fmt} points"] = float(len(points))
    measured = {
        "measured_on": device,
        "based_on": base.name if base is not None else None,
        "date": date,
        "torch": metadata.get("torch"),
        "preset": metadata.get("preset"),
        "gemm_efficiency": curves,
        "attention_efficiency": attention_curves,
        "gemm_unaligned": fit_unaligned(results),
        "memory_bandwidth": format_quantity(Q_(bandwidth, "B/s").to("GB/s")) if bandwidth else None,
        "launch_overhead": format_quantity(Q_(launch, "s").to("us")) if launch else None,
        "first_touch_bandwidth": (
            format_quantity(Q_(first_touch, "B/s").to("GB/s")) if first_touch else None
        ),
        "mmap_threshold": (
            format_quantity(Assumptions().host_mmap_threshold) if first_touch else None
        ),
        "vector_efficiency": vector_efficiency,
        "kind_efficiency": fit_kind_efficiency(results, vector_peak),
        "optimizer_efficiency": fit_optimizer_curve(results, vector_peak),
        "collectives": collectives,
        "fit_quality": fit_quality,
    }
    if base is not None:
        data = base.to_dict()
        data["name"] = name or f"{base.name}-measured"
        data["aliases"] = []
        data["default_for"] = []  # a profile is never the default a short name means
        if bandwidth:
            data["memory_bandwidth"] = measured["memory_bandwidth"]
        data["measured"] = measured
        data["sources"] = {
            **data.get("sources", {}),
            "measured": source,
            "memory_bandwidth": source,
        }
        return _validated(data)
    host = host_profile_fields()
    data = {
        "kind": "accelerator",
        "name": name or "measured-cpu",
        "vendor": "measured",
        "display_name": f"{device} (measured)",
        "memory_capacity": host["memory_capacity"],
        "tdp": host["tdp"],
        "memory_bandwidth": measured["memory_bandwidth"] or "1 GB/s",
        "peak_compute": [
            {
                "format": fmt,
                "engine": "vector",
                "dense": format_quantity(Q_(peak, "flop/s").to("GFLOP/s")),
            }
            for fmt, peak in sorted(measured_peaks.items())
        ],
        "measured": measured,
        "notes": "Peaks are the best throughput measured, not a datasheet's; the GEMM "
        "efficiency curve is relative to them.",
        "references": {
            "bench": source,
            **host["references"],
            "mmap": ASSUMPTION_SOURCES["host_mmap_threshold"],
        },
        "sources": {"*": "bench", **host["sources"], "measured.mmap_threshold": "mmap"},
    }
    return _validated(data)


def _validated(data: dict[str, Any]) -> Accelerator:
    spec = spec_from_dict(json.loads(json.dumps(data, default=str)))
    if not isinstance(spec, Accelerator):  # spec_from_dict follows "kind"
        raise MlcostError("calibrate: the profile is not an accelerator")
    return spec


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
