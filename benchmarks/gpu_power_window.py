"""How fast a power-limited GPU's clock follows its load: the time its power limiter averages.

Issue 61 left one question open: a pipeline-parallel step leaves each stage idle for its bubble
(warm-up and cool-down, (pp - 1) micro-batch slots, hundreds of milliseconds), and the 700 W
limiter lets a GEMM run faster when less power is drawn around it (``power_duty.json``: 4096^3
BF16 GEMMs at 0.924 of the burst ceiling back to back, 1.022 at a 50 % duty cycle of
micro-second copies). Whether the bubble raises the clock of the compute that follows it depends
on how long the limiter averages. This script measures it, on one GPU, with nothing but
BF16 GEMMs and idle time:

* **step response**: after 3 s idle, GEMMs back to back for 2.5 s; every GEMM's time (CUDA events)
  against its offset from the first, so the clock's fall from its boost value is seen directly;
* **square waves**: bursts of back-to-back GEMMs then the GPU idle (host asleep), periods 4 ms to
  1.3 s at duty cycles 1/2 and 0.7 (0.7 at 1.3 s is about the 4,608-GPU GPT-3 row: 12 micro-batches
  busy, 5 idle); each GEMM's time against its offset inside its burst.

The SM clock and power are sampled through NVML every ~5 ms beside it (``nvml.csv``). GEMM time of a
compute-bound GEMM is inversely proportional to the SM clock, so the GEMM timeline is itself a
clock record at the GEMM's resolution. Nothing here is fitted.

Run: ``OUT=dir python3 benchmarks/gpu_power_window.py`` (``--dry`` on the CPU: toy sizes, no clock).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import torch

BF16 = torch.bfloat16


class Clock:
    """GPU-side timestamps (CUDA events) or, on the CPU, the host's clock after each product."""

    def __init__(self, device: str):
        self.cuda = device.startswith("cuda")
        self.marks: list[Any] = []

    def mark(self) -> None:
        if self.cuda:
            event = torch.cuda.Event(enable_timing=True)
            event.record()
            self.marks.append(event)
        else:
            self.marks.append(time.perf_counter())

    def offsets(self) -> list[float]:
        """Seconds from the first mark to each mark (waits for the GPU)."""
        if self.cuda:
            torch.cuda.synchronize()
            first = self.marks[0]
            return [first.elapsed_time(e) / 1e3 for e in self.marks]
        return [t - self.marks[0] for t in self.marks]


def products(a: torch.Tensor, b: torch.Tensor, count: int, clock: Clock) -> None:
    clock.mark()
    for _ in range(count):
        a @ b
        clock.mark()


def burst(a: torch.Tensor, b: torch.Tensor, count: int) -> dict[str, list[float]]:
    clock = Clock(str(a.device))
    products(a, b, count, clock)
    offsets = clock.offsets()
    return {
        "end_offset_s": offsets[1:],
        "gemm_s": [b - a for a, b in itertools.pairwise(offsets)],
    }


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else float("nan")


WINDOWS = ((0.0, 0.005), (0.005, 0.02), (0.02, 0.1), (0.1, 0.5), (0.5, 1.5), (1.5, 99.0))


def by_window(bursts: list[dict[str, Any]]) -> dict[str, float]:
    """Median GEMM time per offset window inside its burst, over every burst."""
    out = {}
    for lo, hi in WINDOWS:
        times = [
            t
            for one in bursts
            for end, t in zip(one["end_offset_s"], one["gemm_s"], strict=True)
            if lo <= end < hi
        ]
        if times:
            out[f"{lo * 1e3:g}-{hi * 1e3:g}ms"] = median(times)
    return out


