"""Collectives through ``torch.distributed`` over a payload sweep: all-reduce, all-gather,
reduce-scatter, all-to-all. NCCL on GPUs, gloo on the CPU.

Under ``torchrun`` (``WORLD_SIZE`` set) the calling processes are the ranks, so the same command
measures 2 processes on a laptop, 8 GPUs in a node or many nodes. Without it, :func:`run_local`
starts ``world_size`` local processes itself (a file-based rendezvous: no network needed).
Times are the slowest rank's median; bytes are the payload per rank.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist

from mlcost.bench.store import record
from mlcost.bench.timer import Timing, time_callable

COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all")
ITERATIONS = 20


def _operation(name: str, tensor: torch.Tensor, world: int) -> Callable[[], Any]:
    if name == "all_reduce":
        return lambda: dist.all_reduce(tensor)
    if name == "all_gather":
        outputs = [torch.empty_like(tensor) for _ in range(world)]
        return lambda: dist.all_gather(outputs, tensor)
    if name == "reduce_scatter":
        inputs = list(tensor.chunk(world))
        output = torch.empty_like(inputs[0])
        return lambda: dist.reduce_scatter(output, inputs)
    output = torch.empty_like(tensor)
    return lambda: dist.all_to_all_single(output, tensor)


def measure_on_this_rank(device: str, sizes: list[int], repeats: int) -> list[dict[str, Any]]:
    """Run the sweep on an initialized process group; returns rows on rank 0 (empty elsewhere)."""
    rank, world = dist.get_rank(), dist.get_world_size()
    backend = dist.get_backend()
    rows = []
    for name in COLLECTIVES:
        for elements in sizes:
            elements -= elements % world
            tensor = torch.ones(elements, device=device)
            params = {"elements": elements, "world_size": world, "backend": backend}
            try:
                operation = _operation(name, tensor, world)

                iterations = max(1, min(ITERATIONS, 2**20 // max(elements, 1)))

                def loop(operation: Callable[[], Any] = operation, n: int = iterations) -> None:
                    # Back-to-back calls, as nccl-tests times them: one call alone measures the
                    # ranks' scheduling skew more than the collective.
                    for _ in range(n):
                        operation()

                dist.barrier()
                batch = time_callable(loop, device=device, repeats=repeats)
                timing = Timing(tuple(t / iterations for t in batch.samples))
                slowest = torch.tensor([timing.median], dtype=torch.float64)
                if backend == "nccl":
                    slowest = slowest.to(device)
                dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
                row = record(
                    "collective",
                    name,
                    device,
                    "fp32",
                    params,
                    timing=timing,
                    bytes_moved=4 * elements,
                )
                row["median_s"] = float(slowest.item())
            except (RuntimeError, ValueError) as error:
                text = str(error)
                status = "unsupported" if "support" in text.lower() else "error"
                row = record(
                    "collective", name, device, "fp32", params, status=status, detail=text[:200]
                )
            rows.append(row)
    return rows if rank == 0 else []


def _worker(
    rank: int, world: int, store: str, device: str, sizes: list[int], repeats: int, output: str
) -> None:
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    try:
        rows = measure_on_this_rank(device, sizes, repeats)
        if rank == 0:
            torch.save(rows, output)
    finally:
        dist.destroy_process_group()


def run_local(sizes: list[int], *, world_size: int = 2, repeats: int = 5) -> list[dict[str, Any]]:
    """Spawn ``world_size`` CPU processes with gloo and return rank 0's rows."""
    import torch.multiprocessing as mp

    with tempfile.TemporaryDirectory() as folder:
        store = os.path.join(folder, "rendezvous")
        output = os.path.join(folder, "rows.pt")
        mp.spawn(  # type: ignore[attr-defined]
            _worker,
            args=(world_size, store, "cpu", sizes, repeats, output),
            nprocs=world_size,
            join=True,
        )
        rows: list[dict[str, Any]] = torch.load(output, weights_only=False)
    return rows


def collectives(device: str, preset: dict[str, Any], skip: Any = None) -> list[dict[str, Any]]:
    """The collective sweep as a benchmark family: under torchrun, on the existing ranks;
    otherwise 2 local gloo processes on the CPU."""
    sizes = preset.get("collective_elements", [2**10, 2**14, 2**17, 2**20])
    if "WORLD_SIZE" in os.environ:
        if not dist.is_initialized():
            backend = "nccl" if device.startswith("cuda") else "gloo"
            dist.init_process_group(backend)
            if device.startswith("cuda"):
                torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        return measure_on_this_rank(device, sizes, preset["repeats"])
    if device.startswith("cuda"):
        return [
            record(
                "collective",
                "all",
                device,
                "fp32",
                {},
                status="unsupported",
                detail="run under torchrun to measure NCCL collectives",
            )
        ]
    return run_local(sizes, repeats=preset["repeats"])
