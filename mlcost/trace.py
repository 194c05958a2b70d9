"""A PyTorch profiler trace of a few training steps, read and matched to mlcost's operator table.

The trace is the Chrome/Kineto JSON that ``torch.profiler.profile(...).export_chrome_trace``
and ``torch.profiler.tensorboard_trace_handler`` write (gzipped or not). It is read with the
standard library's ``json`` and ``gzip``: the format is a list of ``traceEvents`` (the Chrome
Trace Event Format, https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU),
and the fields used here are the ones Kineto documents (``cat`` ``cpu_op``, ``kernel``,
``gpu_memcpy``, ``gpu_memset``, ``user_annotation``, ``[memory]`` instant events; ``args``
``External id``, ``Input Dims``, ``Total Allocated``, ``Total Reserved``). HolisticTraceAnalysis
(``pip install HolisticTraceAnalysis``) parses the same files into pandas, but its 0.5.0 requires
JupyterLab, plotly, pydot, networkx and pytest at run time: more than this reader of a
documented format is worth (docs/calibration.md).

Each step is the interval of one ``ProfilerStep#N`` annotation (the ``schedule``'s active steps).
Its work is split into the operator table's kinds (:class:`mlcost.workload.OperatorKind`):

* on a GPU, every kernel, memory copy and memset launched from inside the step, by the CPU
  operator that launched it (its ``External id``); on a CPU trace, every operator's self time
  (its duration less its children's);
* the kind of an operator is the first that matches, from the operator outwards through its
  callers (:data:`KIND_PATTERNS`): ``aten::mm``/``addmm``/``bmm`` are ``matmul``; an attention
  kernel (``scaled_dot_product``, ``flash``, ``cudnn_attention``, ``efficient_attention``)
  ``attention``; layer/RMS norm ``norm``; GELU/SiLU ``activation``; log-softmax and NLL
  ``loss``; embedding ``embedding``; everything inside ``Optimizer.step`` ``optimizer``; NCCL
  ``communication``; the rest (adds, casts, copies, fills) ``elementwise``;
* ``idle``: the step's wall time not covered by its kernels (a GPU waiting for the host:
  launch and dispatch gaps); on a CPU trace, the time outside any operator (Python).
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from mlcost.errors import MlcostError
from mlcost.io import read_input_bytes

if TYPE_CHECKING:
    import pandas as pd

#: The classes a step is split into: the operator table's kinds that a transformer step has,
#: ``communication`` and ``idle`` (time no kernel covers).
TRACE_CLASSES: tuple[str, ...] = (
    "matmul",
    "attention",
    "softmax",
    "norm",
    "activation",
    "elementwise",
    "embedding",
    "loss",
    "optimizer",
    "communication",
    "idle",
)

#: (kind, pattern) in the order they are tried on an operator's name, from the operator that
#: ran the work outwards through its callers; the first match wins (``elementwise`` when none).
KIND_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("optimizer", re.compile(r"^Optimizer\.(step|zero_grad)")),
    ("communication", re.compile(r"nccl|c10d::|all_reduce|allreduce|all_gather|reduce_scatter")),
    (
        "attention",
        re.compile(r"scaled_dot_product|flash_attention|cudnn_attention|efficient_attention|sdpa"),
    ),
    ("loss", re.compile(r"log_softmax|nll_loss|cross_entropy|NllLoss|LogSoftmax")),
    ("norm", re.compile(r"layer_norm|rms_norm|LayerNorm|RmsNorm|group_norm")),
    ("activation", re.compile(r"gelu|silu|swiglu|relu|Gelu|Silu|Relu")),
    ("embedding", re.compile(r"embedding|Embedding")),
    ("softmax", re.compile(r"^aten::_?softmax|SoftmaxBackward")),
)
#: The GEMM operators: ``matmul`` only where the work ran in the operator itself (a cast under
#: ``aten::linear`` is element-wise work).
GEMM_OPERATORS = frozenset({"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm"})
#: The categories of device work in a Kineto trace.
DEVICE_CATEGORIES = frozenset({"kernel", "gpu_memcpy", "gpu_memset"})


@dataclass(frozen=True)
class _Op:
    """One CPU operator (or annotation) of the trace, with its caller."""

    name: str
    start: float  # microseconds
    duration: float
    parent: int  # index of the caller in the operator list, -1 at the top
    dims: tuple[Any, ...]
    external: int | None
    thread: tuple[Any, Any]
    children_duration: float = 0.0


@dataclass(frozen=True)
class Work:
    """One piece of timed work of a step: a device kernel, or a CPU operator's self time."""

    step: int
    kind: str
    operator: str
    name: str
    seconds: float
    dims: tuple[Any, ...] = ()
    backward: bool = False
    call: int = -1  # the operator call it belongs to (kernels of one GEMM call share it)


