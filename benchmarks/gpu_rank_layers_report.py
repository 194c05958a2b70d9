"""What one H100 measured against what mlcost predicts, per training row of the validation set
(issue 14): reads the raw measurements of ``benchmarks/gpu_rank_layers.py`` (by default the
ones in ``benchmarks/data/h100-2026-11-25``) and prints, per row, one rank's transformer layer
(forward + backward, micro-batch of the row) as mlcost predicts it under the row's
implementation profile next to the kernels' device time measured inside that layer, by kind
(GEMMs, attention, the rest), with the SM clock while it ran; then the whole 1.7B model's
forward + backward on one GPU, measured and predicted.

Run: ``.venv/bin/python benchmarks/gpu_rank_layers_report.py [DATA_FOLDER]``.

The measured layer is PyTorch's (eager, and compiled by torch.compile for four rows): its
GEMMs are cuBLAS's, its attention cuDNN's (as Transformer Engine's on Hopper), its
element-wise kernels PyTorch's or Triton's, not Transformer Engine's; its layer norms, dropouts
and residual adds run on all the sequence's tokens (no sequence parallelism) and every backward
adds the parameters' gradients into ``.grad`` (one more kernel per parameter): "the rest" is an
upper bound of what Megatron-Core runs.
"""

from __future__ import annotations

import csv
import datetime
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from mlcost.layout import Layout
from mlcost.published import megatron_gpt, mpt
from mlcost.timing import step_time
from mlcost.workload import TrainingConfig

ROOT = Path(__file__).resolve().parents[1]
LAYER_ROWS = ("q projection", "k projection", "v projection", "output projection",
              "mlp up projection", "mlp down projection")  # fmt: skip
OUTSIDE = ("token embedding", "position embedding add", "embedding dropout", "final norm",
           "lm head (logits)", "cross-entropy loss", "optimizer update (adamw)")  # fmt: skip


def clocks(path: Path) -> list[tuple[float, float, float]]:
    """(epoch seconds, SM MHz, W) per nvidia-smi sample."""
    out = []
    with path.open() as handle:
        for row in csv.reader(handle):
            try:
                when = datetime.datetime.strptime(row[0].strip(), "%Y/%m/%d %H:%M:%S.%f")
            except ValueError:
                continue
            out.append((when.timestamp(), float(row[1]), float(row[3])))
    return out


def median_clock(samples: list[tuple[float, float, float]], start: float, end: float) -> float:
    inside = [s[1] for s in samples if start <= s[0] <= end]
    return statistics.median(inside) if inside else float("nan")


def predicted_layer(row: dict[str, Any]) -> dict[str, float]:
    """mlcost's layer on one rank, ms per micro-batch: GEMMs, attention, the rest."""
    h, layers, tp, s, b = row["hidden"], row["layers"], row["tp"], row["seq"], row["batch"]
    if row["family"] == "megatron":
        model, software = megatron_gpt(h, layers, row["heads"], row["vocab"], s), "megatron-core"
    else:
        model, software = mpt(row["id"].split(".")[-2], s), "fsdp"
    layout = Layout(tp=tp, micro_batch_size=b, global_batch_size=b, sequence_parallel=tp > 1)
    step = step_time(
        model, TrainingConfig(sequence_length=s), "h100-sxm5-80gb", layout,
        implementation=software, shard=(tp, 1),
    )  # fmt: skip
    frame = step.to_frame()
    frame["ms"] = frame["time_s"].astype(float) / tp / layers * 1e3
    inside = frame[~frame["name"].isin(OUTSIDE)]
    gemm = float(inside[inside["name"].isin(LAYER_ROWS)]["ms"].sum())
    attention = float(inside[inside["kind"] == "attention"]["ms"].sum())
    total = float(inside["ms"].sum())
    return {"gemm": gemm, "attention": attention, "rest": total - gemm - attention,
            "total": total}  # fmt: skip


