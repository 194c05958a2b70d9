"""Profiled training steps to calibrate from (issue 68): for GPT-3's 125M, 350M and 1.3B shapes
(Brown et al. 2020, Table 2.1: layers, model dimension, heads of 64 or 128; context 2,048), each at
two micro-batch sizes and with and without full activation recomputation, the step time and peak
memory of real training steps and a PyTorch profiler trace of two of them.

    python scripts/profile_training.py --out training.json --traces traces/ [--device cuda]

The model is mlcost's reference GPT (:mod:`mlcost.bench.model`: pre-LayerNorm, fused QKV with
biases, GELU-tanh MLP of 4h, tied embeddings, learned positions; ``scaled_dot_product_attention``
causal), built through ``scripts/train_steps.py``'s ``setup`` (seed 0, FP32 parameters,
``torch.autocast(bfloat16)``, ``torch.optim.AdamW`` on its default foreach path,
``zero_grad(set_to_none=True)``; recomputation through ``torch.utils.checkpoint`` per block). The
vocabulary is GPT-2's 50,257 padded to 50,304 as nanoGPT does.

Per configuration: three warm-up steps; ``--steps`` steps timed one by one with CUDA events
(``torch.cuda.max_memory_allocated`` over them, reset after the warm-up); then
``torch.profiler.profile`` (CPU and CUDA activities, ``record_shapes``, ``profile_memory``,
``with_flops``; schedule: one warm-up step, two active) exported as a gzipped Chrome trace, the
file ``torch.profiler`` users send to TensorBoard. The memory snapshot
(``torch.cuda.memory._record_memory_history``) is not taken: it is a private API and the trace's
memory events already give the allocation timeline. A configuration that runs out of memory is
recorded as such and skipped. Results are written after every configuration.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import torch
from torch.profiler import ProfilerActivity, profile, schedule

sys.path.insert(0, str(Path(__file__).resolve().parent))

from train_steps import Energy, setup

#: name -> (GPTConfig fields, micro-batch sizes); GPT-3 Table 2.1 shapes, head size hidden/heads.
MODELS: dict[str, tuple[dict[str, int], tuple[int, int]]] = {
    "gpt3-125m": ({"layers": 12, "hidden": 768, "heads": 12}, (8, 16)),
    "gpt3-350m": ({"layers": 24, "hidden": 1024, "heads": 16}, (8, 16)),
    "gpt3-1.3b": ({"layers": 24, "hidden": 2048, "heads": 16}, (4, 8)),
}
SEQUENCE = 2048
VOCAB = 50304
QUICK = {"layers": 2, "hidden": 64, "heads": 4}


def configuration(name: str, quick: bool) -> dict[str, int]:
    shape = QUICK if quick else MODELS[name][0]
    sequence = 64 if quick else SEQUENCE
    return {"vocab_size": 512 if quick else VOCAB, "sequence_length": sequence, **shape}


def step_times(run: Any, steps: int, cuda: bool) -> list[float]:
    out = []
    for _ in range(steps):
        if cuda:
            start = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
            end = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
            start.record()
            run.step()
            end.record()
            end.synchronize()
            out.append(start.elapsed_time(end) / 1e3)
        else:
            t0 = time.perf_counter()
            run.step()
            out.append(time.perf_counter() - t0)
    return out


def measure(
    name: str, batch: int, recompute: bool, args: argparse.Namespace, energy: Energy
) -> dict[str, Any]:
    cuda = args.device.startswith("cuda")
    config = configuration(name, args.quick)
    if cuda:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    run = setup("bench", config, config["sequence_length"], batch, recompute, args.device)
    row: dict[str, Any] = {
        "name": name,
        "config": config,
        "micro_batch_size": batch,
        "sequence_length": config["sequence_length"],
        "recompute": "full" if recompute else "none",
        "precision": "bf16-autocast, fp32 parameters",
        "optimizer": "torch.optim.AdamW (foreach)",
        "parameters": sum(p.numel() for p in run.model.parameters()),
        "allocated_after_build_bytes": torch.cuda.memory_allocated() if cuda else None,
    }
    for _ in range(3):
        run.step()
    if cuda:
        torch.cuda.synchronize()
        row["allocated_steady_bytes"] = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
    before, started = energy.millijoules(), time.time()
    samples = step_times(run, args.steps, cuda)
    after = energy.millijoules()
    row.update(
        wall_start=started,
        wall_end=time.time(),
        samples_s=samples,
        step_median_s=sorted(samples)[len(samples) // 2],
        peak_allocated_bytes=torch.cuda.max_memory_allocated() if cuda else None,
        peak_reserved_bytes=torch.cuda.max_memory_reserved() if cuda else None,
        energy_j=(after - before) / 1e3 if after is not None and before is not None else None,
        clocks=energy.clocks(),
    )
    trace = args.traces / f"{name}_mb{batch}_{row['recompute']}.json.gz"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(
        activities=activities,
        schedule=schedule(wait=0, warmup=1, active=2, repeat=1),
        on_trace_ready=lambda done: done.export_chrome_trace(str(trace)),
        record_shapes=True,
        profile_memory=True,
        with_flops=True,
    ) as profiler:
        for _ in range(3):
            run.step()
            if cuda:
                torch.cuda.synchronize()
            profiler.step()
    row["trace"] = trace.name
    row["trace_bytes"] = trace.stat().st_size
    del run
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--traces", type=Path, required=True)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=180.0, help="start no model after")
    parser.add_argument("--quick", action="store_true", help="toy sizes (a CPU dry run)")
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    args.traces.mkdir(parents=True, exist_ok=True)
    if args.device.startswith("cuda"):
        torch.backends.cuda.matmul.allow_tf32 = False
    energy = Energy()
    start = time.time()
    report: dict[str, Any] = {
        "script": "scripts/profile_training.py",
        "argv": sys.argv[1:],
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none",
        "rows": [],
    }

    def write() -> None:
        tmp = args.out.with_suffix(".tmp")
        tmp.write_text(json.dumps(report, indent=1))
        os.replace(tmp, args.out)

    for name in args.models.split(","):
        for batch in MODELS[name][1] if not args.quick else (1, 2):
            for recompute in (False, True):
                if time.time() - start > args.seconds:
                    report["stopped"] = f"time limit of {args.seconds} s reached"
                    write()
                    return 0
                try:
                    row = measure(name, batch, recompute, args, energy)
                except torch.OutOfMemoryError as error:
                    row = {"name": name, "micro_batch_size": batch, "recompute": recompute,
                           "status": f"out of memory: {str(error).splitlines()[0]}"}  # fmt: skip
                    torch.cuda.empty_cache()
                report["rows"].append(row)
                write()
                shown = {k: v for k, v in row.items() if k not in ("samples_s", "config", "clocks")}
                print(json.dumps(shown), flush=True)
    report["seconds"] = time.time() - start
    write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
