"""The kernels of a served decode step on one GPU (issue 67, second call): what one layer launches
and what each costs, to pin the serving model's mechanisms with measurements of the hardware.

    python scripts/measure_kernels.py --out kernels.json [--device cuda] [--dry]

Imports PyTorch and PyYAML only (``scripts/measure_serving.py``'s decoder). Three parts:

1. **Skinny GEMMs** (the GEMVs of decoding): ``x[M, K] @ W[N, K]^T`` in BF16 for every
   projection shape of the three models of ``measure_serving.py`` (QKV, output, gate-up, down,
   LM head) at ``M`` = 1-256 tokens, each replayed from a CUDA graph of 32 launches that cycle
   through enough copies of ``W`` (at least 256 MB together) that no launch finds its weight in
   the 60 MB L2 cache, as in a real step where the other layers' weights pass in between. The
   mean time per launch, and bytes (``W`` + ``x`` + the output) over it.
2. **Short kernels**: a graph of 64 back-to-back element-wise multiplies of 2-2,048 KiB and 64
   ``F.rms_norm`` calls of one to 256 rows of 2,048-4,096 features, the time per launch.
3. **One decode step's kernels**: ``torch.profiler`` (CPU + CUDA) over one eager decode step of
   each model at batch 1 and 64, context 512 and 8,192: every kernel's name and duration, and the
   kernels per layer (the difference between the models' layer counts is not needed: kernels
   are counted per layer by their order within the step).

Writes JSON after each part; nothing is fitted here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import torch
from torch.nn import functional
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure_serving import MODELS, Decoder, shape_of

L2_FLUSH_BYTES = 256 * 2**20
LAUNCHES = 32


def projection_shapes(shape: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """(N, K) of each GEMM of a layer and of the LM head."""
    h, f, d = shape["hidden"], shape["ffn"], shape["head_dim"]
    qkv = (shape["heads"] + 2 * shape["kv_heads"]) * d
    return {
        "qkv": (qkv, h),
        "out": (h, shape["heads"] * d),
        "gate_up": (2 * f, h),
        "down": (h, f),
        "lm_head": (shape["vocab"], h),
    }


def graph_seconds(launch: Any, device: str, launches: int = LAUNCHES, repeats: int = 20) -> float:
    """Mean seconds per launch of ``launch(i)`` for ``i`` in ``range(launches)``, replayed from
    one CUDA graph (on the CPU: timed eagerly)."""
    if not device.startswith("cuda"):
        t0 = time.perf_counter()
        for i in range(launches):
            launch(i)
        return (time.perf_counter() - t0) / launches
    stream = torch.cuda.Stream()  # type: ignore[no-untyped-call]
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for i in range(launches):
            launch(i)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(launches):
            launch(i)
    for _ in range(3):
        graph.replay()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
    end = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
    start.record()
    for _ in range(repeats):
        graph.replay()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3 / (repeats * launches)


def skinny_gemms(args: argparse.Namespace) -> list[dict[str, Any]]:
    device, dtype = args.device, torch.bfloat16
    rows = []
    seen: set[tuple[int, int]] = set()
    tokens = (1, 4, 16, 64, 256) if not args.dry else (1, 4)
    for name in MODELS:
        for label, (n, k) in projection_shapes(shape_of(name, args.dry)).items():
            if (n, k) in seen:
                continue
            seen.add((n, k))
            copies = max(2, -(-L2_FLUSH_BYTES // (n * k * 2))) if not args.dry else 2
            weights = [torch.randn(n, k, device=device, dtype=dtype) for _ in range(copies)]
            for m in tokens:
                x = torch.randn(m, k, device=device, dtype=dtype)
                out = torch.empty(m, n, device=device, dtype=dtype)

                def launch(
                    i: int,
                    x: torch.Tensor = x,
                    out: torch.Tensor = out,
                    weights: list[torch.Tensor] = weights,
                ) -> None:
                    torch.matmul(x, weights[i % len(weights)].t(), out=out)

                seconds = graph_seconds(launch, device)
                moved = 2 * (n * k + m * k + m * n)
                rows.append({"model": name, "gemm": label, "m": m, "n": n, "k": k,
                             "copies": copies, "seconds": seconds, "bytes": moved,
                             "bandwidth": moved / seconds})  # fmt: skip
                print(f"  gemm {label:8} {m:4}x{n}x{k}: {seconds * 1e6:8.2f} us "
                      f"{moved / seconds / 1e12:5.2f} TB/s", flush=True)  # fmt: skip
            del weights
    return rows


def short_kernels(args: argparse.Namespace) -> list[dict[str, Any]]:
    device, dtype = args.device, torch.bfloat16
    rows = []
    for kib in (2, 8, 32, 128, 512, 2048) if not args.dry else (2,):
        elements = kib * 1024 // 2
        a = torch.randn(elements, device=device, dtype=dtype)
        b = torch.randn(elements, device=device, dtype=dtype)
        out = torch.empty_like(a)
        seconds = graph_seconds(
            lambda _i, a=a, b=b, out=out: torch.mul(a, b, out=out), device, launches=64
        )
        rows.append({"kernel": "mul", "bytes": 3 * elements * 2, "seconds": seconds})
        print(f"  mul {kib} KiB: {seconds * 1e6:.2f} us", flush=True)
    for features in (2048, 4096) if not args.dry else (64,):
        weight = torch.ones(features, device=device, dtype=dtype)
        for tokens in (1, 16, 256):
            x = torch.randn(tokens, features, device=device, dtype=dtype)

            def norm(_i: int, x: torch.Tensor = x, weight: torch.Tensor = weight) -> None:
                functional.rms_norm(x, (x.shape[-1],), weight, 1e-5)

            seconds = graph_seconds(norm, device, launches=64)
            rows.append({"kernel": "rms_norm", "tokens": tokens, "features": features,
                         "seconds": seconds})  # fmt: skip
            print(f"  rms_norm {tokens}x{features}: {seconds * 1e6:.2f} us", flush=True)
    return rows


def decode_kernels(args: argparse.Namespace) -> list[dict[str, Any]]:
    device = args.device
    cuda = device.startswith("cuda")
    rows = []
    for name in MODELS:
        shape = shape_of(name, args.dry)
        model = Decoder(shape, device, torch.bfloat16)
        points = ((1, 512), (64, 8192)) if not args.dry else ((1, 32), (4, 64))
        per_token = 2 * shape["layers"] * shape["kv_heads"] * shape["head_dim"]
        model.allocate_cache(per_token * max(b * (c + 1) for b, c in points), 8193)
        for batch, context in points:
            tokens = torch.randint(0, shape["vocab"], (batch, 1), device=device)
            cache = model.cache_view(batch, context + 1)
            for _ in range(3):
                model.forward(tokens, context, cache)
            activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
            with profile(activities=activities) as profiler:
                model.forward(tokens, context, cache)
                if cuda:
                    torch.cuda.synchronize()
            kernels = [
                {"name": e.name, "us": e.device_time}
                for e in profiler.events()
                if cuda and e.device_type == torch.autograd.DeviceType.CUDA  # type: ignore[attr-defined]
            ]
            top = Counter(e.name for e in profiler.events() if e.cpu_parent is None)
            rows.append({"model": name, "layers": shape["layers"], "batch": batch,
                         "context": context, "kernels": kernels,
                         "kernel_count": len(kernels), "top_level_ops": sum(top.values()),
                         "kernel_us": sum(k["us"] for k in kernels)})  # fmt: skip
            print(f"  {name} b={batch} c={context}: {len(kernels)} kernels, "
                  f"{sum(k['us'] for k in kernels):.0f} us of kernels", flush=True)  # fmt: skip
        del model
        if cuda:
            torch.cuda.empty_cache()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--dry", action="store_true", help="toy sizes (a CPU check of the script)")
    args = parser.parse_args()
    report: dict[str, Any] = {
        "script": "scripts/measure_kernels.py",
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(0) if args.device.startswith("cuda") else "cpu",
    }

    def write() -> None:
        tmp = args.out.with_suffix(".tmp")
        tmp.write_text(json.dumps(report, indent=1))
        os.replace(tmp, args.out)

    torch.manual_seed(0)
    with torch.inference_mode():
        for part, run in (("decode_kernels", decode_kernels), ("short_kernels", short_kernels),
                          ("skinny_gemms", skinny_gemms)):  # fmt: skip
            started = time.time()
            print(f"== {part}", flush=True)
            report[part] = run(args)
            report[f"{part}_seconds"] = time.time() - started
            write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