def print_sequence_parallel(folder: Path, rows: dict[str, dict[str, Any]]) -> None:
    """The Megatron rows' rank layers with sequence parallelism, compiled, the gradients
    returned: per kind and in all, against the prediction for that rank."""
    run = json.loads((folder / "sequence_parallel.json").read_text())["sequence_parallel"]
    samples = clocks(folder / "sequence_parallel_clocks.csv")
    print(
        "\nwith sequence parallelism, compiled (the rest includes the memory traffic of the copy"
        " and the sum standing for TP's all-gather and reduce-scatter at TP > 1)"
    )
    print(
        f"{'row':22s} {'predicted: GEMM':>15s} {'attn':>6s} {'rest':>6s} {'total':>6s} | "
        f"{'measured: GEMM':>14s} {'attn':>6s} {'rest':>6s} {'kernels':>7s} {'step':>6s} "
        f"{'MHz':>5s} | {'kernels x':>9s} {'step x':>6s}"
    )
    for entry in run:
        p = predicted_layer(rows[entry["id"]])
        kinds = {k: v * 1e3 for k, v in entry["profile"]["seconds"].items()}
        kernels = sum(kinds.values())
        step = entry["step"]["median_s"] * 1e3
        mhz = median_clock(samples, entry["start"], entry["end"])
        print(
            f"{entry['id'].removeprefix('run.'):22s} {p['gemm']:15.3f} {p['attention']:6.3f} "
            f"{p['rest']:6.3f} {p['total']:6.3f} | {kinds['gemm']:14.3f} "
            f"{kinds['attention']:6.3f} {kinds['other']:6.3f} {kernels:7.3f} {step:6.3f} "
            f"{mhz:5.0f} | {kernels / p['total']:9.2f} {step / p['total']:6.2f}"
        )


