"""Measure serving on one GPU with PyTorch alone (issue 67): prefill and decode of Llama-shaped
decoders with random BF16 weights, a static KV cache, with and without CUDA graphs.

    python scripts/measure_serving.py --out serving.json [--device cuda] [--seconds 240] [--dry]

Imports PyTorch and PyYAML only, so it runs on a bare CUDA image. The models' shapes are read from
the catalog's own spec files (``specs/models/<name>.yaml``: hidden size, layers, heads, KV heads,
FFN size, vocabulary, tied embeddings), so the measured model is the model mlcost predicts.

What one forward does (a plain engine written in PyTorch, nothing fused beyond what PyTorch ships):

* token embedding; per layer ``F.rms_norm``, one fused QKV GEMM, rotary embedding (cos/sin
  table, rotate-half), the new keys and values copied into the static cache,
  ``F.scaled_dot_product_attention`` over the cached prefix (``enable_gqa=True``, causal in
  prefill), the output GEMM, the residual add, ``F.rms_norm``, one fused gate-and-up GEMM,
  ``silu(gate) * up``, the down GEMM, the residual add; final ``F.rms_norm``, the LM head on
  the last position only, and a greedy ``argmax`` (sampling);
* the cache is one preallocated BF16 buffer per model, viewed as ``[layers, 2, batch, kv_heads,
  context, head_dim]`` for each point and filled with random values once.

Measured, each point timed with CUDA events around ``n`` back-to-back calls after warm-up
(``n`` chosen so a point takes about ``--point-seconds``), the per-call mean reported:

* prefill: prompt lengths 128-8,192 at batch 1-32 (at most ``--max-prefill-tokens`` tokens per
  call), eager;
* decode: one step at batch 1-256 and context 512-32,768, eager and replayed from a CUDA graph,
  every point whose weights + KV cache fit in the free memory;
* memory: ``torch.cuda.memory_allocated`` before each call and ``max_memory_allocated`` during it
  (the transient: activations and workspaces), the weights' and the KV cache's exact bytes, and
  ``torch.cuda.mem_get_info`` after each model is built (the process's whole footprint, CUDA
  context included).

The machine (GPU, driver, clocks, PyTorch and CUDA versions) is recorded by the caller
(``scripts/measure_gpu.sh serving``), which also samples power and SM clock with nvidia-smi; this
script stamps each point with its wall-clock time so those samples can be matched. Results are
written after every point, so a run stopped by its time limit keeps what it measured. Nothing is
fitted here: ``benchmarks/validate_serving_measured.py`` compares.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

import torch
import yaml
from torch.nn import functional

ROOT = Path(__file__).resolve().parent.parent
MODELS = ("llama-3.2-1b", "llama-3.2-3b", "llama-3-8b")
PREFILL_PROMPTS = (128, 512, 2048, 8192)
PREFILL_BATCHES = (1, 4, 16, 32)
DECODE_CONTEXTS = (512, 2048, 8192, 32768)
DECODE_BATCHES = (1, 4, 16, 64, 256)
RMS_EPS = 1e-5


def shape_of(name: str, dry: bool) -> dict[str, Any]:
    """The model's shape from its catalog spec (``--dry``: the same structure, toy sizes)."""
    spec = yaml.safe_load((ROOT / "specs" / "models" / f"{name}.yaml").read_text())
    shape = {
        "hidden": int(spec["hidden_size"]),
        "layers": int(spec["num_layers"]),
        "heads": int(spec["num_attention_heads"]),
        "kv_heads": int(spec.get("num_kv_heads") or spec["num_attention_heads"]),
        "ffn": int(spec["ffn_hidden_size"]),
        "vocab": int(spec["vocab_size"]),
        "tied": bool(spec.get("tie_word_embeddings", False)),
        "rope_theta": float(spec.get("rope_theta", 10000.0)),
    }
    if dry:
        shape.update(hidden=128, layers=2, heads=4, kv_heads=2, ffn=256, vocab=512)
    shape["head_dim"] = shape["hidden"] // shape["heads"]
    return shape