class Sampler(threading.Thread):
    """SM clock (MHz) and power (W) through NVML every ~5 ms, with host timestamps."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.rows: list[tuple[float, int, float, float]] = []
        self.stop = threading.Event()
        import pynvml

        self.nvml = pynvml
        pynvml.nvmlInit()
        self.handle = pynvml.nvmlDeviceGetHandleByIndex(0)

    def instant_power(self) -> float:
        try:
            field = self.nvml.NVML_FI_DEV_POWER_INSTANT
            value = self.nvml.nvmlDeviceGetFieldValues(self.handle, [field])[0]
            return float(value.value.uiVal) / 1e3 if value.nvmlReturn == 0 else float("nan")
        except Exception:  # an older driver or binding without the field
            return float("nan")

    def run(self) -> None:
        nvml = self.nvml
        while not self.stop.is_set():
            clock = nvml.nvmlDeviceGetClockInfo(self.handle, nvml.NVML_CLOCK_SM)
            power = nvml.nvmlDeviceGetPowerUsage(self.handle) / 1e3
            self.rows.append((time.time(), clock, power, self.instant_power()))
            time.sleep(0.005)

    def write(self, path: Path) -> None:
        with path.open("w") as handle:
            handle.write("time_s,sm_mhz,power_w,power_instant_w\n")
            for row in self.rows:
                handle.write(",".join(str(v) for v in row) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry", action="store_true", help="toy sizes on the CPU")
    args = parser.parse_args()
    device = "cpu" if args.dry else "cuda"
    out = Path(os.environ.get("OUT", "/tmp/power-window"))
    out.mkdir(parents=True, exist_ok=True)
    scale = 0.02 if args.dry else 1.0
    sampler = None
    if not args.dry:
        try:
            sampler = Sampler()
            sampler.start()
        except Exception as error:  # no NVML binding: the GEMM timeline alone
            print(f"no NVML sampler: {error}")
    results: dict[str, Any] = {"start_epoch": time.time(), "sizes": {}}
    if device == "cuda":
        results["gpu"] = torch.cuda.get_device_name(0)
        results["torch"] = torch.__version__
    path = out / "power_window.json"
    try:
        for n in [64] if args.dry else [4096, 8192]:
            a = torch.randn(n, n, device=device, dtype=BF16)
            b = torch.randn(n, n, device=device, dtype=BF16)
            time.sleep(3 * scale)
            boost = median(burst(a, b, 20)["gemm_s"][5:])  # the first products, cool GPU
            entry: dict[str, Any] = {"boost_gemm_s": boost, "tflops_boost": 2 * n**3 / boost / 1e12}
            steps: list[dict[str, Any]] = []
            for _ in range(2):
                time.sleep(3 * scale)
                start = time.time()
                one = burst(a, b, max(20, int(2.5 * scale / boost)))
                steps.append({"start_epoch": start, **one})
            windows = by_window(steps)
            entry["step_response"] = steps
            entry["step_response_windows"] = windows
            waves: list[dict[str, Any]] = []
            for period, duty in (
                (0.004, 0.5),
                (0.02, 0.5),
                (0.1, 0.5),
                (0.4, 0.5),
                (1.3, 0.5),
                (0.1, 0.7),
                (1.3, 0.7),
            ):
                time.sleep(2 * scale)
                count = max(1, round(period * duty / boost))
                total = max(4.0, 3.5 * period) * scale
                bursts = []
                idle = []
                start = time.time()
                while time.time() - start < total:
                    bursts.append(burst(a, b, count))  # returns after the GPU finished
                    rest = time.perf_counter()
                    time.sleep(period * (1 - duty) * scale)
                    idle.append(time.perf_counter() - rest)
                busy = median([one["end_offset_s"][-1] for one in bursts])
                waves.append(
                    {
                        "period_s": period,
                        "duty": duty,
                        "start_epoch": start,
                        "gemms_per_burst": count,
                        "bursts": len(bursts),
                        "median_busy_s": busy,
                        "median_idle_s": median(idle),
                        "achieved_duty": busy / (busy + median(idle)),
                        "windows": by_window(bursts),
                        "median_gemm_s": median([t for one in bursts for t in one["gemm_s"]]),
                        "last_bursts": bursts[-3:],
                    }
                )
            entry["square_waves"] = waves
            results["sizes"][str(n)] = entry
            path.write_text(json.dumps(results))
            steady = windows.get("1500-99000ms", float("nan"))
            print(f"n={n}: boost {boost * 1e3:.3f} ms, steady (after 1.5 s) {steady * 1e3:.3f} ms")
            print(
                "  step response windows (ms):", {k: round(v * 1e3, 4) for k, v in windows.items()}
            )
            for wave in waves:
                print(f"  P={wave['period_s']}s duty={wave['duty']} achieved "
                      f"{wave['achieved_duty']:.2f} median {wave['median_gemm_s'] * 1e3:.4f} ms",
                      {k: round(v * 1e3, 4) for k, v in wave["windows"].items()})  # fmt: skip
    finally:
        results["end_epoch"] = time.time()
        path.write_text(json.dumps(results))
        if sampler is not None:
            sampler.stop.set()
            sampler.join()
            sampler.write(out / "nvml.csv")


if __name__ == "__main__":
    main()
