"""The GEMMs of a tensor-parallel rank as Transformer Engine's TP communication overlap runs
them: split into chunks, each pipelined with its piece of the all-gather or reduce-scatter.

Transformer Engine's userbuffers (``--tp-comm-overlap`` in Megatron-LM) overlap each layer's
sequence-parallel collectives with its GEMMs by splitting the GEMM along the tokens (Transformer
Engine ``initialize_ub``, default methods): ``ring_exchange`` (the all-gathered input arrives
one rank's shard at a time; ``num_splits = tp``) for ``qkv_fprop``, ``fc1_fprop``,
``proj_dgrad``, ``fc2_dgrad``; ``pipeline`` (the output reduce-scattered in ``num_splits = 4``
chunks) for ``proj_fprop``, ``fc2_fprop``; ``bulk`` (the whole GEMM, the collective beside it)
for the QKV and FC1 input and weight gradients. A chunk is a GEMM of ``m/tp`` (or ``m/4``)
rows with the full weight, so it may run less efficiently than the whole one (fewer output
tiles for the 132 SMs). This script measures that on one GPU, without the communication: for
the tensor-parallel Megatron-Core H100 rows of mlcost's validation set (micro-batch 1,
sequence 4,096, the rank's shard shapes), each of the twelve GEMM passes of a layer whole and
as its chunks back to back, BF16, CUDA events, the two variants alternated so they share the
clock. Nothing here is fitted.

Run: ``OUT=dir python3 benchmarks/gpu_tp_overlap_chunks.py`` (``--dry``: toy sizes on the CPU).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import torch
from torch.nn import functional

BF16 = torch.bfloat16

#: (row id, hidden, ffn, tp) of the tensor-parallel Megatron-Core H100 rows (sequence 4,096,
#: micro-batch 1, GELU MLP of 4h; mlcost.published, the README table).
ROWS = (
    ("run.megatron_h100.7.1B", 4096, 16384, 2),
    ("run.megatron_h100.16B", 6144, 24576, 4),
    ("run.megatron_h100.32B", 7168, 28672, 8),
    ("run.megatron_h100.70B", 8192, 32768, 8),
    ("run.megatron_h100.119B", 10240, 40960, 8),
    ("run.megatron_h100.177B", 12288, 49152, 8),
    ("run.megatron_h100.314B", 16384, 65536, 8),
    ("run.megatron_h100.462B", 18432, 73728, 8),
)

#: Transformer Engine's default overlap method per GEMM pass (None: not overlapped).
METHODS = {
    "qkv_fprop": "ring_exchange",
    "proj_fprop": "pipeline",
    "fc1_fprop": "ring_exchange",
    "fc2_fprop": "pipeline",
    "qkv_dgrad": "bulk",
    "proj_dgrad": "ring_exchange",
    "fc1_dgrad": "bulk",
    "fc2_dgrad": "ring_exchange",
    "qkv_wgrad": "bulk",
    "proj_wgrad": None,
    "fc1_wgrad": "bulk",
    "fc2_wgrad": None,
}


def splits(method: str | None, tp: int) -> int:
    return {"ring_exchange": tp, "pipeline": 4}.get(method or "", 1)


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def seconds(run: Callable[[], Any], device: str, reps: int) -> float:
    """Seconds of one call of ``run``: ``reps`` calls between two events (the host clock on the
    CPU)."""
    if device.startswith("cuda"):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            run()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1e3 / reps
    begin = time.perf_counter()
    for _ in range(reps):
        run()
    return (time.perf_counter() - begin) / reps


def tokens(a: torch.Tensor, parts: int) -> list[torch.Tensor]:
    """``a``'s rows in ``parts`` equal chunks (views)."""
    rows = a.shape[0]
    return [a[i * rows // parts : (i + 1) * rows // parts] for i in range(parts)]


def each(gemm: Callable[..., torch.Tensor], chunks: list[torch.Tensor], w: torch.Tensor) -> None:
    """``gemm`` of every chunk with the same weight, back to back."""
    for chunk in chunks:
        gemm(chunk, w)


def passes(hidden: int, ffn: int, tp: int, m: int, device: str) -> dict[str, tuple[Any, ...]]:
    """Each GEMM pass of one layer on one rank: (shape m x n x k, the whole GEMM, its chunks)."""
    out: dict[str, tuple[Any, ...]] = {}
    shapes = {  # (out features n, in features k) of the rank's weight
        "qkv": (3 * hidden // tp, hidden),
        "proj": (hidden, hidden // tp),
        "fc1": (ffn // tp, hidden),
        "fc2": (hidden, ffn // tp),
    }
    for name, (n, k) in shapes.items():
        w = torch.randn(n, k, device=device, dtype=BF16) / k**0.5
        x = torch.randn(m, k, device=device, dtype=BF16)
        dy = torch.randn(m, n, device=device, dtype=BF16)
        for kind in ("fprop", "dgrad", "wgrad"):
            key = f"{name}_{kind}"
            parts = splits(METHODS[key], tp)
            whole: Callable[[], Any]
            chunked: Callable[[], Any]
            if kind == "fprop":  # y = x W^T, chunked over the tokens
                whole = partial(functional.linear, x, w)
                chunked = partial(each, functional.linear, tokens(x, parts), w)
                shape = (m, n, k)
            elif kind == "dgrad":  # dx = dy W, chunked over the tokens
                whole = partial(torch.matmul, dy, w)
                chunked = partial(each, torch.matmul, tokens(dy, parts), w)
                shape = (m, k, n)
            else:  # dW = dy^T x (never chunked by the overlap)
                whole = partial(torch.matmul, dy.t(), x)
                chunked = whole
                shape = (n, k, m)
            out[key] = (shape, parts, whole, chunked)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry", action="store_true", help="toy sizes on the CPU")
    args = parser.parse_args()
    device = "cpu" if args.dry else "cuda"
    out = Path(os.environ.get("OUT", "/tmp/tp-chunks"))
    out.mkdir(parents=True, exist_ok=True)
    shrink = 32 if args.dry else 1
    m = 4096 // shrink
    reps, rounds = (2, 2) if args.dry else (10, 3)
    rows: list[dict[str, Any]] = []
    results: dict[str, Any] = {"start_epoch": time.time(), "methods": METHODS, "rows": rows}
    if device == "cuda":
        results["gpu"] = torch.cuda.get_device_name(0)
        results["torch"] = torch.__version__
    path = out / "tp_overlap_chunks.json"
    for row, hidden, ffn, tp in ROWS:
        gemms = passes(hidden // shrink, ffn // shrink, tp, m, device)
        for _, _, whole, chunked in gemms.values():  # warm-up (cuBLAS heuristics, clocks)
            whole()
            chunked()
        sync(device)
        times: dict[str, dict[str, list[float]]] = {k: {"whole": [], "chunked": []} for k in gemms}
        for _ in range(rounds):
            for key, (_, parts, whole, chunked) in gemms.items():
                times[key]["whole"].append(seconds(whole, device, reps))
                if parts > 1:
                    times[key]["chunked"].append(seconds(chunked, device, reps))
        entry: dict[str, Any] = {
            "row": row,
            "hidden": hidden,
            "ffn": ffn,
            "tp": tp,
            "m": m,
            "gemms": {},
        }
        whole_sum = chunked_sum = 0.0
        for key, (shape, parts, _, _) in gemms.items():
            w = sorted(times[key]["whole"])[len(times[key]["whole"]) // 2]
            c = sorted(times[key]["chunked"])[len(times[key]["chunked"]) // 2] if parts > 1 else w
            flops = 2 * shape[0] * shape[1] * shape[2]
            entry["gemms"][key] = {
                "m_n_k": shape, "splits": parts, "method": METHODS[key],
                "whole_s": w, "chunked_s": c, "whole_tflops": flops / w / 1e12,
                "chunked_tflops": flops / c / 1e12,
            }  # fmt: skip
            whole_sum += w
            chunked_sum += c
        entry["layer_gemm_whole_s"] = whole_sum
        entry["layer_gemm_chunked_s"] = chunked_sum
        rows.append(entry)
        path.write_text(json.dumps(results, indent=1))
        slow = {k: round(v["chunked_s"] / v["whole_s"], 3) for k, v in entry["gemms"].items()
                if v["splits"] > 1}  # fmt: skip
        print(f"{row}: layer GEMMs whole {whole_sum * 1e3:.3f} ms, chunked {chunked_sum * 1e3:.3f} "
              f"ms (x{chunked_sum / whole_sum:.3f}); chunk/whole {slow}")  # fmt: skip
        del gemms
        if device == "cuda":
            torch.cuda.empty_cache()
    results["end_epoch"] = time.time()
    path.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
