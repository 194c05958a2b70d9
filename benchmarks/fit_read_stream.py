"""The H200's read-stream bandwidth and per-kernel-class latencies, fitted to the kernels that
``scripts/measure_kernels.py`` timed on one H200 (``benchmarks/data/h200-2026-11-27/
kernels.json``, issue 67). Prints the figures ``specs/accelerators/h200-sxm-141gb.yaml`` carries
under ``measured.memory_read_bandwidth`` and ``measured.kernel_latency`` and how each was
obtained. Not a test: a fit to hardware measurements, stated as such.

* Read stream ``R``: the median over the large pure-read kernels of ``bytes / time``: the LM
  head's GEMV at one token (every weight read once, 0.5-1.1 GB; its output is 0.02% of its
  bytes) and cuDNN's decode attention at batch 64, context 8,192 (the KV cache, 1.1-2.1 GB,
  read once per step). Their fixed latency is under 3% of their time.
* GEMM latency: ``T = a + V / R`` with ``R`` fixed, ``a`` the median over every skinny GEMM of
  1-16 tokens (replayed from CUDA graphs, 36 shapes) of ``T - V / R``, less the replay time of
  the smallest element-wise kernel of the same run (what an engine's per-kernel cost already
  charges: ``Engine.graph_kernel_overhead``).
* Norm latency: ``F.rms_norm`` of 1-256 tokens (bytes negligible), median replay time, less the
  same element-wise replay time.
* Attention latency: cuDNN's decode attention kernel and its reduction kernel at batch 1,
  context 512 (profiler durations, which hold no launch gap), less their KV bytes at ``R``; the
  median over the three models.

Run: ``.venv/bin/python benchmarks/fit_read_stream.py``.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "h200-2026-11-27" / "kernels.json"
#: KV heads and head dimension of the three measured models (their catalog specs).
KV_SHAPE = {"llama-3.2-1b": (8, 64), "llama-3.2-3b": (8, 128), "llama-3-8b": (8, 128)}


def kv_bytes(model: str, batch: int, context: int) -> float:
    """One layer's BF16 K and V cache bytes for ``batch`` sequences of ``context`` tokens."""
    heads, dim = KV_SHAPE[model]
    return float(batch * context * heads * dim * 2 * 2)


def fit(data: dict) -> dict[str, float]:
    """The figures of the module docstring, in bytes/s and seconds."""
    streams = [g["bytes"] / g["seconds"] for g in data["skinny_gemms"]
               if g["gemm"] == "lm_head" and g["m"] == 1]  # fmt: skip
    large = [e for e in data["decode_kernels"] if e["batch"] == 64]
    small = [e for e in data["decode_kernels"] if e["batch"] == 1]

    def attention_us(entry: dict, name: str) -> list[float]:
        return [k["us"] for k in entry["kernels"] if name in k["name"]]

    for entry in large:
        seconds = statistics.median(attention_us(entry, "sdpa")) * 1e-6
        streams.append(kv_bytes(entry["model"], entry["batch"], entry["context"]) / seconds)
    read = statistics.median(streams)
    plain = min(k["seconds"] for k in data["short_kernels"] if k["kernel"] == "mul")
    gemv = [g["seconds"] - g["bytes"] / read for g in data["skinny_gemms"] if g["m"] <= 16]
    norms = [k["seconds"] for k in data["short_kernels"] if k["kernel"] == "rms_norm"]
    attention = []
    for entry in small:
        kernels = statistics.median(attention_us(entry, "sdpa")) + statistics.median(
            attention_us(entry, "lean_reduction")
        )
        bytes_ = kv_bytes(entry["model"], entry["batch"], entry["context"])
        attention.append(kernels * 1e-6 - bytes_ / read)
    corner = roofline_corner(data, read, statistics.median(gemv) - plain, plain)
    return {
        "corner": corner,
        "read_stream": read,
        "plain_kernel": plain,
        "matmul": statistics.median(gemv) - plain,
        "norm": statistics.median(norms) - plain,
        "attention": statistics.median(attention),
        "streams": len(streams),
        "gemvs": len(gemv),
    }


def roofline_corner(data: dict, read: float, latency: float, plain: float) -> float:
    """The exponent ``p`` of ``t = (t_c^p + t_m^p)^(1/p)`` that minimizes the mean |error| over
    the skinny GEMMs of 256 tokens (where compute and memory times are within 2x of each
    other), on a grid of 1.5 to 6 in steps of 0.25; ``t_c`` their FLOPs at the H200's BF16 GEMM
    ceiling (989.4 TFLOP/s x 0.803, its spec), ``t_m`` their bytes by the read-stream rule plus
    the GEMM latency, ``t`` the replay time less the plain kernel's."""
    peak = 989.4e12 * 0.803
    triad = 3.534e12
    shapes = []
    for g in data["skinny_gemms"]:
        if g["m"] != 256:
            continue
        written = 2 * g["m"] * g["n"]
        reads = g["bytes"] - written
        paired = min(reads, 2 * written)
        memory = (written + paired) / triad + (reads - paired) / read + latency
        compute = 2 * g["m"] * g["n"] * g["k"] / peak
        shapes.append((compute, memory, g["seconds"] - plain))

    def error(p: float) -> float:
        return statistics.mean(abs((c**p + m**p) ** (1 / p) / t - 1) for c, m, t in shapes)

    return min((1.5 + 0.25 * i for i in range(19)), key=error)


def main() -> None:
    found = fit(json.loads(DATA.read_text()))
    print(
        f"read stream: {found['read_stream'] / 1e12:.2f} TB/s (median of {found['streams']} "
        "pure-read kernels: LM-head GEMVs at one token, decode attention at batch 64)"
    )
    print(f"smallest element-wise kernel, replayed: {found['plain_kernel'] * 1e6:.2f} us")
    for kind in ("matmul", "norm", "attention"):
        print(f"kernel latency {kind}: {found[kind] * 1e6:.1f} us")
    print(
        f"roofline corner p: {found['corner']:.2f} (t = (t_c^p + t_m^p)^(1/p), GEMMs of 256 tokens)"
    )


if __name__ == "__main__":
    main()
