"""The benchmarks. Each yields result rows (:func:`mlcost.bench.store.record`); a failure of one
measurement (out of memory, a format the device does not support) is recorded as such and the
suite goes on.

Presets: ``quick`` (small sizes, seconds on a laptop CPU; what CI runs) and ``full`` (sizes that
cross the cache levels and reach the large-GEMM plateau; for GPUs)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import torch

from mlcost.bench.collectives import collectives as run_collectives
from mlcost.bench.model import GPT, GPTConfig
from mlcost.bench.store import record
from mlcost.bench.timer import Timing, time_callable
from mlcost.specs import default_catalog
from mlcost.workload.attention import attention_pairs
from mlcost.workload.optimizer import OPTIMIZERS
from mlcost.workload.table import ELEMENTWISE_BACKWARD_FACTOR, ELEMENTWISE_FLOPS

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def element_bytes(fmt: str) -> float:
    """Bytes per operand element of a compute format (the catalog's numeric formats)."""
    return default_catalog().element_bytes(fmt)


PRESETS: dict[str, dict[str, Any]] = {
    "quick": {
        "gemm_square": [64, 128, 256, 512, 768, 1024],
        "gemm_llm": [(256, 768, 768), (256, 3072, 768), (512, 768, 3072), (256, 1000, 256)],
        # features not a multiple of 16 bytes, each beside an aligned shape of about its size
        # (calibration fits the ratio: mlcost.calibrate.fit_unaligned)
        "gemm_unaligned": [(256, 1003, 256)],
        "memory_elements": [2**14, 2**17, 2**20, 2**22],
        # STREAM's rule: each array at least 4x the last-level cache (McCalpin, STREAM FAQ),
        # so the largest measures memory, not cache: 2^25 FP32 elements are 128 MiB, 4x a
        # 32 MiB L3 (a 2-core EPYC slice measured 77 GB/s at 2^22, in cache, against 28-30
        # GB/s past it; issue 62)
        "stream_elements": [2**14, 2**17, 2**20, 2**22, 2**25],
        "e2e": [GPTConfig(vocab_size=4096, sequence_length=256, layers=2, hidden=256, heads=4)],
        "e2e_batch": 4,
        "attention_seq": [64, 128, 256, 512],
        "bmm": [(16, 128, 128, 32), (16, 128, 32, 128), (8, 256, 256, 64)],
        "collective_elements": [2**12, 2**16, 2**19, 2**21, 2**22],
        # twice glibc's largest mmap threshold (32 MiB, mallopt(3)): always mapped afresh
        "first_touch_bytes": 2**26,
        "attention_shape": (4, 4, 32),
        "repeats": 7,
        # a measurement whose repetitions are disturbed (mlcost.bench.timer.DISTURBED) is made
        # again, up to this many times in all, and the quietest attempt is kept
        "attempts": 3,
        # interleaved passes over the families calibration fits (mlcost.bench.runner.run)
        "passes": 3,
        # a GEMM slower than this (median) ends its format and layout: larger shapes are
        # recorded as skipped (a CPU without bf16 units takes seconds per 1024^3 bf16 GEMM)
        "gemm_time_limit_s": 0.1,
    },
    "full": {
        "gemm_square": [256, 512, 1024, 2048, 4096, 8192, 16384],
        "gemm_llm": [
            (8192, 4096, 4096),
            (8192, 14336, 4096),
            (8192, 4096, 14336),
            (4096, 128256, 4096),
            (16384, 12288, 12288),
            (16384, 50304, 768),
        ],
        # GPT-2's vocabulary (50,257) beside nanoGPT's padded one (50,304) in gemm_llm, and an
        # odd hidden size beside 8192 x 4096 x 4096
        "gemm_unaligned": [(16384, 50257, 768), (8192, 4096, 4100)],
        "memory_elements": [2**16, 2**20, 2**24, 2**26, 2**28],
        "e2e": [GPTConfig(vocab_size=32768, sequence_length=1024, layers=12, hidden=768, heads=12)],
        "e2e_batch": 8,
        "attention_seq": [512, 1024, 2048, 4096, 8192],
        "bmm": [(128, 2048, 2048, 128), (128, 2048, 128, 2048), (512, 1024, 1024, 64)],
        "collective_elements": [2**12, 2**16, 2**20, 2**24, 2**26, 2**28],
        "first_touch_bytes": 2**26,
        "attention_shape": (4, 16, 128),
        "repeats": 20,
        "attempts": 3,
        "gemm_time_limit_s": 5.0,
    },
}


def _timed(
    function: Callable[[], Any],
    device: str,
    preset: dict[str, Any],
    *,
    repeats: int | None = None,
    warmup: int = 3,
) -> Timing:
    """:func:`mlcost.bench.timer.time_callable` with the preset's repetitions, attempts while
    disturbed, and clock (:func:`mlcost.bench.runner.clock_of`)."""
    return time_callable(
        function,
        device=device,
        warmup=warmup,
        repeats=repeats or preset["repeats"],
        attempts=preset["attempts"],
        clock=preset.get("clock", "wall"),
    )


def _formats(device: str, requested: list[str] | None) -> list[str]:
    if requested:
        return requested
    return ["fp32", "bf16"] if device == "cpu" else ["fp32", "tf32", "fp16", "bf16", "fp8"]


Skip = Callable[[tuple[str, str, str, str, str]], bool]


def _never(_: tuple[str, str, str, str, str]) -> bool:
    return False


def _guarded(
    family: str,
    name: str,
    device: str,
    fmt: str,
    params: dict[str, Any],
    measure: Callable[[], dict[str, Any]],
    skip: Skip = _never,
) -> dict[str, Any] | None:
    """Run one measurement (unless ``skip`` says it is stored already); out-of-memory and
    unsupported formats become rows, not crashes."""
    if skip((family, name, device, fmt, json.dumps(params, sort_keys=True))):
        return None
    try:
        return measure()
    except torch.OutOfMemoryError as error:
        if device.startswith("cuda"):
            torch.cuda.empty_cache()
        return record(family, name, device, fmt, params, status="oom", detail=str(error)[:200])
    except (RuntimeError, TypeError, NotImplementedError) as error:
        text = str(error)
        status = (
            "unsupported"
            if any(
                word in text.lower()
                for word in ("not implemented", "not supported", "unsupported", "no kernel")
            )
            else "error"
        )
        return record(family, name, device, fmt, params, status=status, detail=text[:200])


#: Operand layouts of the GEMMs of a training step: ``nn`` the forward ``X·W``, ``nt`` the
#: input gradient ``dY·W^T``, ``tn`` the weight gradient ``X^T·dY``.
LAYOUTS = ("nn", "nt", "tn")


def gemm(
    device: str, preset: dict[str, Any], formats: list[str] | None = None, skip: Skip = _never
) -> Iterator[dict[str, Any] | None]:
    """``C = A·B`` for square and LLM-shaped GEMMs in each format and operand layout (the
    transposed layouts are what the backward pass runs)."""
    shapes = [(n, n, n) for n in preset["gemm_square"]] + list(preset["gemm_llm"])
    shapes += list(preset.get("gemm_unaligned", ()))
    shapes.sort(key=lambda shape: shape[0] * shape[1] * shape[2])
    limit = preset.get("gemm_time_limit_s", float("inf"))
    for fmt in _formats(device, formats):
        for layout in LAYOUTS:
            too_slow = ""
            for m, n, k in shapes:
                params = {"m": m, "n": n, "k": k, "layout": layout}
                name = f"{m}x{n}x{k}-{layout}"
                if too_slow:
                    yield record(
                        "gemm", name, device, fmt, params, status="skipped", detail=too_slow
                    )
                    continue

                def measure(
                    m: int = m,
                    n: int = n,
                    k: int = k,
                    fmt: str = fmt,
                    layout: str = layout,
                    params: dict[str, Any] = params,
                    name: str = name,
                ) -> dict[str, Any]:
                    dtype = DTYPES.get(fmt, torch.float32)
                    if fmt in ("tf32", "fp8") and not device.startswith("cuda"):
                        raise NotImplementedError(f"{fmt} is not supported on this device")
                    if fmt == "fp8":
                        return _fp8_gemm(m, n, k, layout, params, name)
                    torch.backends.cuda.matmul.allow_tf32 = fmt == "tf32"
                    a = torch.randn(
                        (k, m) if layout == "tn" else (m, k), device=device, dtype=dtype
                    )
                    b = torch.randn(
                        (n, k) if layout == "nt" else (k, n), device=device, dtype=dtype
                    )
                    left = a.t() if layout == "tn" else a
                    right = b.t() if layout == "nt" else b
                    timing = _timed(lambda: left @ right, device, preset)
                    return record(
                        "gemm",
                        name,
                        device,
                        fmt,
                        params,
                        timing=timing,
                        flops=2 * m * n * k,
                        bytes_moved=element_bytes(fmt) * (m * k + k * n + m * n),
                    )

                row = _guarded("gemm", name, device, fmt, params, measure, skip)
                median = (row or {}).get("median_s")
                if median is not None and median > limit:
                    too_slow = (
                        f"a smaller {fmt} GEMM took {median:.3g} s, over the preset's "
                        f"{limit:g} s limit"
                    )
                yield row


def _fp8_gemm(
    m: int, n: int, k: int, layout: str, params: dict[str, Any], name: str
) -> dict[str, Any]:
    """FP8 (E4M3) GEMM through ``torch._scaled_mm`` (Hopper and later; the second operand must
    be column-major, so only the ``nn`` layout is measured)."""
    if layout != "nn":
        raise NotImplementedError("fp8 is not supported here for the nt and tn layouts (nn only)")
    device = "cuda"
    a = torch.randn(m, k, device=device).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device=device).to(torch.float8_e4m3fn).t()
    scale = torch.tensor(1.0, device=device)
    timing = time_callable(
        lambda: torch._scaled_mm(a, b, scale_a=scale, scale_b=scale, out_dtype=torch.bfloat16),
        device=device,
        repeats=10,
    )
    return record(
        "gemm",
        name,
        device,
        "fp8",
        params,
        timing=timing,
        flops=2 * m * n * k,
        bytes_moved=m * k + k * n + 2 * m * n,
    )


