"""mlcost's serving model against our own serving measurements on one H200 (issue 67): every
prefill, decode-step and memory point of ``benchmarks/data/h200-2026-11-27/serving.json``
(``scripts/measure_serving.py``: Llama 3.2 1B, Llama 3.2 3B and Llama 3 8B shapes with random
BF16 weights, plain PyTorch, a static KV cache), predicted as a user would and printed row by
row with the median error per class. Not a test: it reads committed measurements.

Run: ``.venv/bin/python benchmarks/validate_serving_measured.py [DATA_FOLDER]``

How each point is predicted, on the catalog's ``h200-sxm-141gb`` (datasheet peaks, published
efficiencies; no calibration):

* prefill: :func:`mlcost.serving.latency.forward_seconds` of the prefill table
  (:func:`~mlcost.serving.workload.prefill_operators`) under the ``pytorch-eager`` engine (the
  script launches prefills from the host), the last position's logits only, as the script does;
* decode, eager: the decode table under ``pytorch-eager`` (host-dispatched);
* decode, CUDA graph: the same under ``pytorch-cuda-graphs`` (replayed);
* memory: the weights' bytes (:func:`mlcost.serving.weights.weight_bytes`) and the static KV
  cache's (:func:`mlcost.serving.kv_cache.kv_cache_bytes`, no paging: the script's cache is one
  buffer) against what the point held: the weights, its KV cache, and the transient the forward
  allocated on top (``max_memory_allocated`` minus ``memory_allocated`` before the call).

Beside each row, the SM clock nvidia-smi sampled during the point (``power_serving.csv``): the
prefills run at the 700 W power limit, where the clock falls from 1,980 to about 1,550 MHz.
"""

from __future__ import annotations

import csv
import datetime
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mlcost.serving.kv_cache import kv_cache_bytes
from mlcost.serving.latency import forward_seconds, forward_time, serving_ceilings
from mlcost.serving.weights import weight_bytes
from mlcost.serving.workload import decode_operators, prefill_operators
from mlcost.specs import Catalog, TransformerSpec, default_catalog
from mlcost.units import in_unit

DATA = Path(__file__).resolve().parent / "data" / "h200-2026-11-27"
GPU = "h200-sxm-141gb"
#: The H200 SXM's maximum SM clock (nvidia-smi ``clocks.max.sm`` in ``machine_serving.txt``).
BOOST_MHZ = 1980


@dataclass(frozen=True)
class Row:
    kind: str
    model: str
    batch: int
    tokens: int
    measured: float
    predicted: float
    clock: float | None

    @property
    def error(self) -> float:
        return self.predicted / self.measured - 1


def clock_samples(folder: Path) -> list[tuple[float, float]]:
    """(unix time, SM MHz) from the nvidia-smi samples of the serving run."""
    out = []
    with (folder / "power_serving.csv").open() as handle:
        for record in list(csv.reader(handle))[1:]:
            if len(record) < 3 or "MHz" not in record[2]:
                continue
            stamp = datetime.datetime.strptime(record[0].strip(), "%Y/%m/%d %H:%M:%S.%f")
            when = stamp.replace(tzinfo=datetime.UTC).timestamp()
            out.append((when, float(record[2].split()[0])))
    return out


def mean_clock(samples: list[tuple[float, float]], point: dict[str, Any]) -> float | None:
    inside = [mhz for when, mhz in samples if point["time_unix"] <= when <= point["time_unix_end"]]
    return statistics.mean(inside) if inside else None


def predict_time(
    catalog: Catalog, model: TransformerSpec, kind: str, batch: int, tokens: int
) -> float:
    ceilings = serving_ceilings(catalog.accelerator(GPU))
    layers = model.num_layers
    if kind == "prefill":
        table = prefill_operators(model, batch, tokens)
        engine, graph = catalog.engine("pytorch-eager"), False
    else:
        table = decode_operators(model, batch, tokens)
        graph = kind == "decode (graph)"
        engine = catalog.engine("pytorch-cuda-graphs" if graph else "pytorch-eager")
    return float(forward_seconds(table, ceilings, engine, layers=layers, graph=graph))