def print_power_duty(folder: Path) -> None:
    """Square BF16 GEMMs held to a duty cycle by memory-bound copies between them: their rate
    (CUDA events around each GEMM, the window's second half) against the prediction, with the
    clock and the board power."""
    import mlcost
    from mlcost.roofline import Ceilings

    run = json.loads((folder / "power_duty.json").read_text())["power_duty"]
    samples = clocks(folder / "power_duty_clocks.csv")
    c = Ceilings.from_accelerator(mlcost.accelerator("h100-sxm5-80gb"), "bf16")
    peak = c.peak_flops / 1e12
    print("\nsquare BF16 GEMMs at a duty cycle (memory-bound copies between them)")
    head = ("n", 6), ("duty", 5), ("TFLOP/s", 8), ("predicted", 9), ("time x", 6), ("MHz", 5)
    print(" ".join(f"{name:>{width}s}" for name, width in head), f"{'W':>4s}")
    for e in run:
        n, half = e["n"], (e["start"] + e["end"]) / 2
        share = c.gemm_wave_efficiency(n, n) * c.gemm_depth_efficiency(n)
        predicted = c.compute_efficiency * share * peak
        watts = statistics.median(s[2] for s in samples if half <= s[0] <= e["end"])
        print(
            f"{n:6d} {e['duty']:5.2f} {e['tflops']:8.0f} {predicted:9.0f} "
            f"{predicted / e['tflops']:6.2f} {median_clock(samples, half, e['end']):5.0f} "
            f"{watts:4.0f}"
        )


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "benchmarks/data/h100-2026-11-25"
    run = json.loads((folder / "rank_layers.json").read_text())
    compiled = {}
    if (folder / "compiled.json").exists():
        compiled = {
            c["id"]: c for c in json.loads((folder / "compiled.json").read_text())["compiled"]
        }
    samples = clocks(folder / "rank_layers_clocks.csv")
    machine = run["machine"]
    print(
        f"{machine.get('name')}, torch {machine['torch']}, cuDNN {machine['cudnn']}; "
        "ms per layer per rank, forward + backward, one micro-batch"
    )
    head = (f"{'row':34s} {'predicted: GEMM':>15s} {'attn':>6s} {'rest':>6s} {'total':>6s} | "
            f"{'measured: GEMM':>14s} {'attn':>6s} {'rest':>6s} {'step':>6s} {'MHz':>5s} | "
            f"{'GEMM x':>6s} {'attn x':>6s}")  # fmt: skip
    print(head)
    for entry in run["rows"]:
        row = entry["row"]
        p = predicted_layer(row)
        for label, measured in (("eager", entry["layer"]), ("compiled", compiled.get(row["id"]))):
            if not measured or "profile" not in measured:
                continue
            kinds = {k: v * 1e3 for k, v in measured["profile"]["seconds"].items()}
            when = (measured.get("start", entry["start"]), measured.get("end", entry["end"]))
            mhz = median_clock(
                samples if label == "eager" else clocks(folder / "compiled_clocks.csv"), *when
            )
            name = f"{row['id'].removeprefix('run.')} ({label})"
            print(
                f"{name:34s} {p['gemm']:15.3f} {p['attention']:6.3f} {p['rest']:6.3f} "
                f"{p['total']:6.3f} | {kinds['gemm']:14.3f} {kinds['attention']:6.3f} "
                f"{kinds['other']:6.3f} {measured['step']['median_s'] * 1e3:6.3f} {mhz:5.0f} | "
                f"{kinds['gemm'] / p['gemm']:6.2f} {kinds['attention'] / p['attention']:6.2f}"
            )
    if (folder / "sequence_parallel.json").exists():
        print_sequence_parallel(folder, {e["row"]["id"]: e["row"] for e in run["rows"]})
    if (folder / "power_duty.json").exists():
        print_power_duty(folder)
    gpt = run["gpt_1p7b"]
    model = megatron_gpt(2048, 24, 16, 131072, 4096)
    layout = Layout(micro_batch_size=1, global_batch_size=1)
    step = step_time(model, TrainingConfig(sequence_length=4096), "h100-sxm5-80gb", layout,
                     implementation="megatron-core")  # fmt: skip
    frame = step.to_frame()
    compute = float(frame[frame["kind"] != "optimizer"]["time_s"].astype(float).sum()) * 1e3
    kinds = {k: v * 1e3 for k, v in gpt["profile"]["seconds"].items()}
    print(
        f"\nMegatron's 1.7B GPT on one GPU, forward + backward of one micro-batch (s 4096): "
        f"measured {gpt['fwd_bwd']['median_s'] * 1e3:.1f} ms (GEMMs {kinds['gemm']:.1f}, "
        f"attention {kinds['attention']:.1f}, the rest {kinds['other']:.1f}; with a fused AdamW "
        f"step {gpt['step']['median_s'] * 1e3:.1f} ms); predicted (megatron-core, no "
        f"optimizer) {compute:.1f} ms"
    )
    if "sustained" in run:
        steps = run["sustained"]["gpt_fwd_bwd"]
        gemms = run["sustained"]["gemm_8192_tflops"]
        per_step = statistics.median(s[1] for s in steps) * 1e3
        print(
            f"sustained: the 1.7B forward + backward {per_step:.1f} ms for "
            f"{steps[-1][0] - steps[0][0]:.0f} s at "
            f"{median_clock(samples, steps[0][0], steps[-1][0]):.0f} MHz; 8192^3 BF16 GEMMs back "
            f"to back {statistics.median(g[1] for g in gemms):.0f} TFLOP/s at "
            f"{median_clock(samples, gemms[0][0], gemms[-1][0]):.0f} MHz (burst, as the MAMF "
            f"finder measures: {run['mamf_burst'][1]['tflops']:.0f}; its best shape "
            f"{run['mamf_burst'][0]['tflops']:.0f})"
        )


if __name__ == "__main__":
    main()