def batched_gemm(
    device: str, preset: dict[str, Any], skip: Skip = _never
) -> Iterator[dict[str, Any] | None]:
    """Batched matmul ``[b, m, k]·[b, k, n]`` (attention-like shapes), FP32 and BF16."""
    for fmt in ("fp32", "bf16"):
        for batch, m, n, k in preset["bmm"]:
            params = {"batch": batch, "m": m, "n": n, "k": k}
            name = f"{batch}x{m}x{n}x{k}"

            def measure(
                batch: int = batch,
                m: int = m,
                n: int = n,
                k: int = k,
                fmt: str = fmt,
                params: dict[str, Any] = params,
                name: str = name,
            ) -> dict[str, Any]:
                a = torch.randn(batch, m, k, device=device, dtype=DTYPES[fmt])
                b = torch.randn(batch, k, n, device=device, dtype=DTYPES[fmt])
                timing = _timed(lambda: torch.bmm(a, b), device, preset)
                return record(
                    "bmm",
                    name,
                    device,
                    fmt,
                    params,
                    timing=timing,
                    flops=2 * batch * m * n * k,
                    bytes_moved=element_bytes(fmt) * batch * (m * k + k * n + m * n),
                )

            yield _guarded("bmm", name, device, fmt, params, measure, skip)