@dataclass(frozen=True)
class Trace:
    """What a profiler trace says about the steps it holds (module docstring): every piece of
    timed work (:class:`Work`), each step's wall time, the device, and the memory peaks of its
    ``[memory]`` events (``None`` where the trace has none)."""

    path: str
    device: str
    steps: tuple[float, ...]  # wall seconds of each ProfilerStep
    work: tuple[Work, ...]
    peak_allocated: float | None = None  # bytes
    peak_reserved: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def step_count(self) -> int:
        return len(self.steps)

    def class_seconds(self) -> dict[str, float]:
        """Per class (:data:`TRACE_CLASSES`), the seconds per step: the median over the traced
        steps of the class's work in each (the mean of two; a step a loaded machine disturbed
        weighs less in three or more), and ``idle`` the step's wall time no work covers."""
        medians = np.median(self._per_step(), axis=0).tolist()
        classes = dict(zip(TRACE_CLASSES, medians, strict=True))
        classes["idle"] = max(self.step_seconds - self.busy_seconds, 0.0)
        return classes

    @property
    def step_seconds(self) -> float:
        """The median wall time of the traced steps."""
        return float(np.median(self.steps))

    @property
    def busy_seconds(self) -> float:
        """The time per step the device spends in work (kernels, or CPU operators): the sum of
        the classes' medians (:meth:`class_seconds`)."""
        return float(np.median(self._per_step(), axis=0).sum())

    def _per_step(self) -> npt.NDArray[np.float64]:
        """Seconds of work per step (rows) and class (columns, :data:`TRACE_CLASSES`)."""
        per_step = np.zeros((self.step_count, len(TRACE_CLASSES)))
        for piece in self.work:
            per_step[piece.step, TRACE_CLASSES.index(piece.kind)] += piece.seconds
        return per_step

    def to_frame(self) -> pd.DataFrame:
        """One row per piece of work."""
        import pandas as pd

        return pd.DataFrame([piece.__dict__ for piece in self.work])


#: The largest trace file read (4 GiB) and the largest JSON text a compressed one may unpack to
#: (16 GiB): a profiled step of a large model writes a few hundred MB of JSON (torch.profiler
#: with shapes and stacks), so these bound a stream or a gzip bomb, not a real trace.
MAX_TRACE_BYTES = 4 * 2**30
MAX_TRACE_TEXT_BYTES = 16 * 2**30


def _gunzip(raw: bytes, name: str) -> bytes:
    """``raw`` decompressed (gzip), refused past :data:`MAX_TRACE_TEXT_BYTES`."""
    unpacked = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS).decompress(
        raw, MAX_TRACE_TEXT_BYTES + 1
    )
    if len(unpacked) > MAX_TRACE_TEXT_BYTES:
        raise MlcostError(
            f"trace: {name} unpacks to more than {MAX_TRACE_TEXT_BYTES // 2**30} GiB; expected a "
            "profiler trace of a few steps"
        )
    return unpacked


