"""Where a real training step's time and memory go (issue 19): for the models of
``scripts/train_steps.py``, the peak memory of each phase of one step (forward, backward,
optimizer step; ``torch.cuda.max_memory_allocated`` reset before each) and, for one micro-batch
size per model, a ``torch.profiler`` table of the GPU kernels and of the ATen operators that
launched them over three steps.

    python scripts/profile_steps.py --out profile_steps.json [--device cuda] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from functools import partial
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from train_steps import MODELS, QUICK, setup


def phases(
    kind: str, config: dict[str, Any], seq: int, batch: int, recompute: bool, device: str
) -> dict[str, Any]:
    run = setup(kind, config, seq, batch, recompute, device)
    cuda = device.startswith("cuda")
    out: dict[str, Any] = {}
    for repeat in range(3):
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            out["start"] = torch.cuda.memory_allocated()
        loss = run.forward()
        if cuda:
            torch.cuda.synchronize()
            out["forward_peak"] = torch.cuda.max_memory_allocated()
            out["after_forward"] = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
        loss.backward()
        del loss
        if cuda:
            torch.cuda.synchronize()
            out["backward_peak"] = torch.cuda.max_memory_allocated()
            out["after_backward"] = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
        run.optimizer.step()
        if cuda:
            torch.cuda.synchronize()
            out["optimizer_peak"] = torch.cuda.max_memory_allocated()
            out["after_optimizer"] = torch.cuda.memory_allocated()
        run.optimizer.zero_grad(set_to_none=True)
        out["repeat"] = repeat
    return out


def kernels(kind: str, config: dict[str, Any], seq: int, batch: int, device: str) -> dict[str, Any]:
    from torch.profiler import ProfilerActivity, profile

    run = setup(kind, config, seq, batch, False, device)
    cuda = device.startswith("cuda")
    for _ in range(3):
        run.step()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=activities) as prof:
        for _ in range(3):
            run.step()
        if cuda:
            torch.cuda.synchronize()
    events = prof.key_averages()
    rows = []
    for event in events:
        device_self = getattr(event, "self_device_time_total", 0) or 0
        device_total = getattr(event, "device_time_total", 0) or 0
        rows.append(
            {
                "name": event.key,
                "calls": event.count,
                "self_device_us": device_self,
                "device_total_us": device_total,
                "self_cpu_us": event.self_cpu_time_total,
                "is_kernel": bool(
                    getattr(event, "device_type", None) is not None
                    and str(event.device_type).endswith("CUDA")
                ),
            }
        )
    rows.sort(key=lambda r: -r["self_device_us"])
    return {"steps": 3, "events": rows[:400]}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    models = QUICK if args.quick else MODELS
    report: dict[str, Any] = {"torch": torch.__version__, "phases": [], "profiles": []}
    out = Path(args.out)

    def save() -> None:
        tmp = out.with_suffix(".tmp")
        tmp.write_text(json.dumps(report, indent=1))
        os.replace(tmp, out)

    for name, (kind, config, seq, batches) in models.items():
        for batch in batches:
            for recompute in (False, True):
                row = phases(kind, config, seq, batch, recompute, args.device)
                row.update(
                    name=name, micro_batch_size=batch, recompute="full" if recompute else "none"
                )
                print(json.dumps(row), flush=True)
                report["phases"].append(row)
                save()
                if args.device.startswith("cuda"):
                    torch.cuda.empty_cache()
        table = kernels(kind, config, seq, batches[-1], args.device)
        table.update(name=name, micro_batch_size=batches[-1])
        report["profiles"].append(table)
        print(name, "top kernels:", flush=True)
        for event in table["events"][:25]:
            print(
                f"  {event['self_device_us'] / 3e3:9.3f} ms/step {event['calls'] // 3:5d}x "
                f"{event['name'][:110]}",
                flush=True,
            )
        save()
        if args.device.startswith("cuda"):
            torch.cuda.empty_cache()
    # The LM head's GEMM at GPT-2's vocabulary and at nanoGPT's padded one (bf16, 3 layouts).
    if args.device.startswith("cuda"):
        from mlcost.bench.timer import time_callable

        gemms = []
        for vocab in (50257, 50304):
            for layout in ("nn", "nt", "tn"):
                m, n, k = 16384, vocab, 768
                a = torch.randn(
                    (k, m) if layout == "tn" else (m, k), device="cuda", dtype=torch.bfloat16
                )
                b = torch.randn(
                    (n, k) if layout == "nt" else (k, n), device="cuda", dtype=torch.bfloat16
                )
                left = a.t() if layout == "tn" else a
                right = b.t() if layout == "nt" else b
                timing = time_callable(
                    partial(torch.matmul, left, right), device="cuda", repeats=20
                )
                gemms.append(
                    {
                        "m": m,
                        "n": n,
                        "k": k,
                        "layout": layout,
                        "median_s": timing.median,
                        "tflops": 2 * m * n * k / timing.median / 1e12,
                    }
                )
                print(gemms[-1], flush=True)
        report["lm_head_gemms"] = gemms
        save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