def _stream_kernels(
    a: torch.Tensor, b: torch.Tensor, c: torch.Tensor
) -> dict[str, tuple[Callable[[], Any], int, int]]:
    """name -> (kernel, arrays touched, FLOPs per element)."""
    return {
        "copy": (lambda: c.copy_(a), 2, 0),
        "scale": (lambda: torch.mul(a, 3.0, out=c), 2, 1),
        "add": (lambda: torch.add(a, b, out=c), 3, 1),
        "triad": (lambda: torch.add(a, b, alpha=3.0, out=c), 3, 2),
    }


def memory(
    device: str, preset: dict[str, Any], skip: Skip = _never
) -> Iterator[dict[str, Any] | None]:
    """STREAM kernels (McCalpin 1995): copy, scale, add, triad over sizes, FP32 (the preset's
    ``stream_elements`` where it has them, else its ``memory_elements``)."""
    for elements in preset.get("stream_elements", preset["memory_elements"]):
        a = torch.randn(elements, device=device)
        b = torch.randn(elements, device=device)
        c = torch.empty(elements, device=device)
        kernels = _stream_kernels(a, b, c)
        for name, (function, arrays, flops) in kernels.items():
            params = {"elements": elements}

            def measure(
                function: Callable[[], Any] = function,
                name: str = name,
                arrays: int = arrays,
                flops: int = flops,
                params: dict[str, Any] = params,
            ) -> dict[str, Any]:
                timing = _timed(function, device, preset)
                return record(
                    "memory",
                    name,
                    device,
                    "fp32",
                    params,
                    timing=timing,
                    flops=flops * params["elements"],
                    bytes_moved=arrays * 4 * params["elements"],
                )

            yield _guarded("memory", name, device, "fp32", params, measure, skip)