def predict_memory(model: TransformerSpec, batch: int, cached: int) -> float:
    held = weight_bytes(decode_operators(model, 1, 1), model.parameter_count, "bf16")
    kv = kv_cache_bytes(model, cached, batch, "bf16")
    return float(in_unit(held, "byte")) + float(in_unit(kv, "byte"))


def rows(folder: Path) -> tuple[list[Row], list[Row]]:
    data = json.loads((folder / "serving.json").read_text())
    samples = clock_samples(folder)
    catalog = default_catalog()
    times: list[Row] = []
    memory: list[Row] = []
    for kind, key in (("prefill", "prompt"), ("decode", "context")):
        for point in data[kind]:
            if "seconds" not in point:
                continue
            model = catalog.transformer(point["model"])
            batch, tokens = int(point["batch"]), int(point[key])
            clock = mean_clock(samples, point)
            measured = {kind if kind == "prefill" else "decode (eager)": point["seconds"]}
            if kind == "decode" and "seconds" in point.get("graph", {}):
                measured["decode (graph)"] = point["graph"]["seconds"]
            for label, seconds in measured.items():
                predicted = predict_time(catalog, model, label, batch, tokens)
                times.append(Row(label, model.name, batch, tokens, seconds, predicted, clock))
            weights = data["models"][model.name]["weight_bytes"]
            held = weights + point["kv_bytes"] + point["peak_allocated"] - point["allocated_before"]
            cached = tokens if kind == "prefill" else tokens + 1
            predicted = predict_memory(model, batch, cached)
            memory.append(Row(f"memory ({kind})", model.name, batch, tokens, held, predicted, None))
    return times, memory


def summary(rows: list[Row], kind: str) -> str:
    errors = [r.error for r in rows if r.kind == kind]
    low = sum(e < 0 for e in errors)
    typical = statistics.median(abs(e) for e in errors)
    return (
        f"{kind:16} n={len(errors):3}  median |error| {typical:6.1%}  median "
        f"{statistics.median(errors):+6.1%}  range {min(errors):+.1%} to {max(errors):+.1%}  "
        f"too fast/small {low} of {len(errors)}"
    )


def diagnostics(times: list[Row], folder: Path) -> list[str]:
    """What the misses come from, read off the measurements (nothing here feeds a prediction):
    the prefills' error had their compute run at the SM clock sampled during them instead of the
    1,980 MHz boost clock, and the bandwidth the longest-context decode steps reached."""
    prefill = [r for r in times if r.kind == "prefill" and r.clock]
    at_clock = [r.predicted * max(BOOST_MHZ / (r.clock or BOOST_MHZ), 1.0) / r.measured - 1
                for r in prefill]  # fmt: skip
    data = json.loads((folder / "serving.json").read_text())
    weights = {name: m["weight_bytes"] for name, m in data["models"].items()}
    streamed = [
        (weights[p["model"]] + p["kv_bytes"]) / p["graph"]["seconds"]
        for p in data["decode"]
        if "seconds" in p.get("graph", {}) and p["kv_bytes"] > 10 * weights[p["model"]]
    ]
    gpu = default_catalog().accelerator(GPU)
    efficiency = serving_ceilings(gpu)[""].memory_efficiency
    assumed = float(in_unit(gpu.memory_bandwidth, "byte/s")) * efficiency
    clocks = [r.clock or 0.0 for r in prefill]
    return [
        f"prefill with compute at the sampled SM clock (x {BOOST_MHZ} MHz / clock): median "
        f"|error| {statistics.median(abs(e) for e in at_clock):.1%}, median "
        f"{statistics.median(at_clock):+.1%} (n={len(at_clock)}; the 700 W limit holds the "
        f"prefills at {min(clocks):.0f}-{statistics.median(clocks):.0f} MHz)",
        f"decode steps whose KV cache is over ten times the weights: {len(streamed)} reached a "
        f"median {statistics.median(streamed) / 1e12:.2f} TB/s (weights + KV over the step) "
        f"where the ceilings assume {assumed / 1e12:.2f} TB/s (STREAM triad); the small-batch "
        "steps are too fast instead: their GEMVs and short kernels stay below it",
    ]