class Decoder:
    """A Llama-shaped decoder with random BF16 weights and a static KV cache buffer."""

    def __init__(self, shape: dict[str, Any], device: str, dtype: torch.dtype) -> None:
        self.shape = shape
        self.device = device
        self.dtype = dtype
        h, f, d = shape["hidden"], shape["ffn"], shape["head_dim"]
        qkv = (shape["heads"] + 2 * shape["kv_heads"]) * d

        def weight(rows: int, cols: int) -> torch.Tensor:
            w = torch.empty(rows, cols, device=device, dtype=dtype)
            return w.normal_(0.0, 1.0 / math.sqrt(cols))

        self.embedding = weight(shape["vocab"], h)
        self.layers = [
            {
                "norm1": torch.ones(h, device=device, dtype=dtype),
                "qkv": weight(qkv, h),
                "out": weight(h, shape["heads"] * d),
                "norm2": torch.ones(h, device=device, dtype=dtype),
                "gate_up": weight(2 * f, h),
                "down": weight(h, f),
            }
            for _ in range(shape["layers"])
        ]
        self.norm = torch.ones(h, device=device, dtype=dtype)
        self.head = self.embedding if shape["tied"] else weight(shape["vocab"], h)
        self.cache = torch.empty(0, device=device, dtype=dtype)
        self.rope_cos = torch.empty(0, device=device, dtype=dtype)
        self.rope_sin = torch.empty(0, device=device, dtype=dtype)

    def weight_bytes(self) -> int:
        tensors = [self.embedding, self.norm, *(t for layer in self.layers for t in layer.values())]
        if not self.shape["tied"]:
            tensors.append(self.head)
        return sum(t.numel() * t.element_size() for t in tensors)

    def allocate_cache(self, elements: int, positions: int) -> None:
        """One cache buffer of ``elements`` BF16 values, random, and the rotary table."""
        self.cache = torch.empty(elements, device=self.device, dtype=self.dtype).normal_()
        d = self.shape["head_dim"]
        exponents = torch.arange(0, d, 2, device=self.device) / d
        inverse = 1.0 / (self.shape["rope_theta"] ** exponents)
        where = torch.arange(positions, device=self.device, dtype=torch.float32)
        angles = torch.outer(where, inverse)
        angles = torch.cat((angles, angles), dim=-1)
        self.rope_cos, self.rope_sin = angles.cos().to(self.dtype), angles.sin().to(self.dtype)

    def cache_view(self, batch: int, context: int) -> torch.Tensor:
        s = self.shape
        dims = (s["layers"], 2, batch, s["kv_heads"], context, s["head_dim"])
        return self.cache[: math.prod(dims)].view(dims)

    def forward(self, tokens: torch.Tensor, start: int, cache: torch.Tensor) -> torch.Tensor:
        """Tokens ``[batch, new]`` at positions ``start..start+new-1``; returns the next tokens."""
        s = self.shape
        batch, new = tokens.shape
        heads, kv_heads, d = s["heads"], s["kv_heads"], s["head_dim"]
        end = start + new
        cos, sin = self.rope_cos[start:end], self.rope_sin[start:end]
        x = functional.embedding(tokens, self.embedding)
        for index, layer in enumerate(self.layers):
            y = functional.rms_norm(x, (s["hidden"],), layer["norm1"], RMS_EPS)
            q, k, v = functional.linear(y, layer["qkv"]).split(  # type: ignore[no-untyped-call]
                (heads * d, kv_heads * d, kv_heads * d), dim=-1
            )
            q = q.view(batch, new, heads, d).transpose(1, 2)
            k = k.view(batch, new, kv_heads, d).transpose(1, 2)
            v = v.view(batch, new, kv_heads, d).transpose(1, 2)
            q, k = rotate(q, cos, sin), rotate(k, cos, sin)
            keys, values = cache[index, 0], cache[index, 1]
            keys[:, :, start:end] = k
            values[:, :, start:end] = v
            attended = functional.scaled_dot_product_attention(
                q, keys[:, :, :end], values[:, :, :end], is_causal=new > 1, enable_gqa=True
            )
            attended = attended.transpose(1, 2).reshape(batch, new, heads * d)
            x = x + functional.linear(attended, layer["out"])
            y = functional.rms_norm(x, (s["hidden"],), layer["norm2"], RMS_EPS)
            gate, up = functional.linear(y, layer["gate_up"]).chunk(2, dim=-1)
            x = x + functional.linear(functional.silu(gate) * up, layer["down"])
        last = functional.rms_norm(x[:, -1], (s["hidden"],), self.norm, RMS_EPS)
        return functional.linear(last, self.head).argmax(dim=-1)