#: Element-wise kernels of a transformer: name -> (workload kind it stands for, FLOPs key).
KERNELS: dict[str, tuple[str, str]] = {
    "softmax": ("softmax", "softmax"),
    "layernorm": ("norm", "layernorm"),
    "gelu": ("activation", "gelu-tanh"),
    "cross-entropy": ("loss", "cross-entropy"),
}


def _kernel_step(
    name: str, x: torch.Tensor, grad: torch.Tensor, targets: torch.Tensor
) -> Callable[[], None]:
    """Forward and backward of one kernel, its input's gradient allocated afresh each call as
    a training step allocates it (``zero_grad(set_to_none=True)``; accumulating into a kept
    ``x.grad`` would measure a buffer reused from the previous call, which no step has)."""
    functional = torch.nn.functional
    forward: dict[str, Callable[[], torch.Tensor]] = {
        "softmax": lambda: torch.softmax(x, dim=-1),
        "layernorm": lambda: functional.layer_norm(x, (x.shape[-1],)),
        "gelu": lambda: functional.gelu(x, approximate="tanh"),
        "cross-entropy": lambda: functional.cross_entropy(x, targets),
    }

    def step() -> None:
        x.grad = None
        out = forward[name]()
        out.backward(None if name == "cross-entropy" else grad)

    return step


