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
    return {
        "read_stream": read,
        "plain_kernel": plain,
        "matmul": statistics.median(gemv) - plain,
        "norm": statistics.median(norms) - plain,
        "attention": statistics.median(attention),
        "streams": len(streams),
        "gemvs": len(gemv),
    }


def main() -> None:
    found = fit(json.loads(DATA.read_text()))
    print(
        f"read stream: {found['read_stream'] / 1e12:.2f} TB/s (median of {found['streams']} "
        "pure-read kernels: LM-head GEMVs at one token, decode attention at batch 64)"
    )
    print(f"smallest element-wise kernel, replayed: {found['plain_kernel'] * 1e6:.2f} us")
    for kind in ("matmul", "norm", "attention"):
        print(f"kernel latency {kind}: {found[kind] * 1e6:.1f} us")


if __name__ == "__main__":
    main()