#: Kernel name fragments of each class in the profiled decode steps (cuBLAS/cuBLASLt GEMMs are
#: ``nvjet``/``gemv``/``splitKreduce`` kernels; PyTorch 2.11 runs SDPA through cuDNN).
KERNEL_CLASSES = (
    ("gemm", ("nvjet", "gemv", "gemm", "splitkreduce", "cutlass")),
    ("attention", ("sdpa", "flash", "fmha", "lean_reduction")),
    ("norm", ("norm",)),
)


def kernel_class(name: str) -> str:
    lowered = name.lower()
    for label, fragments in KERNEL_CLASSES:
        if any(fragment in lowered for fragment in fragments):
            return label
    return "other"


def kernel_breakdown(folder: Path) -> list[str]:
    """The profiled decode steps (``kernels.json``): each class's kernels, their count and
    time, against the prediction's roofline time of the same class (no per-kernel overhead)."""
    path = folder / "kernels.json"
    if not path.exists():
        return []
    catalog = default_catalog()
    ceilings = serving_ceilings(catalog.accelerator(GPU))
    lines = ["profiled decode steps (eager, one step): kernels and their time per class, "
             "measured / predicted roofline"]  # fmt: skip
    for step in json.loads(path.read_text())["decode_kernels"]:
        model = catalog.transformer(step["model"])
        table = decode_operators(model, step["batch"], step["context"])
        predicted: dict[str, float] = {}
        for op, row in zip(table.operators, forward_time(table, ceilings).rows, strict=True):
            label = {"matmul": "gemm", "attention": "attention", "softmax": "attention",
                     "norm": "norm"}.get(str(op.kind), "other")  # fmt: skip
            predicted[label] = predicted.get(label, 0.0) + float(np.max(row.total))
        count: dict[str, int] = {}
        spent: dict[str, float] = {}
        for kernel in step["kernels"]:
            label = kernel_class(kernel["name"])
            count[label] = count.get(label, 0) + 1
            spent[label] = spent.get(label, 0.0) + kernel["us"] * 1e-6
        parts = ", ".join(
            f"{label} {count.get(label, 0)} kernels {spent.get(label, 0.0) * 1e3:.2f}/"
            f"{predicted.get(label, 0.0) * 1e3:.2f} ms"
            for label in ("gemm", "attention", "norm", "other")
        )
        lines.append(f"  {model.name} b={step['batch']} c={step['context']}: {parts}")
    return lines


def main() -> int:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else DATA
    times, memory = rows(folder)
    print(f"{'class':16} {'model':13} {'batch':>5} {'tokens':>6} {'measured':>10} "
          f"{'predicted':>10} {'error':>7} {'SM MHz':>7}")  # fmt: skip
    for r in times:
        clock = f"{r.clock:7.0f}" if r.clock is not None else "      -"
        print(f"{r.kind:16} {r.model:13} {r.batch:5d} {r.tokens:6d} {r.measured * 1e3:8.2f}ms "
              f"{r.predicted * 1e3:8.2f}ms {r.error:+7.1%} {clock}")  # fmt: skip
    for r in memory:
        print(f"{r.kind:16} {r.model:13} {r.batch:5d} {r.tokens:6d} {r.measured / 1e9:8.2f}GB "
              f"{r.predicted / 1e9:8.2f}GB {r.error:+7.1%}")  # fmt: skip
    print()
    for kind in ("prefill", "decode (eager)", "decode (graph)"):
        print(summary(times, kind))
    for kind in ("memory (prefill)", "memory (decode)"):
        print(summary(memory, kind))
    print()
    for line in diagnostics(times, folder) + kernel_breakdown(folder):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