def kernels(
    device: str, preset: dict[str, Any], skip: Skip = _never
) -> Iterator[dict[str, Any] | None]:
    """Non-GEMM kernels of a transformer (softmax, layer norm, GELU, cross-entropy), forward and
    backward, FP32, over sizes: what element-wise work really costs on this device. FLOPs per
    element follow :data:`mlcost.workload.ELEMENTWISE_FLOPS` (backward twice the forward)."""

    columns = 4096  # a vocabulary-like row width (softmax and loss run over V)
    for elements in preset["memory_elements"]:
        rows = max(elements // columns, 1)
        x = torch.randn(rows, columns, device=device, requires_grad=True)
        grad = torch.randn(rows, columns, device=device)
        targets = torch.randint(0, columns, (rows,), device=device)
        for name, (kind, key) in KERNELS.items():
            params = {"elements": rows * columns, "kind": kind}
            step = _kernel_step(name, x, grad, targets)

            def measure(
                step: Callable[[], None] = step,
                key: str = key,
                name: str = name,
                params: dict[str, Any] = params,
            ) -> dict[str, Any]:
                timing = _timed(step, device, preset)
                n = params["elements"]
                flops = ELEMENTWISE_FLOPS[key] * n * (1 + ELEMENTWISE_BACKWARD_FACTOR)
                return record(
                    "kernel",
                    name,
                    device,
                    "fp32",
                    params,
                    timing=timing,
                    flops=flops,
                    bytes_moved=5 * 4 * n,
                )

            yield _guarded("kernel", name, device, "fp32", params, measure, skip)


def optimizer(
    device: str, preset: dict[str, Any], skip: Skip = _never
) -> Iterator[dict[str, Any] | None]:
    """One AdamW step over parameters split into 32 tensors (FP32, as a small model has), over
    sizes, so per-tensor overheads are in the measurement. FLOPs per parameter as
    :data:`mlcost.workload.optimizer.OPTIMIZERS` counts them."""

    for elements in preset["memory_elements"]:
        params = {"parameters": elements, "tensors": 32, "optimizer": "adamw"}

        def measure(elements: int = elements, params: dict[str, Any] = params) -> dict[str, Any]:
            tensors = params["tensors"]  # as recorded (16 were made under 32 before issue 62)
            weights = [
                torch.nn.Parameter(torch.randn(max(elements // tensors, 1), device=device))
                for _ in range(tensors)
            ]
            for weight in weights:
                weight.grad = torch.randn_like(weight)
            adamw = torch.optim.AdamW(weights, lr=1e-4)
            timing = _timed(adamw.step, device, preset)
            n = sum(w.numel() for w in weights)
            return record(
                "optimizer",
                "adamw",
                device,
                "fp32",
                params,
                timing=timing,
                flops=OPTIMIZERS["adamw"].flops_per_parameter * n,
                bytes_moved=n * (4 + 4 + 8) + n * (4 + 8),
            )

        yield _guarded("optimizer", "adamw", device, "fp32", params, measure, skip)


def attention(
    device: str, preset: dict[str, Any], skip: Skip = _never
) -> Iterator[dict[str, Any] | None]:
    """``scaled_dot_product_attention`` forward + backward over sequence length, causal and
    not, with each backend the device offers. ``default`` is the backend PyTorch picks itself
    (what a training step runs, and what calibration fits); on CUDA each backend is also forced
    (flash, memory-efficient, cuDNN, math). The format is FP32 on the CPU and BF16 on CUDA
    (FlashAttention and cuDNN attention take half precision only; training runs BF16). FLOPs
    count the unmasked scores (the ``flash`` convention of the workload table): two matmuls of
    ``2·d·pairs·heads·b`` forward, twice that backward."""

    batch, heads, head_dim = preset["attention_shape"]
    backends: list[str] = ["default"]
    fmt = "fp32"
    if device.startswith("cuda"):
        backends = ["default", "flash", "efficient", "cudnn", "math"]
        fmt = "bf16"
    for backend in backends:
        for causal in (True, False):
            for seq in preset["attention_seq"]:
                params = {
                    "batch": batch,
                    "heads": heads,
                    "head_dim": head_dim,
                    "seq": seq,
                    "causal": causal,
                    "backend": backend,
                }
                name = f"sdpa-{backend}-{'causal' if causal else 'full'}-{seq}"

                def measure(
                    seq: int = seq,
                    causal: bool = causal,
                    backend: str = backend,
                    params: dict[str, Any] = params,
                    name: str = name,
                ) -> dict[str, Any]:
                    shape = (batch, heads, seq, head_dim)
                    q, k, v = (
                        torch.randn(shape, device=device, dtype=DTYPES[fmt], requires_grad=True)
                        for _ in range(3)
                    )
                    grad = torch.randn(shape, device=device, dtype=DTYPES[fmt])

                    def step() -> None:
                        out = torch.nn.functional.scaled_dot_product_attention(
                            q, k, v, is_causal=causal
                        )
                        out.backward(grad)

                    if backend == "default":
                        timing = _timed(step, device, preset)
                    else:
                        from torch.nn.attention import SDPBackend, sdpa_kernel

                        chosen = {
                            "flash": SDPBackend.FLASH_ATTENTION,
                            "efficient": SDPBackend.EFFICIENT_ATTENTION,
                            "math": SDPBackend.MATH,
                            "cudnn": SDPBackend.CUDNN_ATTENTION,
                        }[backend]
                        with sdpa_kernel(chosen):
                            timing = _timed(step, device, preset)
                    pairs = attention_pairs(seq, causal=causal)
                    one_matmul = 2 * head_dim * pairs * heads * batch
                    return record(
                        "attention",
                        name,
                        device,
                        fmt,
                        params,
                        timing=timing,
                        flops=3 * 2 * one_matmul,
                        bytes_moved=element_bytes(fmt) * 4 * batch * heads * seq * head_dim * 3,
                    )

                yield _guarded("attention", name, device, fmt, params, measure, skip)


def launch(
    device: str, preset: dict[str, Any], skip: Skip = _never
) -> Iterator[dict[str, Any] | None]:
    """Kernel launch latency: the time of an add on one element, which does no work."""
    x = torch.zeros(1, device=device)

    def measure() -> dict[str, Any]:
        timing = _timed(lambda: x.add_(1.0), device, preset, repeats=preset["repeats"] * 20)
        return record("launch", "add-1-element", device, "fp32", {}, timing=timing)

    yield _guarded("launch", "add-1-element", device, "fp32", {}, measure, skip)


#: The host family's two fills: a buffer allocated afresh each call, and one allocated once.
FIRST_TOUCH = ("fill-fresh", "fill-reused")


def host(
    device: str, preset: dict[str, Any], skip: Skip = _never
) -> Iterator[dict[str, Any] | None]:
    """Host work of a host-executed device (the CPU): the first touch of fresh pages. A buffer
    of ``first_touch_bytes`` (twice glibc's largest mmap threshold, 32 MiB: mallopt(3)) is
    allocated and filled each call, so the allocator maps it afresh and the kernel faults in
    every page; the same fill of a buffer allocated once writes pages already mapped. The
    difference over the bytes is the first-touch rate (:func:`mlcost.calibrate.fit_first_touch`).
    Not measured on a GPU (its kernels never touch fresh host pages)."""
    nbytes = int(preset["first_touch_bytes"])
    elements = nbytes // 4
    for name in FIRST_TOUCH:
        params = {"bytes": nbytes}

        def measure(name: str = name, params: dict[str, Any] = params) -> dict[str, Any]:
            if device != "cpu":
                raise NotImplementedError(f"first touch is not supported on {device} (host only)")
            kept = torch.empty(elements)
            function: Callable[[], Any] = (
                (lambda: torch.empty(elements).fill_(1.0))
                if name == "fill-fresh"
                else (lambda: kept.fill_(1.0))
            )
            timing = _timed(function, device, preset)
            return record("host", name, device, "fp32", params, timing=timing, bytes_moved=nbytes)

        yield _guarded("host", name, device, "fp32", params, measure, skip)


def end_to_end(
    device: str, preset: dict[str, Any], skip: Skip = _never
) -> Iterator[dict[str, Any] | None]:
    """One training step (forward, backward, AdamW) of the reference GPT, with peak memory."""
    for config in preset["e2e"]:
        batch = preset["e2e_batch"]
        params = {
            "batch": batch,
            "sequence_length": config.sequence_length,
            "layers": config.layers,
            "hidden": config.hidden,
            "heads": config.heads,
            "vocab_size": config.vocab_size,
        }

        def measure(
            config: GPTConfig = config, batch: int = batch, params: dict[str, Any] = params
        ) -> dict[str, Any]:
            torch.manual_seed(0)
            model = GPT(config).to(device)
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
            ids, targets = torch.randint(
                0, config.vocab_size, (2, batch, config.sequence_length), device=device
            )

            def step() -> None:
                # targets other than the inputs: a loss above zero and gradients of normal
                # magnitude, as in training and in the kernel benchmarks (GPT.forward)
                loss = model(ids, targets)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)

            if device.startswith("cuda"):
                torch.cuda.reset_peak_memory_stats()
            timing = _timed(step, device, preset, warmup=2)
            detail = ""
            if device.startswith("cuda"):
                detail = f"peak_allocated_bytes={torch.cuda.max_memory_allocated()}"
            return record(
                "e2e", "gpt-train-step", device, "fp32", params, timing=timing, detail=detail
            )

        yield _guarded("e2e", "gpt-train-step", device, "fp32", params, measure, skip)


def transfer(
    device: str, preset: dict[str, Any], skip: Skip = _never
) -> Iterator[dict[str, Any] | None]:
    """Host-device copies, pinned and pageable, both directions (CUDA only)."""
    for elements in preset["memory_elements"]:
        for pinned in (True, False):
            for direction in ("host-to-device", "device-to-host"):
                name = f"{direction}-{'pinned' if pinned else 'pageable'}"
                params = {"elements": elements}

                def measure(
                    elements: int = elements,
                    pinned: bool = pinned,
                    direction: str = direction,
                    name: str = name,
                    params: dict[str, Any] = params,
                ) -> dict[str, Any]:
                    if not device.startswith("cuda"):
                        raise NotImplementedError("host-device transfer is not supported on cpu")
                    host = torch.randn(elements, pin_memory=pinned)
                    gpu = torch.empty(elements, device=device)
                    source, target = (host, gpu) if direction == "host-to-device" else (gpu, host)

                    def function() -> None:
                        target.copy_(source, non_blocking=True)

                    timing = _timed(function, device, preset)
                    return record(
                        "transfer",
                        name,
                        device,
                        "fp32",
                        params,
                        timing=timing,
                        bytes_moved=4 * elements,
                    )

                yield _guarded("transfer", name, device, "fp32", params, measure, skip)


def collective(
    device: str, preset: dict[str, Any], skip: Skip = _never
) -> Iterator[dict[str, Any] | None]:
    """See :mod:`mlcost.bench.collectives`."""
    rows = run_collectives(device, preset)
    for row in rows:
        if not skip((row["family"], row["name"], row["device"], row["format"], row["params"])):
            yield row


FAMILIES: dict[str, Callable[..., Iterator[dict[str, Any] | None]]] = {
    "gemm": gemm,
    "bmm": batched_gemm,
    "memory": memory,
    "kernels": kernels,
    "attention": attention,
    "optimizer": optimizer,
    "transfer": transfer,
    "collective": collective,
    "launch": launch,
    "host": host,
    "e2e": end_to_end,
}
