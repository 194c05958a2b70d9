"""Benchmark results: a tidy CSV (one row per measurement) plus JSON metadata, written
atomically after every benchmark, so an interrupted run keeps what it measured and resumes
where it stopped."""

from __future__ import annotations

import datetime
import json
import platform
import socket
from pathlib import Path
from typing import Any

import pandas as pd

from mlcost.io import write_text_atomically

COLUMNS = (
    "family",
    "name",
    "device",
    "format",
    "params",
    "status",
    "median_s",
    "p10_s",
    "p90_s",
    "mean_s",
    "stdev_s",
    "repeats",
    "flops",
    "bytes",
    "detail",
)
STATUSES = ("ok", "oom", "unsupported", "error")


def record(
    family: str,
    name: str,
    device: str,
    format: str,
    params: dict[str, Any],
    *,
    status: str = "ok",
    timing: Any = None,
    flops: float = 0.0,
    bytes_moved: float = 0.0,
    detail: str = "",
) -> dict[str, Any]:
    """One result row. ``timing`` is a :class:`mlcost.bench.timer.Timing` when status is ok."""
    if status not in STATUSES:
        raise ValueError(f"status: got {status!r}, expected one of {STATUSES}")
    row: dict[str, Any] = {
        "family": family,
        "name": name,
        "device": device,
        "format": format,
        "params": json.dumps(params, sort_keys=True),
        "status": status,
        "flops": float(flops),
        "bytes": float(bytes_moved),
        "detail": detail,
        "median_s": None,
        "p10_s": None,
        "p90_s": None,
        "mean_s": None,
        "stdev_s": None,
        "repeats": 0,
    }
    if timing is not None:
        row.update(
            median_s=timing.median,
            p10_s=timing.p10,
            p90_s=timing.p90,
            mean_s=timing.mean,
            stdev_s=timing.stdev,
            repeats=timing.repeats,
        )
    return row


def key_of(row: dict[str, Any] | pd.Series) -> tuple[str, str, str, str, str]:
    return (
        str(row["family"]),
        str(row["name"]),
        str(row["device"]),
        str(row["format"]),
        str(row["params"]),
    )


class ResultStore:
    """``results.csv`` and ``metadata.json`` in one folder."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.results = self.directory / "results.csv"
        self.metadata = self.directory / "metadata.json"

    def load(self) -> pd.DataFrame:
        if not self.results.exists():
            return pd.DataFrame(columns=list(COLUMNS))
        return pd.read_csv(
            self.results,
            keep_default_na=False,
            na_values={c: [""] for c in ("median_s", "p10_s", "p90_s", "mean_s", "stdev_s")},
        )

    def done(self) -> set[tuple[str, str, str, str, str]]:
        """Keys of the measurements already stored (any status): a resumed run skips them."""
        return {key_of(row) for _, row in self.load().iterrows()}

    def append(self, rows: list[dict[str, Any]]) -> None:
        """Add rows and rewrite the CSV atomically (never half a file)."""
        if not rows:
            return
        frame = pd.concat(
            [self.load(), pd.DataFrame(rows, columns=list(COLUMNS))], ignore_index=True
        )
        write_text_atomically(self.results, frame.to_csv(index=False))

    def write_metadata(self, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        data = environment()
        if extra:
            data.update(extra)
        write_text_atomically(self.metadata, json.dumps(data, indent=2, default=str))
        return data


def environment() -> dict[str, Any]:
    """Where and with what the measurements were taken."""
    info: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "python": platform.python_version(),
    }
    try:
        import torch

        info["torch"] = torch.__version__
        info["cpu_threads"] = torch.get_num_threads()
        if torch.cuda.is_available():
            properties = torch.cuda.get_device_properties(0)
            info.update(
                device=properties.name,
                cuda=torch.version.cuda,
                memory_bytes=properties.total_memory,
                sm_count=properties.multi_processor_count,
                driver=_nvidia_driver(),
            )
    except ImportError:
        info["torch"] = None
    return info


def _nvidia_driver() -> str | None:
    try:
        import subprocess

        output = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        return output.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None
