"""Benchmark results: a tidy CSV (one row per measurement) plus JSON metadata, written
atomically after every benchmark, so an interrupted run keeps what it measured and resumes
where it stopped."""

from __future__ import annotations

import datetime
import io
import json
import platform
import re
import socket
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mlcost.errors import MlcostError, UnknownNameError
from mlcost.io import make_output_folder, read_input_text, write_text_atomically

if TYPE_CHECKING:
    import pandas as pd

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
    "best_s",
    "attempts",
)
#: Columns a results.csv written before they existed lacks (read as missing: its rows are
#: fitted from their median, :func:`measured_seconds`).
LATER_COLUMNS = ("best_s", "attempts")
STATUSES = ("ok", "oom", "unsupported", "error", "skipped")


#: The compute formats a GEMM benchmark can be asked for.
BENCH_FORMATS = ("fp32", "tf32", "fp16", "bf16", "fp8")
#: The benchmark families and presets (their code: :mod:`mlcost.bench.suites`, which needs torch).
FAMILY_NAMES = (
    "gemm",
    "bmm",
    "memory",
    "kernels",
    "attention",
    "optimizer",
    "transfer",
    "collective",
    "launch",
    "host",
    "e2e",
)
PRESET_NAMES = ("quick", "full")
_DEVICE = re.compile(r"^(cpu|cuda(:\d+)?)$")


def check_request(
    device: str,
    preset: str,
    families: Iterable[str] | None = None,
    formats: Iterable[str] | None = None,
) -> None:
    """Refuse an unknown device, preset, family or format with one line (before torch loads)."""
    if not _DEVICE.match(device):
        raise MlcostError(f"--device: got {device!r}, expected cpu, cuda or cuda:N")
    if preset not in PRESET_NAMES:
        raise UnknownNameError("preset", preset, PRESET_NAMES)
    for family in families or ():
        if family not in FAMILY_NAMES:
            raise UnknownNameError("benchmark family", family, FAMILY_NAMES)
    for fmt in formats or ():
        if fmt not in BENCH_FORMATS:
            raise UnknownNameError("GEMM format", fmt, BENCH_FORMATS)


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
        "best_s": None,
        "attempts": 0,
    }
    if timing is not None:
        row.update(
            best_s=timing.best,
            attempts=timing.attempts,
            median_s=timing.median,
            p10_s=timing.p10,
            p90_s=timing.p90,
            mean_s=timing.mean,
            stdev_s=timing.stdev,
            repeats=timing.repeats,
        )
    return row


_TIMES = ("median_s", "p10_s", "p90_s", "mean_s", "stdev_s", "best_s")


def measured_seconds(results: pd.DataFrame) -> pd.Series:
    """The seconds a measurement is judged and fitted by: its fastest repetition (``best_s``,
    :attr:`mlcost.bench.timer.Timing.best`: other work on a shared machine only ever slows a
    repetition down), or its median where the results predate ``best_s``."""
    best = results["best_s"].astype(float) if "best_s" in results else None
    median = results["median_s"].astype(float)
    return median if best is None else best.where(best.notna() & (best > 0), median)


def results_path(location: str | Path) -> Path:
    """The ``results.csv`` a user points at: the file itself or the folder that holds it."""
    path = Path(location)
    csv = path if path.suffix == ".csv" else path / "results.csv"
    if not csv.is_file():
        raise MlcostError(
            f"results: no results.csv at {path}; expected a folder written by 'mlcost bench' "
            "(or its results.csv); run 'mlcost bench --out FOLDER' first"
        )
    return csv


