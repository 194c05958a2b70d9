"""mlcost's serving model against published serving measurements: prints every row (what was
measured, where, the published figure, mlcost's prediction and the error) and the median
|error|. Not a test: the published figures come from other software on other machines.

Run: ``.venv/bin/python benchmarks/validate_serving.py``

Rows (each source read for its setup: GPU, precision, tensor parallelism, input and output
lengths, concurrency):

* NVIDIA NIM LLM benchmarking, "Performance" page (docs.nvidia.com/nim/benchmarking/llm/1.0.0/
  performance), Llama-3.3-70B-Instruct, NIM 1.8.0 (TensorRT-LLM), 2 x H100 80G, FP8, TP2:
  TTFT and ITL at concurrency 1, 5, 25 and 50 for 5000 input / 500 output tokens, and at
  concurrency 1 for 500 / 2000. Llama 3.3 70B has Llama 3 70B's architecture (the catalog's
  ``llama-3-70b``). Modelled as FP8 weights (W8A8), FP8 KV cache, batch = concurrency.
* vLLM performance dashboard (buildkite.com/vllm/performance-benchmark/builds/9515), latency
  tests: one batch of 8 prompts of 32 tokens, 128 output tokens, BF16, mean end-to-end
  latency: Llama-3.1-8B TP1 on H200 833.4 ms; Llama-3-70B TP4 on H200 2077.5 ms. Modelled as the
  prefill of the batch plus 127 decode steps at the mean context.
* J. Musgrave, "vLLM throughput-latency sweep on NVIDIA A100" (johnmusgrave.com/p/vllm-
  throughput-latency-sweep-on, vLLM 0.23.0): Llama-3.1-8B-Instruct BF16 on one A100 40GB, 1024
  input / 128 output tokens, one request at a time: about 75 output tokens/s.

What the model leaves out, and so where its errors come from: a closed-loop benchmark's arrivals
are not the random (Poisson) arrivals of the M/D/1 prefill queue mlcost assumes for TTFT; engines
add per-step work the roofline does not see (sampling, scheduling, detokenization), which shows
most at one request; attention kernels for long prefills are faster than the roofline of their
unfused parts.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import numpy as np

import mlcost
from mlcost.serving.latency import forward_seconds, serving_ceilings, tensor_parallel_seconds
from mlcost.serving.workload import decode_operators, prefill_operators
from mlcost.specs import default_catalog
from mlcost.systems import system

NIM = "NVIDIA NIM 1.8.0 benchmarks (docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance)"
VLLM = "vLLM performance dashboard, buildkite vllm/performance-benchmark build 9515"
MUSGRAVE = "johnmusgrave.com, vLLM throughput-latency sweep on NVIDIA A100 (vLLM 0.23.0)"


@dataclass(frozen=True)
class Row:
    what: str
    source: str
    published: float
    predicted: float
    unit: str

    @property
    def error(self) -> float:
        return self.predicted / self.published - 1


def nim_rows() -> list[Row]:
    """Llama-3.3-70B FP8 TP2 on 2 x H100: (input, output, concurrency, TTFT ms, ITL ms)."""
    published = [
        (5000, 500, 1, 406.77, 18.58),
        (5000, 500, 5, 546.7, 21.83),
        (5000, 500, 25, 688.69, 38.75),
        (5000, 500, 50, 834.51, 59.73),
        (500, 2000, 1, 47.77, 18.91),
    ]
    rows = []
    for prompt, output, concurrency, ttft, itl in published:
        plan = mlcost.ServePlan(
            "llama-3-70b", system="dgx-h100", tp=2, weights="fp8", kv_format="fp8",
            prompt=prompt, output=output, batch=concurrency,
        )  # fmt: skip
        r = plan.row()
        setup = f"Llama-3.3-70B fp8 TP2 2xH100, {prompt}/{output}, concurrency {concurrency}"
        rows.append(Row(f"{setup}: TTFT", NIM, ttft, r["ttft_ms"], "ms"))
        rows.append(Row(f"{setup}: ITL", NIM, itl, r["tpot_ms"], "ms"))
    return rows


def static_batch_latency(model: str, gpu: str, node: str, tp: int) -> float:
    """Milliseconds for one batch of 8 prompts of 32 tokens to generate 128 tokens each: the
    prefill (first token) and 127 decode steps at the mean context, with the TP all-reduces."""
    catalog = default_catalog()
    spec = catalog.transformer(model)
    accelerator = catalog.accelerator(gpu)
    resolved = system(node)
    engine = mlcost.ServePlan(model, gpu=gpu).resolved_engine
    ceilings = serving_ceilings(accelerator)
    batch, prompt, output = 8, 32, 128
    h, layers = spec.hidden_size, spec.num_layers
    options = {"tensor_parallel": tp}
    prefill = forward_seconds(prefill_operators(spec, batch, prompt, **options), ceilings,
                              engine, layers=layers, graph=False)  # fmt: skip
    prefill += tensor_parallel_seconds(resolved, tp, h, layers, batch * prompt)
    context = prompt + np.arange(1, output)  # the contexts of the 127 decode steps
    steps = forward_seconds(decode_operators(spec, batch, context, **options), ceilings, engine,
                            layers=layers, graph=engine.decode_graphs)  # fmt: skip
    steps = np.asarray(steps) + tensor_parallel_seconds(resolved, tp, h, layers, batch)
    return float((prefill + np.sum(steps)) * 1e3)


def vllm_rows() -> list[Row]:
    return [
        Row(
            "Llama-3.1-8B bf16 TP1 H200, batch 8 x 32 in / 128 out: end-to-end latency",
            VLLM, 833.421,
            static_batch_latency("llama-3-8b", "h200-sxm-141gb", "dgx-h200", 1), "ms",
        ),
        Row(
            "Llama-3-70B bf16 TP4 H200, batch 8 x 32 in / 128 out: end-to-end latency",
            VLLM, 2077.53,
            static_batch_latency("llama-3-70b", "h200-sxm-141gb", "dgx-h200", 4), "ms",
        ),
    ]  # fmt: skip


def musgrave_rows() -> list[Row]:
    plan = mlcost.ServePlan("llama-3-8b", gpu="a100-sxm4-40gb", prompt=1024, output=128, batch=1)
    return [
        Row(
            "Llama-3.1-8B bf16 A100 40GB, 1024/128, one request: output tokens/s",
            MUSGRAVE, 75.0, plan.row()["output_tokens_per_s"], "token/s",
        )
    ]  # fmt: skip


def main() -> None:
    rows = [*nim_rows(), *vllm_rows(), *musgrave_rows()]
    width = max(len(r.what) for r in rows)
    print(f"{'measurement':<{width}}  {'published':>10}  {'mlcost':>10}  {'error':>7}  unit")
    for r in rows:
        print(
            f"{r.what:<{width}}  {r.published:>10.2f}  {r.predicted:>10.2f}  "
            f"{r.error:>+7.1%}  {r.unit}"
        )
    errors = [abs(r.error) for r in rows]
    print(f"\n{len(rows)} rows; median |error| {statistics.median(errors):.1%}, "
          f"largest {max(errors):.1%}")  # fmt: skip
    print("sources:")
    for source in dict.fromkeys(r.source for r in rows):
        print(f"  {source}")


if __name__ == "__main__":
    main()
