"""Measure on one CUDA GPU what each H100 training row of the validation set runs on one rank
(issue 14): the GEMMs of a transformer layer at the rank's shard shapes (forward, input-gradient
and weight-gradient passes), its attention kernel, the whole layer forward + backward with a
per-kernel profile, one full single-GPU training step of the 1.7B model, and the GPU's clock and
power while it runs a sustained training load against short bursts.

It imports only PyTorch, NumPy, PyYAML (what a CUDA image has) and mlcost's timer, reads the
rows from ``mlcost/data/published.yaml`` and writes ``$OUT/rank_layers.json`` (every number,
with the machine, the clock samples and the time each section ran); nothing is fitted here. The
analysis that compares these measurements with mlcost's per-operator predictions is
``benchmarks/gpu_rank_layers_report.py``.

Run on a machine with an NVIDIA GPU: ``OUT=/some/folder python3 benchmarks/gpu_rank_layers.py``.
``--dry`` runs every section on the CPU at toy sizes (a check of the script, not a measurement).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, cast

import torch
import yaml
from torch.nn import functional as nnf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # mlcost's timer (it imports no more than NumPy)
from mlcost.bench.timer import Timing, time_callable  # noqa: E402

BF16 = torch.bfloat16
RESULTS: dict[str, Any] = {"sections": {}, "errors": {}}


# ----- the rows -----------------------------------------------------------------------------------
def rank_shapes(dry: bool) -> list[dict[str, Any]]:
    """One entry per H100 training row: the shapes one rank runs per micro-batch."""
    cases = yaml.safe_load((ROOT / "mlcost/data/published.yaml").read_text())["cases"]
    mpt = {"125m": (768, 12, 12), "3b": (2560, 20, 32), "7b": (4096, 32, 32),
           "13b": (5120, 40, 40), "70b": (8192, 64, 80)}  # fmt: skip
    out = []
    for case in cases:
        c, cid = case["conditions"], case["id"]
        if cid.startswith("run.megatron_h100.") and "strong" not in cid:
            out.append({
                "id": cid, "family": "megatron", "hidden": c["hidden"], "heads": c["heads"],
                "ffn": 4 * c["hidden"], "tp": c["TP"], "seq": c["seq"], "batch": 1,
                "layers": c["layers"], "vocab": c["vocab"], "dropout": 0.1,
            })  # fmt: skip
        elif cid.startswith("run.llmfoundry.h100_80gb_bf16."):
            d, heads, layers = mpt[cid.split(".")[-2]]
            out.append({
                "id": cid, "family": "llm-foundry", "hidden": d, "heads": heads, "ffn": 4 * d,
                "tp": 1, "seq": c["seq"], "batch": c["micro_batch"], "layers": layers,
                "vocab": 50368, "dropout": 0.0,
                "recompute": str(c["activation_checkpointing"]) == "True",
            })  # fmt: skip
    if dry:
        for row in out:
            row.update(hidden=64, heads=2, ffn=256, seq=64, batch=1, tp=1, vocab=512)
        out = out[:2]
    return out


# ----- timing -------------------------------------------------------------------------------------
def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def timed(
    function: Callable[[], Any],
    device: str,
    *,
    budget: float = 0.6,
    warmup: int = 3,
    most: int = 200,
) -> dict[str, float]:
    """Median, p10 and p90 seconds per call (:func:`mlcost.bench.timer.time_callable`: each
    call bracketed by CUDA events): ``warmup`` calls, 5 timed, then as many more as fill
    ``budget`` seconds (at most ``most`` in all)."""
    probe = time_callable(function, device=device, warmup=warmup, repeats=5)
    more = min(most, int(budget / max(probe.median, 1e-9))) - 5
    samples = probe.samples
    if more > 0:
        samples += time_callable(function, device=device, warmup=0, repeats=more).samples
    timing = Timing(samples)
    return {"median_s": timing.median, "p10_s": timing.p10, "p90_s": timing.p90, "n": len(samples)}


def section(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Run a section, record its start and end (to join with the clock samples) and any
    error, and write the results file after it."""

    def wrap(function: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.time()
            print(f"[{time.strftime('%H:%M:%S')}] {name}", flush=True)
            try:
                value = function(*args, **kwargs)
                RESULTS[name] = value
            except Exception as error:  # one section's failure must not lose the others
                RESULTS["errors"][name] = "".join(traceback.format_exception(error))[-3000:]
                print(f"  failed: {error!r}", flush=True)
                value = None
            RESULTS["sections"][name] = {"start": start, "end": time.time()}
            save()
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            return value

        return run

    return wrap


def save() -> None:
    out = Path(os.environ.get("OUT", "/tmp/rank-layers"))
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / "rank_layers.json.tmp"
    tmp.write_text(json.dumps(RESULTS, indent=1, default=str))
    tmp.replace(out / "rank_layers.json")


# ----- the machine --------------------------------------------------------------------------------
def smi(query: str) -> str:
    try:
        return subprocess.run(
            ["nvidia-smi", f"--query-gpu={query}", "--format=csv"],
            capture_output=True, text=True, timeout=20,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError) as error:
        return f"nvidia-smi unavailable: {error!r}"


@section("machine")
def machine(device: str) -> dict[str, Any]:
    info: dict[str, Any] = {
        "python": sys.version.split()[0], "torch": torch.__version__,
        "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
    }  # fmt: skip
    if device.startswith("cuda"):
        p = torch.cuda.get_device_properties(0)
        info.update(name=p.name, sms=p.multi_processor_count, memory=p.total_memory)
        info["smi"] = smi(
            "name,driver_version,clocks.max.sm,clocks.max.mem,clocks.sm,power.limit,"
            "power.default_limit,power.max_limit,enforced.power.limit,temperature.gpu,"
            "pcie.link.gen.current,memory.total"
        )
        try:
            info["smi_q"] = subprocess.run(
                ["nvidia-smi", "-q", "-d", "CLOCK,POWER,PERFORMANCE"],
                capture_output=True, text=True, timeout=20,
            ).stdout[-6000:]  # fmt: skip
        except (OSError, subprocess.SubprocessError) as error:
            info["smi_q"] = repr(error)
    return info


# ----- GEMMs --------------------------------------------------------------------------------------
def gemm_rate(m: int, n: int, k: int, device: str, budget: float = 0.25) -> dict[str, Any]:
    """``C[m,n] = A[m,k] @ B[k,n]`` in BF16 with B stored as a Linear weight ``[n, k]``."""
    a = torch.randn(m, k, device=device, dtype=BF16)
    w = torch.randn(n, k, device=device, dtype=BF16)
    t = timed(lambda: nnf.linear(a, w), device, budget=budget)
    return {"m": m, "n": n, "k": k, **t, "tflops": 2 * m * n * k / t["median_s"] / 1e12}


def all_passes(linears: dict[str, tuple[int, int, int]], device: str) -> dict[str, Any]:
    """:func:`passes` of each named Linear ``(m, n, k)``."""
    return {name: passes(*shape, device) for name, shape in linears.items()}


def passes(m: int, n: int, k: int, device: str) -> dict[str, Any]:
    """The three GEMMs of a Linear ``[k -> n]`` on ``m`` tokens as autograd runs them: forward
    ``x·Wᵀ`` (m,n,k), input gradient ``g·W`` (m,k,n), weight gradient ``gᵀ·x`` (n,k,m)."""
    x = torch.randn(m, k, device=device, dtype=BF16)
    w = torch.randn(n, k, device=device, dtype=BF16)
    g = torch.randn(m, n, device=device, dtype=BF16)
    out = {}
    for name, fn in (
        ("fwd", lambda: nnf.linear(x, w)),
        ("dgrad", lambda: torch.matmul(g, w)),
        ("wgrad", lambda: torch.matmul(g.t(), x)),
    ):
        t = timed(fn, device, budget=0.2)
        out[name] = {**t, "tflops": 2 * m * n * k / t["median_s"] / 1e12}
    return {"m": m, "n": n, "k": k, **out}


@section("mamf_burst")
def mamf_burst(device: str, dry: bool) -> list[dict[str, Any]]:
    """The published MAMF shape and a large square, measured as the MAMF finder does (short
    bursts: mean of 100 after 50 warm-up) at the start, while the GPU is cool."""
    shapes = [(64, 64, 64)] if dry else [(2048, 2048, 13312), (8192, 8192, 8192), (4096,) * 3]
    out = []
    for m, n, k in shapes:
        a = torch.randn(m, k, device=device, dtype=BF16)
        b = torch.randn(k, n, device=device, dtype=BF16)
        for _ in range(50):
            a @ b
        sync(device)
        t0 = time.perf_counter()
        for _ in range(100):
            a @ b
        sync(device)
        seconds = (time.perf_counter() - t0) / 100
        rate = 2 * m * n * k / seconds / 1e12
        out.append({"m": m, "n": n, "k": k, "mean_s": seconds, "tflops": rate,
                    "clock": smi("clocks.sm")})  # fmt: skip
    return out


@section("gemm_sweep")
def gemm_sweep(device: str, dry: bool) -> list[dict[str, Any]]:
    """Depth and width at LLM shapes: m = 4096 and 8192 tokens, n from 128 to 16384 columns,
    k from 256 to 32768 deep (the depth overhead K0 and wave quantization, measured)."""
    if dry:
        return [gemm_rate(32, 32, 32, device, 0.01)]
    out = []
    for m in (4096, 8192):
        for k in (256, 512, 1024, 2048, 4096, 8192, 16384, 32768):
            out.append(gemm_rate(m, 8192, k, device))
        for n in (128, 256, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 12288, 16384):
            out.append(gemm_rate(m, n, 4096, device))
    for s in (512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384):
        out.append(gemm_rate(s, s, s, device))
    return out


# ----- one rank's layer ---------------------------------------------------------------------------
class RankLayer(torch.nn.Module):
    """One transformer layer as one of ``tp`` tensor-parallel ranks runs it (Shoeybi et al.
    2019: column-parallel QKV and first MLP GEMM, row-parallel output and second MLP GEMM,
    heads / tp), GPT style: pre-LayerNorm with bias, biases, GELU MLP of ``ffn``, causal
    attention through ``scaled_dot_product_attention`` with ``dropout``, dropout on both
    residual branches. The tensor-parallel communication itself is not run (one GPU)."""

    def __init__(self, hidden: int, heads: int, ffn: int, tp: int, dropout: float, device: str):
        super().__init__()
        kw: dict[str, Any] = {"device": device, "dtype": BF16}
        self.heads, self.head_dim, self.p = heads // tp, hidden // heads, dropout
        local = self.heads * self.head_dim
        self.ln1 = torch.nn.LayerNorm(hidden, **kw)
        self.ln2 = torch.nn.LayerNorm(hidden, **kw)
        self.qkv = torch.nn.Linear(hidden, 3 * local, **kw)
        self.proj = torch.nn.Linear(local, hidden, **kw)
        self.fc1 = torch.nn.Linear(hidden, ffn // tp, **kw)
        self.fc2 = torch.nn.Linear(ffn // tp, hidden, **kw)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        qkv = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, self.head_dim)
        q, k, v = (t.transpose(1, 2) for t in qkv.unbind(2))
        p = self.p if self.training else 0.0
        a = nnf.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
        x = x + nnf.dropout(self.proj(a.transpose(1, 2).reshape(b, s, -1)), p, self.training)
        h = nnf.gelu(self.fc1(self.ln2(x)), approximate="tanh")
        return x + nnf.dropout(self.fc2(h), p, self.training)


class SequenceParallelLayer(RankLayer):
    """:class:`RankLayer` as Megatron-Core runs it with sequence parallelism: layer norms,
    dropouts and residual adds on the rank's ``s/t`` tokens; before each column-parallel GEMM
    a copy of the normed shard ``t`` times stands for the all-gather's output, after each
    row-parallel GEMM a sum over the ``t`` blocks of ``s/t`` tokens for the reduce-scatter's
    (their memory traffic, not their communication)."""

    def __init__(self, hidden: int, heads: int, ffn: int, tp: int, dropout: float, device: str):
        super().__init__(hidden, heads, ffn, tp, dropout, device)
        self.tp = tp

    def _gather(self, y: torch.Tensor) -> torch.Tensor:
        return y if self.tp == 1 else y.repeat(1, self.tp, 1)

    def _scatter(self, y: torch.Tensor) -> torch.Tensor:
        if self.tp == 1:
            return y
        b, s, h = y.shape
        return y.view(b, self.tp, s // self.tp, h).sum(1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p = self.p if self.training else 0.0
        y = self._gather(self.ln1(x))
        b, s, _ = y.shape
        qkv = nnf.linear(y, self.qkv.weight, self.qkv.bias).view(b, s, 3, self.heads, -1)
        q, k, v = (t.transpose(1, 2) for t in qkv.unbind(2))
        a = nnf.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
        o = self._scatter(nnf.linear(a.transpose(1, 2).reshape(b, s, -1), self.proj.weight))
        x = x + nnf.dropout(o + self.proj.bias, p, self.training)
        h = nnf.gelu(self.fc1(self._gather(self.ln2(x))), approximate="tanh")
        o = self._scatter(nnf.linear(h, self.fc2.weight))
        return x + nnf.dropout(o + self.fc2.bias, p, self.training)


GEMM = re.compile(r"gemm|nvjet|cutlass|xmma|sm90_|sm80_|cublas|matmul", re.I)
ATTENTION = re.compile(r"flash|fmha|attention|attn|cudnn|sdpa", re.I)


def kernel_profile(step: Callable[[], Any], device: str, iterations: int = 3) -> dict[str, Any]:
    """Device time per kernel over ``iterations`` steps (torch.profiler), by category."""
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU]
    if device.startswith("cuda"):
        activities.append(ProfilerActivity.CUDA)
    step()
    sync(device)
    with profile(activities=activities) as prof:
        for _ in range(iterations):
            step()
        sync(device)
    kernels: dict[str, list[float]] = {}
    for event in prof.key_averages():
        us = getattr(event, "self_device_time_total", None)
        if us is None:
            us = getattr(event, "self_cuda_time_total", 0.0)
        if us and us > 0 and not event.key.startswith("aten::"):
            kernels[event.key] = [us / iterations / 1e6, event.count / iterations]
    totals = {"gemm": 0.0, "attention": 0.0, "other": 0.0}
    counts = {"gemm": 0.0, "attention": 0.0, "other": 0.0}
    for name, (seconds, count) in kernels.items():
        kind = "attention" if ATTENTION.search(name) else "gemm" if GEMM.search(name) else "other"
        totals[kind] += seconds
        counts[kind] += count
    top = sorted(kernels.items(), key=lambda kv: -kv[1][0])[:40]
    return {"seconds": totals, "kernels": counts,
            "top": [[k[:160], round(v[0] * 1e6, 2), v[1]] for k, v in top]}  # fmt: skip


def device_seconds(step: Callable[[], Any], device: str, calls: int = 5) -> float:
    """Device time of every kernel ``step`` launches, per call (:func:`kernel_profile`)."""
    return sum(kernel_profile(step, device, iterations=calls)["seconds"].values())


def layer_step(row: dict[str, Any], device: str, *, recompute: bool = False) -> dict[str, Any]:
    layer = RankLayer(row["hidden"], row["heads"], row["ffn"], row["tp"], row["dropout"], device)
    x = torch.randn(row["batch"], row["seq"], row["hidden"], device=device, dtype=BF16,
                    requires_grad=True)  # fmt: skip
    grad = torch.randn_like(x)

    def step() -> None:
        if recompute:
            from torch.utils.checkpoint import checkpoint

            out = checkpoint(layer, x, use_reentrant=False)
        else:
            out = layer(x)
        out.backward(grad)

    def forward() -> None:
        with torch.no_grad():
            layer(x)

    result = {"step": timed(step, device, budget=1.0), "forward": timed(forward, device)}
    result["profile"] = kernel_profile(step, device)
    return result


def layer_recompute(row: dict[str, Any], device: str) -> dict[str, Any] | None:
    """:func:`layer_step` with full recomputation, for the rows that recompute (else None)."""
    return layer_step(row, device, recompute=True) if row.get("recompute") else None


def attention_only(row: dict[str, Any], device: str) -> dict[str, Any]:
    """The rank's attention kernel alone: forward, and forward + backward, with the row's
    dropout and without; the backend PyTorch picks (and, on CUDA, cuDNN and flash)."""
    b, h, s = row["batch"], row["heads"] // row["tp"], row["seq"]
    d = row["hidden"] // row["heads"]
    q, k, v = (torch.randn(b, h, s, d, device=device, dtype=BF16, requires_grad=True)
               for _ in range(3))  # fmt: skip
    g = torch.randn(b, h, s, d, device=device, dtype=BF16)
    out: dict[str, Any] = {}
    backends: list[str | None] = [None]
    if device.startswith("cuda"):
        backends += ["cudnn", "flash"]
    for backend in backends:
        for p in sorted({0.0, row["dropout"]}):

            def fwd(p: float = p) -> None:
                with torch.no_grad():
                    nnf.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)

            def both(p: float = p) -> None:
                nnf.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True).backward(g)

            key = f"{backend or 'default'}-p{p}"
            try:
                if backend is None:
                    out[key] = {"fwd": timed(fwd, device, budget=0.3),
                                "fwd_bwd": timed(both, device, budget=0.3)}  # fmt: skip
                else:
                    from torch.nn.attention import SDPBackend, sdpa_kernel

                    chosen = {"cudnn": SDPBackend.CUDNN_ATTENTION,
                              "flash": SDPBackend.FLASH_ATTENTION}[backend]  # fmt: skip
                    with sdpa_kernel(chosen):
                        out[key] = {"fwd": timed(fwd, device, budget=0.3),
                                    "fwd_bwd": timed(both, device, budget=0.3)}  # fmt: skip
            except Exception as error:  # a backend that refuses the shape or dropout
                out[key] = {"error": repr(error)[:300]}
    # causal FLOPs of the two matmuls, forward: 2 x 2·b·h·d·s²/2 (the lower triangle)
    out["causal_fwd_flops"] = 2 * 2 * b * h * d * s * s / 2
    return out


@section("rows")
def rows(device: str, dry: bool) -> list[dict[str, Any]]:
    out = []
    for row in rank_shapes(dry):
        print(f"  {row['id']}", flush=True)
        entry: dict[str, Any] = {"row": row, "start": time.time()}
        h, t, m = row["hidden"], row["tp"], row["batch"] * row["seq"]
        local = (row["heads"] // t) * (h // row["heads"])
        linears = {
            "qkv": (m, 3 * local, h), "proj": (m, h, local),
            "fc1": (m, row["ffn"] // t, h), "fc2": (m, h, row["ffn"] // t),
            "logits": (m, row["vocab"] // t, h),
        }  # fmt: skip
        parts: tuple[tuple[str, Callable[[], Any]], ...] = (
            ("gemms", partial(all_passes, linears, device)),
            ("attention", partial(attention_only, row, device)),
            ("layer", partial(layer_step, row, device)),
            ("layer_recompute", partial(layer_recompute, row, device)),
        )
        for part, fn in parts:
            try:
                entry[part] = fn()
            except Exception as error:
                entry[part] = {"error": "".join(traceback.format_exception(error))[-1500:]}
                print(f"    {part} failed: {error!r}", flush=True)
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        entry["end"] = time.time()
        out.append(entry)
        RESULTS["rows"] = out
        save()
    return out


# ----- the whole 1.7B model on one GPU ------------------------------------------------------------
class GPT(torch.nn.Module):
    def __init__(self, row: dict[str, Any], device: str):
        super().__init__()
        kw: dict[str, Any] = {"device": device, "dtype": BF16}
        h = row["hidden"]
        self.embed = torch.nn.Embedding(row["vocab"], h, **kw)
        self.pos = torch.nn.Embedding(row["seq"], h, **kw)
        self.layers = torch.nn.ModuleList(
            RankLayer(h, row["heads"], row["ffn"], 1, row["dropout"], device)
            for _ in range(row["layers"])
        )
        self.norm = torch.nn.LayerNorm(h, **kw)
        self.head = torch.nn.Linear(h, row["vocab"], bias=False, **kw)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.embed(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device))
        x = nnf.dropout(x, 0.1, self.training)
        for layer in self.layers:
            x = layer(x)
        logits = self.head(self.norm(x)).float()
        return nnf.cross_entropy(logits.view(-1, logits.shape[-1]), ids.view(-1))


def gpt_step_parts(device: str, dry: bool) -> tuple[Callable[[], None], Callable[[], None], dict]:
    row = rank_shapes(dry)[0]
    model = GPT(row, device)
    ids = torch.randint(0, row["vocab"], (1, row["seq"]), device=device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=device.startswith("cuda"))

    def fwd_bwd() -> None:
        model(ids).backward()

    def full() -> None:
        fwd_bwd()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    return fwd_bwd, full, row


@section("gpt_1p7b")
def gpt_1p7b(device: str, dry: bool) -> dict[str, Any]:
    """Megatron's 1.7B GPT (h 2048, 24 layers, 16 heads, vocab 131072, seq 4096, micro-batch 1)
    trained on one GPU: forward + backward per micro-batch, the step with a fused AdamW, and the
    per-kernel profile of the forward + backward."""
    fwd_bwd, full, row = gpt_step_parts(device, dry)
    out = {"row": row, "fwd_bwd": timed(fwd_bwd, device, budget=2.0),
           "step": timed(full, device, budget=2.0)}  # fmt: skip
    out["profile"] = kernel_profile(fwd_bwd, device, iterations=2)
    return out


@section("sustained")
def sustained(device: str, dry: bool, seconds: float) -> dict[str, Any]:
    """The 1.7B training step back to back for ``seconds`` (its time per step over time, to
    join with the clock and power samples), then an 8192³ GEMM back to back for a third of that
    (its TFLOP/s over time)."""
    fwd_bwd, _, _ = gpt_step_parts(device, dry)
    steps = []
    end = time.time() + seconds
    while time.time() < end:
        t = timed(fwd_bwd, device, budget=0.0, warmup=0, most=5)
        steps.append([time.time(), t["median_s"]])
    del fwd_bwd
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    size = 64 if dry else 8192
    a = torch.randn(size, size, device=device, dtype=BF16)
    b = torch.randn(size, size, device=device, dtype=BF16)
    gemms = []
    end = time.time() + seconds / 3
    while time.time() < end:
        t = timed(lambda: a @ b, device, budget=0.0, warmup=0, most=20)
        gemms.append([time.time(), 2 * size**3 / t["median_s"] / 1e12])
    return {"gpt_fwd_bwd": steps, "gemm_8192_tflops": gemms}


# ----- attention over sequence and heads ----------------------------------------------------------
@section("attention_sweep")
def attention_sweep(device: str, dry: bool) -> list[dict[str, Any]]:
    out = []
    grid = [(1, 2, 64, 64)] if dry else [
        (b, h, s, d) for d in (128, 64) for s in (1024, 2048, 4096, 8192)
        for b, h in ((1, 16), (4, 32))
    ]  # fmt: skip
    for b, h, s, d in grid:
        row = {"batch": b, "heads": h, "tp": 1, "seq": s, "hidden": h * d, "dropout": 0.0}
        out.append({"shape": [b, h, s, d], **attention_only(row, device)})
    return out


# ----- the fused attention kernel over its shape -------------------------------------------------
@section("attention_grid")
def attention_grid(device: str, dry: bool, backend_name: str = "cudnn") -> list[dict[str, Any]]:
    """cuDNN fused attention (``scaled_dot_product_attention`` restricted to the cuDNN backend),
    BF16, forward and backward timed apart, over batch x heads per launch, sequence, head size,
    causal mask and dropout: one launch's work and the dropout's random numbers, measured."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    grid = [(2, 64, 64, True, 0.0)] if dry else [
        (bh, s, d, causal, p) for d in (128, 64) for causal in (True, False)
        for s in (1024, 2048, 4096, 8192) for bh in (4, 8, 16, 32, 64, 128) for p in (0.0, 0.1)
        if not (not causal and d == 64)
    ]  # fmt: skip
    out: list[dict[str, Any]] = []
    chosen = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}
    backend = [SDPBackend.MATH] if dry else [chosen[backend_name]]
    RESULTS["attention_grid_backend"] = backend_name
    for bh, s, d, causal, p in grid:
        q, k, v = (torch.randn(1, bh, s, d, device=device, dtype=BF16, requires_grad=True)
                   for _ in range(3))  # fmt: skip
        g = torch.randn(1, bh, s, d, device=device, dtype=BF16)
        entry: dict[str, Any] = {"bh": bh, "seq": s, "head_dim": d, "causal": causal, "dropout": p}
        try:
            with sdpa_kernel(backend):

                def fwd(
                    qkv: tuple[torch.Tensor, ...] = (q, k, v), p: float = p, causal: bool = causal
                ) -> None:
                    query, key, value = qkv
                    with torch.no_grad():
                        nnf.scaled_dot_product_attention(
                            query, key, value, dropout_p=p, is_causal=causal
                        )

                o = nnf.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=causal)

                def bwd(o: torch.Tensor = o, qkv: tuple = (q, k, v), g: torch.Tensor = g) -> None:
                    torch.autograd.grad(o, qkv, g, retain_graph=True)

                entry["fwd"] = timed(fwd, device, budget=0.12, most=100)
                entry["bwd"] = timed(bwd, device, budget=0.12, most=100)
                # the kernels' own device time (the profiler's), free of host dispatch
                entry["fwd_kernels_s"] = device_seconds(fwd, device)
                entry["bwd_kernels_s"] = device_seconds(bwd, device)
                if not out:  # the kernels' names, once: which implementation ran
                    entry["kernels"] = [
                        kernel_profile(f, device, iterations=1)["top"][:4] for f in (fwd, bwd)
                    ]
                entry["clock"] = smi("clocks.sm").splitlines()[-1] if not dry else ""
        except Exception as error:
            entry["error"] = repr(error)[:300]
        out.append(entry)
    return out


def compiled_entry(
    rid: str, step: Callable[[], None], device: str, budget: float
) -> dict[str, Any]:
    """A compiled step's first call (its compile time), then its time and kernel profile."""
    t0 = time.time()
    step()
    sync(device)
    entry: dict[str, Any] = {"id": rid, "compile_s": time.time() - t0, "start": time.time()}
    entry["step"] = timed(step, device, budget=budget, most=2000)
    entry["end"] = time.time()
    entry["profile"] = kernel_profile(step, device)
    return entry


# ----- a fused layer (torch.compile): the GEMMs' share of a Megatron-like step --------------------
@section("compiled")
def compiled(device: str, dry: bool) -> list[dict[str, Any]]:
    """The rank layers of three Megatron rows and the whole 1.7B model compiled by torch.compile
    (its element-wise kernels fused, as Transformer Engine and Megatron fuse theirs): step time,
    kernel profile, and the clock while they run back to back."""
    out = []
    rows = {r["id"]: r for r in rank_shapes(dry)}
    ids = list(rows)[:1] if dry else [
        "run.megatron_h100.1.7B", "run.megatron_h100.7.1B", "run.megatron_h100.70B",
        "run.megatron_h100.462B",
    ]  # fmt: skip
    for rid in ids:
        row = rows[rid]
        layer = RankLayer(
            row["hidden"], row["heads"], row["ffn"], row["tp"], row["dropout"], device
        )
        torch._dynamo.reset()
        fused = torch.compile(layer)
        x = torch.randn(row["batch"], row["seq"], row["hidden"], device=device, dtype=BF16,
                        requires_grad=True)  # fmt: skip
        grad = torch.randn_like(x)

        def step(fused: Any = fused, x: torch.Tensor = x, grad: torch.Tensor = grad) -> None:
            fused(x).backward(grad)

        out.append(compiled_entry(rid, step, device, budget=3.0))
        RESULTS["compiled"] = out
        save()
    return out


@section("compiled_gpt")
def compiled_gpt(device: str, dry: bool, seconds: float) -> dict[str, Any]:
    """The 1.7B model with each layer compiled, forward + backward back to back for
    ``seconds`` (time per micro-batch over time, to join with the clocks), and its profile."""
    row = rank_shapes(dry)[0]
    model = GPT(row, device)
    for i, layer in enumerate(model.layers):
        model.layers[i] = cast(torch.nn.Module, torch.compile(layer))  # an OptimizedModule
    ids = torch.randint(0, row["vocab"], (1, row["seq"]), device=device)

    def fwd_bwd() -> None:
        model(ids).backward()

    t0 = time.time()
    fwd_bwd()
    sync(device)
    out: dict[str, Any] = {"compile_s": time.time() - t0, "steps": []}
    end = time.time() + seconds
    while time.time() < end:
        t = timed(fwd_bwd, device, budget=0.0, warmup=0, most=5)
        out["steps"].append([time.time(), t["median_s"]])
    out["profile"] = kernel_profile(fwd_bwd, device, iterations=2)
    return out


@section("sequence_parallel")
def sequence_parallel(device: str, dry: bool) -> list[dict[str, Any]]:
    """Every Megatron row's rank layer with sequence parallelism (:class:`SequenceParallelLayer`),
    compiled (its element-wise kernels fused, as Transformer Engine's are), forward + backward
    with the gradients returned, not added into ``.grad``: step time, kernel profile, clock."""
    out = []
    for row in rank_shapes(dry):
        if row["family"] != "megatron":
            continue
        layer = SequenceParallelLayer(
            row["hidden"], row["heads"], row["ffn"], row["tp"], row["dropout"], device
        )
        torch._dynamo.reset()  # a fresh compile per row (8 shapes reach dynamo's recompile limit)
        fused = torch.compile(layer)
        shard = row["seq"] // row["tp"]
        x = torch.randn(row["batch"], shard, row["hidden"], device=device, dtype=BF16,
                        requires_grad=True)  # fmt: skip
        grad = torch.randn_like(x)
        inputs = [x, *layer.parameters()]

        def step(fused: Any = fused, x: torch.Tensor = x, grad: torch.Tensor = grad,
                 inputs: list = inputs) -> None:  # fmt: skip
            torch.autograd.grad(fused(x), inputs, grad)

        out.append(compiled_entry(row["id"], step, device, budget=2.0))
        RESULTS["sequence_parallel"] = out
        save()
        del layer, fused, x, grad, inputs
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    return out


@section("power_duty")
def power_duty(device: str, dry: bool, seconds: float) -> list[dict[str, Any]]:
    """BF16 GEMMs of three sizes back to back with a memory-bound copy between them sized to
    hold the GEMMs to a duty cycle (1, 3/4, 1/2, 1/4 of the time), each for ``seconds``: the
    GEMM's own time (CUDA events around it alone) over the second half of the window, to join
    with the clock and power samples. Data for a power-limited clock: how fast a GEMM runs at
    the 700 W cap depends on what runs beside it."""
    out = []
    sizes = [64] if dry else [2048, 4096, 8192]
    elements = 2**16 if dry else 2**28
    src = torch.randn(elements, device=device, dtype=BF16)
    dst = torch.empty_like(src)
    copy = timed(lambda: dst.copy_(src), device, budget=0.2)["median_s"] / elements
    for n in sizes:
        a = torch.randn(n, n, device=device, dtype=BF16)
        b = torch.randn(n, n, device=device, dtype=BF16)
        gemm = timed(partial(torch.matmul, a, b), device, budget=0.2)["median_s"]
        for duty in (1.0, 0.75, 0.5, 0.25):
            k = min(elements, int(gemm * (1 - duty) / duty / copy))
            samples: list[tuple[float, float]] = []
            start_time = time.time()
            while time.time() - start_time < seconds:
                events = []
                for _ in range(20):
                    e0 = torch.cuda.Event(enable_timing=True) if device.startswith("cuda") else None
                    e1 = torch.cuda.Event(enable_timing=True) if device.startswith("cuda") else None
                    if e0 is not None:
                        e0.record()
                    a @ b
                    if e1 is not None:
                        e1.record()
                    if k:
                        dst[:k].copy_(src[:k])
                    events.append((e0, e1))
                sync(device)
                now = time.time()
                for e0, e1 in events:
                    if e0 is not None and e1 is not None:
                        samples.append((now, e0.elapsed_time(e1) / 1e3))
            late = [t for when, t in samples if when - start_time > seconds / 2] or [1.0]
            median = sorted(late)[len(late) // 2]
            out.append({"n": n, "duty": duty, "copy_elements": k, "start": start_time,
                        "end": time.time(), "gemm_s": median,
                        "tflops": 2 * n**3 / median / 1e12})  # fmt: skip
            RESULTS["power_duty"] = out
            save()
    return out


def clock_sampler(out: Path) -> subprocess.Popen | None:
    try:
        return subprocess.Popen(
            ["nvidia-smi", "--query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,"
             "utilization.gpu,clocks_throttle_reasons.active", "--format=csv,noheader,nounits",
             "-lms", "250"],
            stdout=(out / "clocks.csv").open("w"), stderr=subprocess.DEVNULL,
        )  # fmt: skip
    except OSError:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry", action="store_true", help="toy sizes on the CPU")
    parser.add_argument("--sustained", type=float, default=60.0, help="seconds of sustained load")
    parser.add_argument(
        "--sections",
        default="all",
        help="comma-separated: first (the first run's sections), grid, sp, compiled, power",
    )
    parser.add_argument(
        "--grid-backend",
        default="cudnn",
        choices=("cudnn", "flash"),
        help="the scaled_dot_product_attention backend the grid measures",
    )
    args = parser.parse_args()
    device = "cpu" if args.dry else "cuda"
    out = Path(os.environ.get("OUT", "/tmp/rank-layers"))
    out.mkdir(parents=True, exist_ok=True)
    sampler = None if args.dry else clock_sampler(out)
    RESULTS["clock_epoch_note"] = (
        "clocks.csv timestamps are local wall time; sections use time.time()"
    )
    RESULTS["start_local"] = time.strftime("%Y/%m/%d %H:%M:%S")
    RESULTS["start_epoch"] = time.time()
    try:
        chosen = (
            {"first", "grid", "sp", "compiled", "power"}
            if args.sections == "all"
            else set(args.sections.split(","))
        )
        machine(device)
        if "first" in chosen:
            mamf_burst(device, args.dry)
            gemm_sweep(device, args.dry)
            rows(device, args.dry)
            gpt_1p7b(device, args.dry)
            attention_sweep(device, args.dry)
            sustained(device, args.dry, 2.0 if args.dry else args.sustained)
        if "grid" in chosen:
            attention_grid(device, args.dry, args.grid_backend)
        if "sp" in chosen:
            sequence_parallel(device, args.dry)
        if "power" in chosen:
            power_duty(device, args.dry, 1.0 if args.dry else 8.0)
        if "compiled" in chosen:
            compiled(device, args.dry)
            compiled_gpt(device, args.dry, 2.0 if args.dry else args.sustained)
    finally:
        if sampler is not None:
            sampler.terminate()
        save()
    print("errors:", list(RESULTS["errors"]) or "none")


if __name__ == "__main__":
    main()
