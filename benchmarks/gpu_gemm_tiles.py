"""Which kernel cuBLAS runs for a short or skinny GEMM, and how fast: data for a tile-selection
model (issue 61's follow-up: mlcost's wave rule of 128 x 128 output tiles overprices Transformer
Engine's chunked GEMMs 1.5-6 times, ``benchmarks/data/h200-2026-11-28``).

For the rank's weight shapes of the Megatron-Core H100 rows (the QKV, projection, FC1 and FC2
of each TP > 1 row, ``n x k`` of its ``F.linear``) and token counts ``m`` of 128 to 4,096, BF16,
on one GPU: each GEMM's time (CUDA events, median of repeated calls over enough weight copies
that it does not run from L2) and the name of the kernel cuBLAS picked (one call under
``torch.profiler``; the name carries the tile shape, e.g. ``tilesize128x256x64``, and split-K
or stream-K). Nothing here is fitted.

Run: ``OUT=dir python3 benchmarks/gpu_gemm_tiles.py`` (``--dry``: toy sizes on the CPU).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import torch
from gpu_tp_overlap_chunks import seconds
from torch.nn import functional

BF16 = torch.bfloat16

#: (hidden, ffn, tp) of the TP > 1 Megatron-Core H100 rows (mlcost.published).
ROWS = (
    (4096, 16384, 2),
    (6144, 24576, 4),
    (7168, 28672, 8),
    (8192, 32768, 8),
    (10240, 40960, 8),
    (12288, 49152, 8),
    (16384, 65536, 8),
    (18432, 73728, 8),
)
TOKENS = (128, 256, 512, 1024, 2048, 4096)


def weight_shapes(hidden: int, ffn: int, tp: int) -> dict[str, tuple[int, int]]:
    """``(n, k)`` of the rank's four linear layers (out and in features)."""
    return {
        "qkv": (3 * hidden // tp, hidden),
        "proj": (hidden, hidden // tp),
        "fc1": (ffn // tp, hidden),
        "fc2": (hidden, ffn // tp),
    }


def kernel_names(run: Any) -> list[str]:
    """The CUDA kernels one call of ``run`` launched (torch.profiler)."""
    activities = [torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as prof:
        run()
        torch.cuda.synchronize()
    cuda = {e.name for e in prof.events() if getattr(e.device_type, "name", "") == "CUDA"}
    return sorted(cuda)


def timed(run: Any, device: str, reps: int) -> float:
    """Median seconds of one call over 3 batches of ``reps`` calls (:func:`seconds`)."""
    return sorted(seconds(run, device, reps) for _ in range(3))[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry", action="store_true", help="toy sizes on the CPU")
    args = parser.parse_args()
    device = "cpu" if args.dry else "cuda"
    out = Path(os.environ.get("OUT", "/tmp/gemm-tiles"))
    out.mkdir(parents=True, exist_ok=True)
    shrink = 64 if args.dry else 1
    rows: list[dict[str, Any]] = []
    results: dict[str, Any] = {"start_epoch": time.time(), "rows": rows}
    if device == "cuda":
        results["gpu"] = torch.cuda.get_device_name(0)
        results["torch"] = torch.__version__
    path = out / "gemm_tiles.json"
    seen: set[tuple[int, int]] = set()
    for hidden, ffn, tp in ROWS:
        for name, (n, k) in weight_shapes(hidden // shrink, ffn // shrink, tp).items():
            if (n, k) in seen:
                continue
            seen.add((n, k))
            # enough weight copies that the calls do not all read one copy from the L2 (60 MB)
            copies = max(1, min(8, int(240e6 // (2 * n * k))))
            weights = [torch.randn(n, k, device=device, dtype=BF16) for _ in range(copies)]
            for m in TOKENS:
                x = torch.randn(max(m // shrink, 2), k, device=device, dtype=BF16)

                def run(x: torch.Tensor = x, weights: list[torch.Tensor] = weights) -> None:
                    for w in weights:
                        functional.linear(x, w)

                run()
                seconds = timed(run, device, 2 if args.dry else 10) / copies
                flops = 2 * x.shape[0] * n * k
                rows.append({
                    "layer": name, "hidden": hidden, "tp": tp, "m": x.shape[0], "n": n, "k": k,
                    "seconds": seconds, "tflops": flops / seconds / 1e12,
                    "kernels": kernel_names(lambda x=x, w=weights[0]: functional.linear(x, w))
                    if device.startswith("cuda") else [],
                })  # fmt: skip
            del weights
            path.write_text(json.dumps(results, indent=1))
            last = rows[-len(TOKENS) :]
            print(f"{name} n={n} k={k}: " + ", ".join(
                f"m={r['m']} {r['tflops']:.0f}" for r in last))  # fmt: skip
    results["end_epoch"] = time.time()
    path.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