def read_results_csv(location: str | Path) -> pd.DataFrame:
    """The rows of a ``results.csv`` written by ``mlcost bench``, checked as they are read.

    A truncated or foreign file (missing columns, unknown statuses, times that are not numbers,
    ``params`` that are not JSON) is refused with one line naming the file and the first problem.
    """
    import pandas as pd  # where read: a benchmark's own processes never load it

    csv = results_path(location)
    text = read_input_text(csv)
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            keep_default_na=False,
            na_values={c: [""] for c in _TIMES},
            dtype={"family": str, "name": str, "device": str, "format": str, "params": str},
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else "empty"
        raise MlcostError(
            f"results: {csv} is not a results.csv of 'mlcost bench' ({first})"
        ) from None
    for column in LATER_COLUMNS:
        if column not in frame.columns:
            frame[column] = float("nan") if column.endswith("_s") else 0
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise MlcostError(
            f"results: {csv} lacks the column(s) {', '.join(missing)}; expected the columns "
            "'mlcost bench' writes (a truncated or foreign file?)"
        )
    problems: list[str] = []
    bad_status = sorted(set(frame["status"].astype(str)) - set(STATUSES))
    if bad_status:
        problems.append(f"status {bad_status[0]!r} (expected one of {', '.join(STATUSES)})")
    for column in (*_TIMES, "flops", "bytes", "repeats", "attempts"):
        values = pd.to_numeric(frame[column], errors="coerce")
        if (values.isna() & frame[column].notna()).any():
            row = int((values.isna() & frame[column].notna()).to_numpy().nonzero()[0][0])
            problems.append(
                f"row {row + 2} {column} {frame[column].iloc[row]!r} (expected a number)"
            )
        frame[column] = values
    ok = frame["status"] == "ok"
    for column in ("median_s", "p10_s", "p90_s"):
        timed = frame.loc[ok, column]
        bad = ~((timed > 0) & (timed < float("inf")))
        if bad.any():
            row = int(timed.index[bad][0])
            problems.append(
                f"row {row + 2} {column} {float(frame[column].iloc[row])!r} (expected a finite "
                "time > 0 on a row with status ok)"
            )
            break
    for row, params in enumerate(frame["params"]):
        try:
            if not isinstance(json.loads(str(params)), dict):
                raise ValueError
        except ValueError:
            problems.append(f"row {row + 2} params {str(params)[:40]!r} (expected a JSON object)")
            break
    if problems:
        raise MlcostError(f"results: {csv}: {problems[0]}; expected rows written by 'mlcost bench'")
    return frame


def successful_rows(frame: pd.DataFrame, location: str | Path) -> pd.DataFrame:
    """The rows of ``frame`` with status ``ok``; refused (one line) when there are none, which
    nothing can be fitted from or compared with."""
    ok = frame[frame["status"] == "ok"]
    if ok.empty:
        statuses = ", ".join(f"{k} {v}" for k, v in frame["status"].value_counts().items())
        raise MlcostError(
            f"results: {location} has no successful measurement ({statuses or 'no rows'}); "
            "expected at least one row with status ok; rerun 'mlcost bench' (see its 'detail' "
            "column for why the rows failed)"
        )
    return ok


def read_metadata(location: str | Path) -> dict[str, Any]:
    """``metadata.json`` beside a results.csv (empty when absent), refused when not a JSON
    object."""
    path = results_path(location).parent / "metadata.json"
    if not path.exists():
        return {}
    try:
        data = json.loads(read_input_text(path))
    except json.JSONDecodeError as error:
        raise MlcostError(f"results: {path} is not valid JSON ({error.msg})") from None
    if not isinstance(data, dict):
        raise MlcostError(f"results: {path} is not a JSON object")
    return data


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
        make_output_folder(self.directory, option="--out")
        self.results = self.directory / "results.csv"
        self.metadata = self.directory / "metadata.json"

    def load(self) -> pd.DataFrame:
        import pandas as pd

        if not self.results.exists():
            return pd.DataFrame(columns=list(COLUMNS))
        return read_results_csv(self.results)

    def done(self) -> set[tuple[str, str, str, str, str]]:
        """Keys of the measurements already stored (any status): a resumed run skips them."""
        return {key_of(row) for _, row in self.load().iterrows()}

    def append(self, rows: list[dict[str, Any]]) -> None:
        """Add rows and rewrite the CSV atomically (never half a file)."""
        if not rows:
            return
        import pandas as pd

        frame = pd.concat(
            [self.load(), pd.DataFrame(rows, columns=list(COLUMNS))], ignore_index=True
        )
        write_text_atomically(self.results, frame.to_csv(index=False))

    def replace(
        self,
        row: dict[str, Any],
        choose: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]],
    ) -> None:
        """Put ``choose(stored, row)`` in place of the stored row with ``row``'s key (or append
        ``row`` when there is none), rewriting the CSV atomically."""
        import pandas as pd

        frame = self.load()
        keys = [key_of(stored) for _, stored in frame.iterrows()]
        if key_of(row) not in keys:
            self.append([row])
            return
        index = keys.index(key_of(row))
        stored = {c: _plain(frame.iloc[index][c]) for c in COLUMNS}
        chosen = choose(stored, row)
        frame.iloc[index] = pd.Series({c: chosen.get(c) for c in COLUMNS})
        write_text_atomically(self.results, frame.to_csv(index=False))

    def write_metadata(self, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        data = environment()
        if extra:
            data.update(extra)
        write_text_atomically(self.metadata, json.dumps(data, indent=2, default=str))
        return data


def _plain(value: Any) -> Any:
    """A CSV cell as Python: ``None`` for a missing number, else the value itself."""
    if isinstance(value, float) and value != value:  # NaN
        return None
    return value.item() if hasattr(value, "item") else value


def environment() -> dict[str, Any]:
    """Where and with what the measurements were taken."""
    info: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
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
                gpu=properties.name,  # the runner's own "device" ("cuda") is kept beside it
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