def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotary position embedding, rotate-half form (Su et al. 2021; Llama's implementation)."""
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated * sin


class Clock:
    """Mean seconds per call of ``fn`` over ``n`` back-to-back calls, ``n`` sized to a budget."""

    def __init__(self, device: str, point_seconds: float) -> None:
        self.cuda = device.startswith("cuda")
        self.point_seconds = point_seconds

    def sync(self) -> None:
        if self.cuda:
            torch.cuda.synchronize()

    def run(self, fn: Any, n: int) -> float:
        self.sync()
        if self.cuda:
            start = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
            end = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
            start.record()
            for _ in range(n):
                fn()
            end.record()
            end.synchronize()
            return start.elapsed_time(end) / 1e3 / n
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        return (time.perf_counter() - t0) / n

    def measure(self, fn: Any, warmup: int = 2) -> dict[str, Any]:
        for _ in range(warmup):
            fn()
        first = self.run(fn, 1)
        n = max(3, min(50, int(self.point_seconds / max(first, 1e-6))))
        seconds = [self.run(fn, n) for _ in range(2)]
        return {"seconds": min(seconds), "repeats": seconds, "calls_per_repeat": n}


def memory_state(device: str) -> dict[str, int]:
    if not device.startswith("cuda"):
        return {}
    free, total = torch.cuda.mem_get_info()
    return {
        "allocated": torch.cuda.memory_allocated(),
        "reserved": torch.cuda.memory_reserved(),
        "device_free": free,
        "device_total": total,
    }


def attention_backend(device: str, dtype: torch.dtype) -> dict[str, Any]:
    """Which SDPA backends accept a GQA decode and a causal prefill here (each tried alone)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    out: dict[str, Any] = {}
    q1 = torch.randn(2, 8, 1, 64, device=device, dtype=dtype)
    qn = torch.randn(2, 8, 16, 64, device=device, dtype=dtype)
    kv = torch.randn(2, 2, 16, 64, device=device, dtype=dtype)
    for backend in (
        SDPBackend.FLASH_ATTENTION,
        SDPBackend.CUDNN_ATTENTION,
        SDPBackend.EFFICIENT_ATTENTION,
        SDPBackend.MATH,
    ):
        accepted = []
        for label, q, causal in (("decode", q1, False), ("prefill", qn, True)):
            try:
                with sdpa_kernel([backend]):
                    functional.scaled_dot_product_attention(
                        q, kv, kv, is_causal=causal, enable_gqa=True
                    )
                accepted.append(label)
            except Exception:  # each backend refuses in its own words; refused is the record
                pass
        out[backend.name] = accepted
    return out


class Results:
    def __init__(self, path: Path, meta: dict[str, Any]) -> None:
        self.path = path
        self.data: dict[str, Any] = {"meta": meta, "models": {}, "prefill": [], "decode": []}

    def add(self, kind: str, row: dict[str, Any]) -> None:
        self.data[kind].append(row)
        self.write()

    def write(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=1))
        os.replace(tmp, self.path)


def measure_model(
    name: str, args: argparse.Namespace, results: Results, deadline: float, clock: Clock
) -> None:
    device, dtype = args.device, torch.bfloat16
    cuda = device.startswith("cuda")
    if cuda:  # the last model's cache buffer and graph pools go back to the device first
        gc.collect()
        torch.cuda.empty_cache()
    shape = shape_of(name, args.dry)
    model = Decoder(shape, device, dtype)
    prompts = PREFILL_PROMPTS if not args.dry else (16, 32)
    contexts = DECODE_CONTEXTS if not args.dry else (32, 64)
    batches = DECODE_BATCHES if not args.dry else (1, 4)
    per_token = 2 * shape["layers"] * shape["kv_heads"] * shape["head_dim"]  # elements
    longest = max(max(contexts), max(prompts)) + 1
    if cuda:
        free = torch.cuda.mem_get_info()[0]
        budget = int((free - args.headroom_gib * 2**30) / 2)  # BF16 elements
    else:
        budget = per_token * max(batches) * longest
    elements = min(budget, per_token * max(batches) * longest)
    model.allocate_cache(elements, longest)
    clock.sync()
    results.data["models"][name] = {
        "shape": shape,
        "weight_bytes": model.weight_bytes(),
        "cache_buffer_elements": elements,
        "kv_bytes_per_token": per_token * 2,
        "memory_after_build": memory_state(device),
    }
    results.write()
    print(f"{name}: weights {model.weight_bytes() / 1e9:.2f} GB, cache buffer "
          f"{elements * 2 / 1e9:.1f} GB", flush=True)  # fmt: skip

    for prompt in prompts:
        for batch in PREFILL_BATCHES if not args.dry else (1, 2):
            if time.time() > deadline:
                return
            too_big = per_token * batch * (prompt + 1) > elements
            if batch * prompt > args.max_prefill_tokens or too_big:
                continue
            tokens = torch.randint(0, shape["vocab"], (batch, prompt), device=device)
            cache = model.cache_view(batch, prompt + 1)
            prefill = partial(model.forward, tokens, 0, cache)
            row = point(name, "prefill", clock, device, prefill, batch=batch, prompt=prompt,
                        warmup=1)  # fmt: skip
            row["kv_bytes"] = per_token * 2 * batch * prompt
            results.add("prefill", row)

    for context in contexts:
        for batch in batches:
            if time.time() > deadline:
                return
            if per_token * batch * (context + 1) > elements:
                skipped = "KV cache larger than the free memory"
                results.add("decode", {"model": name, "batch": batch, "context": context,
                                       "skipped": skipped})  # fmt: skip
                continue
            tokens = torch.randint(0, shape["vocab"], (batch, 1), device=device)
            cache = model.cache_view(batch, context + 1)
            step = partial(model.forward, tokens, context, cache)
            row = point(name, "decode", clock, device, step, batch=batch, context=context)
            row["kv_bytes"] = per_token * 2 * batch * (context + 1)
            if cuda:
                row["graph"] = graph_point(step, clock)
            results.add("decode", row)


def point(
    name: str, kind: str, clock: Clock, device: str, fn: Any, warmup: int = 2, **where: int
) -> dict[str, Any]:
    cuda = device.startswith("cuda")
    row: dict[str, Any] = {"model": name, **where, "time_unix": time.time()}
    try:
        if cuda:
            clock.sync()
            row["allocated_before"] = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
        row.update(clock.measure(fn, warmup=warmup))
        if cuda:
            row["peak_allocated"] = torch.cuda.max_memory_allocated()
    except torch.OutOfMemoryError as error:
        row["error"] = f"out of memory: {str(error).splitlines()[0]}"
        torch.cuda.empty_cache()
    row["time_unix_end"] = time.time()
    print(f"  {kind} {where}: {row.get('seconds', float('nan')) * 1e3:.3f} ms", flush=True)
    return row


def graph_point(step: Any, clock: Clock) -> dict[str, Any]:
    """The same decode step captured once in a CUDA graph and replayed."""
    try:
        stream = torch.cuda.Stream()  # type: ignore[no-untyped-call]
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(2):
                step()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step()
        out = clock.measure(graph.replay, warmup=2)
        del graph
        print(f"    graph: {out['seconds'] * 1e3:.3f} ms", flush=True)
        return out
    except (RuntimeError, torch.OutOfMemoryError) as error:
        return {"error": str(error).splitlines()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--seconds", type=float, default=240.0, help="stop starting points after")
    parser.add_argument("--point-seconds", type=float, default=0.15)
    parser.add_argument("--max-prefill-tokens", type=int, default=32768)
    parser.add_argument("--headroom-gib", type=float, default=12.0,
                        help="memory beside the cache buffer (activations)")  # fmt: skip
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--dry", action="store_true", help="toy sizes (a CPU check of the script)")
    args = parser.parse_args()
    start = time.time()
    torch.manual_seed(0)
    cuda = args.device.startswith("cuda")
    meta: dict[str, Any] = {
        "script": "scripts/measure_serving.py",
        "argv": sys.argv[1:],
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(0) if cuda else args.device,
        "date_unix": start,
        "dtype": "bfloat16",
        "sdpa_backends_accepting": attention_backend(args.device, torch.bfloat16),
    }
    if cuda:
        props = torch.cuda.get_device_properties(0)
        meta.update(multiprocessors=props.multi_processor_count, memory_total=props.total_memory)
    results = Results(args.out, meta)
    clock = Clock(args.device, args.point_seconds)
    deadline = start + args.seconds
    models = args.models.split(",")
    for index, name in enumerate(models):
        # each model gets its share of what is left, so the largest is measured too
        share = (deadline - time.time()) / (len(models) - index)
        with torch.inference_mode():
            measure_model(name, args, results, time.time() + share, clock)
    results.data["meta"]["seconds"] = time.time() - start
    results.write()
    print(f"done in {time.time() - start:.0f} s: {len(results.data['prefill'])} prefill and "
          f"{len(results.data['decode'])} decode points", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