def load_trace_json(path: str | Path) -> dict[str, Any]:
    """The JSON object of a Chrome trace file (gzip detected by its magic bytes), bounded:
    the file at most :data:`MAX_TRACE_BYTES` and a regular file (a FIFO or device is refused,
    :func:`mlcost.io.read_input_bytes`), its decompressed text at most
    :data:`MAX_TRACE_TEXT_BYTES` (a gzip bomb is refused, not unpacked)."""
    file = Path(path)
    if not file.is_file():
        raise MlcostError(
            f"trace: {str(file)!r} is not a file; expected a PyTorch profiler trace "
            "(export_chrome_trace, .json or .json.gz)"
        )
    raw = read_input_bytes(file, limit=MAX_TRACE_BYTES, what="a PyTorch profiler trace")
    try:
        text = _gunzip(raw, file.name) if raw[:2] == b"\x1f\x8b" else raw
        data = json.loads(text)
    except (OSError, EOFError, ValueError, zlib.error) as error:
        raise MlcostError(
            f"trace: {file.name} is not readable JSON ({str(error).splitlines()[0][:80]}); "
            "expected the file torch.profiler's export_chrome_trace writes"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("traceEvents"), list):
        raise MlcostError(
            f"trace: {file.name} has no 'traceEvents' list; expected a Chrome trace of "
            "torch.profiler (export_chrome_trace or tensorboard_trace_handler)"
        )
    return data


def kind_of(names: list[str]) -> str:
    """The kind of work run by the operator ``names[0]`` called by ``names[1:]`` (innermost
    first; module docstring): ``optimizer`` anywhere in the callers wins, then the first
    pattern of :data:`KIND_PATTERNS` that matches from the inside out, then ``matmul`` for a
    GEMM operator, else ``elementwise``."""
    optimizer = KIND_PATTERNS[0][1]
    if any(optimizer.search(name) for name in names):
        return "optimizer"
    for name in names:
        if name in GEMM_OPERATORS and name is names[0]:
            return "matmul"
        for kind, pattern in KIND_PATTERNS[1:]:
            if pattern.search(name):
                return kind
    return "elementwise"


def _operators(events: list[dict[str, Any]]) -> list[_Op]:
    """The CPU operators and annotations, each with its caller (nesting of intervals on one
    thread) and the summed duration of its direct children."""
    cpu = [
        e
        for e in events
        if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "user_annotation")
        and not str(e.get("name", "")).startswith("ProfilerStep#")
    ]  # fmt: skip
    cpu.sort(key=lambda e: (e.get("pid"), e.get("tid"), float(e["ts"]), -float(e.get("dur", 0))))
    ops: list[_Op] = []
    children = [0.0] * len(cpu)
    stack: list[int] = []
    thread: tuple[Any, Any] | None = None
    for event in cpu:
        here = (event.get("pid"), event.get("tid"))
        if here != thread:
            stack, thread = [], here
        start, duration = float(event["ts"]), float(event.get("dur", 0.0))
        while stack and ops[stack[-1]].start + ops[stack[-1]].duration <= start:
            stack.pop()
        parent = stack[-1] if stack else -1
        args = event.get("args", {})
        ops.append(
            _Op(
                name=str(event["name"]),
                start=start,
                duration=duration,
                parent=parent,
                dims=tuple(args.get("Input Dims", ())),
                external=args.get("External id"),
                thread=here,
            )
        )
        if parent >= 0:
            children[parent] += duration
        stack.append(len(ops) - 1)
    return [_Op(**{**op.__dict__, "children_duration": children[i]}) for i, op in enumerate(ops)]


def _callers(ops: list[_Op], index: int) -> list[str]:
    names = []
    while index >= 0:
        names.append(ops[index].name)
        index = ops[index].parent
    return names


def _step_of(start: float, steps: list[tuple[float, float]]) -> int | None:
    for number, (begin, end) in enumerate(steps):
        if begin <= start < end:
            return number
    return None


def _memory_peak(
    events: list[dict[str, Any]], marks: list[tuple[float, float]], device: str, field: str
) -> float | None:
    """The largest ``field`` (``Total Allocated``, ``Total Reserved``) of the ``[memory]``
    events inside the steps on ``device`` (Kineto's ``Device Type``: 0 the CPU, 1 CUDA)."""
    values = [
        float(e["args"][field])
        for e in events
        if e.get("name") == "[memory]"
        and field in e.get("args", {})
        and (device == "cpu") == (e["args"].get("Device Type", 0) == 0)
        and _step_of(float(e["ts"]), marks) is not None
    ]
    return max(values) if values else None


def read_trace(path: str | Path) -> Trace:
    """Read a PyTorch profiler trace (module docstring) into a :class:`Trace`.

    Raises :class:`mlcost.errors.MlcostError` with a one-line message when the file cannot be
    read, has no ``ProfilerStep#N`` step, or no operator inside its steps."""
    data = load_trace_json(path)
    events = [e for e in data["traceEvents"] if isinstance(e, dict)]
    name = Path(path).name
    marks = sorted(
        (float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0)))
        for e in events
        if e.get("ph") == "X"
        and e.get("cat") == "user_annotation"
        and str(e.get("name", "")).startswith("ProfilerStep#")
    )
    if not marks:
        raise MlcostError(
            f"trace: {name} has no ProfilerStep#N annotation; expected a trace recorded with "
            "torch.profiler.profile(schedule=...) and profiler.step() after every training step"
        )
    ops = _operators(events)
    device_events = [e for e in events if e.get("cat") in DEVICE_CATEGORIES and e.get("ph") == "X"]
    device = "cuda" if device_events else "cpu"
    # (step, operator index, the work's name, microseconds) of every piece of timed work
    timed: list[tuple[int | None, int, str, float]] = []
    if device_events:
        by_external = {op.external: i for i, op in enumerate(ops) if op.external is not None}
        for event in device_events:
            index = by_external.get(event.get("args", {}).get("External id"), -1)
            if index >= 0:  # else launched outside any operator the trace recorded
                duration = float(event.get("dur", 0.0))
                step = _step_of(ops[index].start, marks)
                timed.append((step, index, str(event.get("name", "")), duration))
    else:
        for index, op in enumerate(ops):
            own = op.duration - op.children_duration
            # annotations and autograd wrappers: their own time is host overhead
            if own > 0 and op.name.startswith("aten::"):
                timed.append((_step_of(op.start, marks), index, op.name, own))
    backward = re.compile(r"^autograd::engine::evaluate_function|Backward")
    work = []
    for step, index, label, microseconds in timed:
        if step is None:
            continue
        names = _callers(ops, index)
        work.append(
            Work(
                step=step,
                kind=kind_of(names),
                operator=ops[index].name,
                name=label,
                seconds=microseconds * 1e-6,
                dims=ops[index].dims,
                backward=any(backward.search(n) for n in names),
                call=index,
            )
        )
    if not work:
        raise MlcostError(
            f"trace: {name} has no operator inside its {len(marks)} ProfilerStep(s); expected "
            "CPU (and CUDA) activities recorded during the steps"
        )
    allocated, reserved = (
        _memory_peak(events, marks, device, field)
        for field in ("Total Allocated", "Total Reserved")
    )
    properties = data.get("deviceProperties") or []
    return Trace(
        path=str(path),
        device=str(properties[0].get("name")) if properties and device == "cuda" else device,
        steps=tuple((end - begin) * 1e-6 for begin, end in marks),
        work=tuple(work),
        peak_allocated=allocated,
        peak_reserved=reserved,
        metadata={
            k: data.get(k)
            for k in ("schemaVersion", "cuda_runtime_version", "trace_id")
            if k in data
        },
    )


__all__ = [
    "GEMM_OPERATORS",
    "KIND_PATTERNS",
    "TRACE_CLASSES",
    "Trace",
    "Work",
    "kind_of",
    "read_trace",
]
