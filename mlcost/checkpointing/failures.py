"""Training-state checkpoints against failures: size, write time, interval, waste and goodput.

The model (Young 1974; Daly 2006): failures of a synchronous job arrive as a Poisson process with
the system's mean time between failures ``M`` (any component failing stops the whole job, so
component rates add); the job computes for ``tau``, writes a checkpoint for ``delta``, and after a
failure restarts (``R``) from the last checkpoint, losing the work since. Quantities are pint
quantities (arrays allowed: a sweep is one call); counts are plain numbers.

Sources:

* J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM 17(9),
  1974: ``tau = sqrt(2·delta·M)``.
* J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps",
  Future Generation Computer Systems 22(3), 2006: the complete model of the expected wall time
  ``T_w = M·e^(R/M)·(e^((tau+delta)/M) - 1)·T_s/tau`` for exponential failures and its
  perturbation solution (eq. 37). His worked examples (Figs. 3-5: delta = 5 min, R = 10 min)
  give 117, 57 and 9.1 min for M = 24 h, 6 h and 15 min.
* Dubey et al. 2024, "The Llama 3 Herd of Models", section 3.3.4: 419 unexpected job
  interruptions in a 54-day snapshot of pre-training on 16,384 H100 GPUs (466 with the 47 planned
  ones); checkpoints of 1 MB to 4 GB per GPU; more than 90% effective training time. This is the
  default per-GPU MTBF (:data:`LLAMA3_MTBF_PER_GPU`).
* Mohan et al. 2021, "CheckFreq: Frequent, Fine-Grained DNN Checkpointing" (FAST '21), section
  4: asynchronous checkpointing as a blocking snapshot to host memory followed by a persist that
  overlaps training, one persist in flight at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pint

from mlcost.arrays import Real, only, plain
from mlcost.errors import MlcostError
from mlcost.memory import MemoryTerm, model_state_bytes_per_parameter
from mlcost.memory.states import state_bytes
from mlcost.records import Record
from mlcost.results import Figure, Result, json_value
from mlcost.specs import Storage
from mlcost.units import Q_, in_unit, magnitude_in

#: Llama 3 pre-training (Dubey et al. 2024, section 3.3.4): unexpected interruptions, the
#: snapshot they were counted over, and the GPUs of the job.
LLAMA3_UNEXPECTED_INTERRUPTIONS = 419
LLAMA3_SNAPSHOT = Q_(54, "day")
LLAMA3_GPUS = 16_384

#: Per-GPU MTBF implied by Llama 3: every unexpected interruption (GPU, HBM, host, network,
#: software) charged to the job's GPUs, ``54 d x 16,384 / 419 ~ 50,700 h (5.8 years)``. A job
#: of ``N`` GPUs then fails every ``50,700 h / N``: 3.09 h at 16,384 GPUs.
LLAMA3_MTBF_PER_GPU = (LLAMA3_SNAPSHOT * LLAMA3_GPUS / LLAMA3_UNEXPECTED_INTERRUPTIONS).to("hour")
#: Where :data:`LLAMA3_MTBF_PER_GPU` comes from, as the failure model cites it.
LLAMA3_MTBF_SOURCE = (
    "Dubey et al. 2024 (Llama 3) section 3.3.4: 54 d x 16,384 GPUs / 419 interruptions"
)

#: Restart time default: Daly 2006's worked examples (Figs. 3-5) use R = 10 min. An HPC-era
#: figure; replace it with a measured restart (rescheduling, NCCL initialization, checkpoint
#: load) where one is known.
DALY_RESTART_TIME = Q_(10, "minute")


def _check(value: Any, unit: str, name: str) -> pint.Quantity:
    """``value`` as a quantity in ``unit`` (:func:`mlcost.units.magnitude_in`), not negative."""
    return Q_(_magnitude(value, unit, name), unit)


def _magnitude(value: Any, unit: str, name: str) -> Any:
    """The magnitude of :func:`_check`'s quantity (a number, or an array)."""
    magnitude = magnitude_in(value, unit, name)
    if np.any(np.asarray(magnitude) < 0) or not np.all(np.isfinite(magnitude)):
        raise MlcostError(f"{name}: got {value!r}, expected a finite value >= 0")
    return magnitude


# ----- checkpoint size and write time --------------------------------------------------------
def checkpoint_bytes(
    parameters: Real,
    precision: str = "bf16-mixed",
    optimizer: str = "adamw",
    *,
    include_weights: bool = True,
) -> pint.Quantity:
    """Bytes of one training-state checkpoint: ``(w + m + K)·Psi``.

    Weights ``w``, FP32 master weights ``m`` and optimizer states ``K`` per parameter from
    :func:`mlcost.memory.model_state_bytes_per_parameter` (Rajbhandari et al. 2020, section 3.1);
    gradients are not saved (a restarted step recomputes them). Under mixed precision the 16-bit
    weights duplicate the master copy; ``include_weights=False`` leaves them out (bf16-mixed
    AdamW: 14 B/param with them, 12 without).
    """
    try:
        per_param = model_state_bytes_per_parameter(precision, optimizer)
    except KeyError as error:
        raise MlcostError(
            f"precision/optimizer: got {precision!r}/{optimizer!r}, unknown {error}"
        ) from None
    nbytes = per_param[MemoryTerm.MASTER_WEIGHTS] + per_param[MemoryTerm.OPTIMIZER_STATES]
    if include_weights or per_param[MemoryTerm.MASTER_WEIGHTS] == 0:
        nbytes += per_param[MemoryTerm.WEIGHTS]
    return Q_(nbytes * parameters, "byte").to("GB")


def checkpoint_bytes_per_gpu(
    parameters: Real,
    gpus: Real,
    precision: str = "bf16-mixed",
    optimizer: str = "adamw",
    *,
    include_weights: bool = True,
    trained_share: float = 1.0,
) -> pint.Quantity:
    """The unique shard each GPU writes when the checkpoint is sharded over all ``gpus``
    (PyTorch Distributed Checkpoint, Megatron's distributed optimizer: replicas deduplicated):
    ZeRO stage 3's per-rank model states (:func:`mlcost.memory.zero_model_state_bytes`,
    Rajbhandari et al. 2020 section 5) without the gradients, ``(w + m + K)·Psi / N``.
    ``trained_share``: the trainable fraction of the parameters when fine-tuning (LoRA, frozen
    parts), the only ones a checkpoint keeps with their states (peft's ``save_pretrained``
    writes the adapters; the frozen base is already on disk)."""
    return Q_(
        checkpoint_state_bytes(
            parameters,
            gpus,
            precision,
            optimizer,
            include_weights=include_weights,
            trained_share=trained_share,
        ),
        "byte",
    ).to("GB")


def checkpoint_state_bytes(
    parameters: Real,
    gpus: Real,
    precision: str = "bf16-mixed",
    optimizer: str = "adamw",
    *,
    include_weights: bool = True,
    trained_share: float = 1.0,
) -> Real:
    """:func:`checkpoint_bytes_per_gpu` in bytes, a plain number (arrays welcome): what a
    plan's failure model reads (it computes on magnitudes)."""
    per_param = {
        term: nbytes * trained_share
        for term, nbytes in model_state_bytes_per_parameter(precision, optimizer).items()
    }
    if not include_weights and per_param[MemoryTerm.MASTER_WEIGHTS] > 0:
        per_param[MemoryTerm.WEIGHTS] = 0.0
    psi = magnitude_in(parameters, "param", "parameters", bare=True)
    states = state_bytes(psi, per_param, zero_stage=3, data_parallel=gpus)
    gradients = MemoryTerm.GRADIENTS
    return sum((v for term, v in states.items() if term != gradients), 0)


def storage_write_bandwidth(storage: Storage, devices: Real = 1) -> pint.Quantity:
    """Aggregate sequential write bandwidth of ``devices`` copies of ``storage`` written in
    parallel (e.g. one NVMe drive per node times the nodes; 1 for a shared file system whose
    spec is already the aggregate). The datasheet's sequential write, an upper bound."""
    if np.any(np.asarray(devices) < 1):
        raise MlcostError(f"devices: got {devices!r}, expected a count >= 1")
    return (storage.sequential_write * devices).to("GB/s")


def checkpoint_write_time(
    checkpoint: pint.Quantity,
    bandwidth: pint.Quantity,
    *,
    writers: Real = 1,
    per_writer_bandwidth: pint.Quantity | None = None,
) -> pint.Quantity:
    """``delta = S / min(B_storage, n_writers · B_writer)``: the checkpoint of ``S`` bytes written
    by ``writers`` ranks in parallel, limited by the storage's aggregate bandwidth and, when
    given, by each writer's own (its NIC or its PCIe path). Perfect striping assumed."""
    size = _magnitude(checkpoint, "byte", "checkpoint")
    rate = _magnitude(bandwidth, "byte/s", "bandwidth")
    return Q_(_write_seconds(size, rate, writers, per_writer_bandwidth, bandwidth), "s")


def _write_seconds(
    size: Real, rate: Real, writers: Real, per_writer: pint.Quantity | None, given: Any
) -> Real:
    """:func:`checkpoint_write_time` on magnitudes (bytes, bytes/s; ``given``: the bandwidth as
    the caller gave it, for the error)."""
    if per_writer is not None:
        per = _check(per_writer, "byte/s", "per_writer_bandwidth").to("byte/s")
        rate = np.minimum(rate, writers * per.magnitude)
    if np.any(np.asarray(rate) <= 0):
        raise MlcostError(f"bandwidth: got {given!r}, expected a bandwidth > 0")
    return size / rate


# ----- failures ------------------------------------------------------------------------------
def system_mtbf(
    component_mtbf: pint.Quantity | Sequence[pint.Quantity],
    count: Real | Sequence[Real] = 1,
) -> pint.Quantity:
    """``M = 1 / sum_i (n_i / M_i)``: a job that stops when any of its components fails (a series
    system of independent, exponentially failing components; Young 1974 and Daly 2006 assume
    Poisson failures). ``component_mtbf`` and ``count`` are one value each or sequences (one
    entry per component class, e.g. GPUs, hosts, switches)."""
    if isinstance(component_mtbf, pint.Quantity):
        mtbfs: list[pint.Quantity] = [component_mtbf]
        counts: list[Any] = [count]
    else:
        mtbfs = list(component_mtbf)
        counts = list(count) if isinstance(count, Sequence) else [count] * len(mtbfs)
        if len(counts) != len(mtbfs):
            raise MlcostError(
                f"count: got {len(counts)} counts for {len(mtbfs)} component MTBFs, expected one "
                "per component"
            )
    rate: Real = 0.0
    for mtbf, n in zip(mtbfs, counts, strict=True):
        hours = _magnitude(mtbf, "hour", "component_mtbf")
        if np.any(np.asarray(hours) <= 0) or np.any(np.asarray(n) < 0):
            raise MlcostError("component_mtbf/count: expected MTBF > 0 and counts >= 0")
        rate = rate + np.asarray(n) / hours
    if np.any(np.asarray(rate) <= 0):
        raise MlcostError("count: expected at least one component")
    return Q_(1.0 / rate, "hour")


def failure_probability(window: pint.Quantity, mtbf: pint.Quantity) -> Real:
    """``P(at least one failure in t) = 1 - exp(-t/M)`` (Poisson failures)."""
    ratio = (_check(window, "s", "window") / _check(mtbf, "s", "mtbf")).to("").magnitude
    return 1.0 - np.exp(-ratio)


def expected_failures(window: pint.Quantity, mtbf: pint.Quantity) -> Real:
    """``t / M`` failures expected in a window of ``t`` (Poisson failures)."""
    return (_check(window, "s", "window") / _check(mtbf, "s", "mtbf")).to("").magnitude


# ----- the interval --------------------------------------------------------------------------
def _young_seconds(delta: Real, m: Real) -> Real:
    """Young 1974 on magnitudes (seconds): ``sqrt(2·delta·M)``."""
    return np.sqrt(2 * delta * m)


def _daly_seconds(delta: Real, m: Real) -> Real:
    """Daly 2006, eq. 37 on magnitudes (seconds); see :func:`daly_interval`."""
    x = delta / (2 * m)
    tau = np.sqrt(2 * delta * m) * (1 + np.sqrt(x) / 3 + x / 9) - delta
    return plain(np.where(delta < 2 * m, tau, m))


def _goodput_fraction(tau: Real, delta: Real, m: Real, r: Real) -> Real:
    """Daly 2006's complete model on magnitudes (seconds); see :func:`goodput`. An interval far
    beyond ``M`` overflows the exponential: goodput 0, not a warning."""
    with np.errstate(over="ignore"):
        fraction = tau / (m * np.exp(r / m) * np.expm1((tau + delta) / m))
    return plain(fraction)


def young_interval(checkpoint_time: pint.Quantity, mtbf: pint.Quantity) -> pint.Quantity:
    """Young 1974: ``tau = sqrt(2·delta·M)``, the first-order optimum compute time between
    checkpoints (assumes ``delta << M``; the restart time does not enter)."""
    delta = _magnitude(checkpoint_time, "s", "checkpoint_time")
    m = _magnitude(mtbf, "s", "mtbf")
    return Q_(_young_seconds(delta, m), "s").to("minute")


def daly_interval(checkpoint_time: pint.Quantity, mtbf: pint.Quantity) -> pint.Quantity:
    """Daly 2006, eq. 37: ``tau = sqrt(2·delta·M)·[1 + (1/3)·sqrt(delta/(2M)) + (1/9)·(delta/(2M))]
    - delta`` for ``delta < 2M``, else ``tau = M``. The perturbation solution of his complete
    model (:func:`expected_wall_time`); the restart time does not change the optimum."""
    delta = _magnitude(checkpoint_time, "s", "checkpoint_time")
    m = _magnitude(mtbf, "s", "mtbf")
    return Q_(_daly_seconds(delta, m), "s").to("minute")


def lambert_w0(x: Real) -> Real:
    """Principal branch ``W0`` of the Lambert function on ``[-1/e, 0]`` (``W·e^W = x``), by
    Halley's iteration from the branch-point series ``-1 + p - p^2/3 + 11·p^3/72``,
    ``p = sqrt(2·(e·x + 1))`` (Corless et al. 1996, "On the Lambert W function", eq. 4.22)."""
    x = np.asarray(x, dtype=float)
    if np.any(x < -1 / np.e - 1e-15) or np.any(x > 0):
        raise MlcostError(f"x: got {x!r}, expected values in [-1/e, 0]")
    p = np.sqrt(np.maximum(2 * (np.e * x + 1), 0.0))
    w = np.where(x < -0.25, -1 + p - p**2 / 3 + 11 * p**3 / 72, x * (1 - x))
    for _ in range(30):
        ew = np.exp(w)
        f = w * ew - x
        denominator = ew * (w + 1) - (w + 2) * f / (2 * w + 2 + 1e-300)
        step = np.where(np.abs(denominator) > 0, f / np.where(denominator == 0, 1, denominator), 0)
        w = w - step
    return w


def optimal_interval(checkpoint_time: pint.Quantity, mtbf: pint.Quantity) -> pint.Quantity:
    """The exact minimizer of Daly's complete model: ``d/dtau [(e^((tau+delta)/M) - 1)/tau] = 0``
    gives ``e^x (x - delta/M - 1) = -1`` with ``x = (tau + delta)/M``, so
    ``tau = M·(1 + W0(-e^(-(1 + delta/M))))``. Expanding ``W0`` near ``-1/e`` recovers Young's
    ``sqrt(2·delta·M)`` and Daly's ``- 2·delta/3`` correction."""
    delta = _magnitude(checkpoint_time, "s", "checkpoint_time")
    m = _magnitude(mtbf, "s", "mtbf")
    w = lambert_w0(-np.exp(-(1 + delta / m)))
    return Q_(m * (1 + w), "s").to("minute")


# ----- waste and goodput ---------------------------------------------------------------------
def expected_wall_time(
    solve_time: pint.Quantity,
    interval: pint.Quantity,
    checkpoint_time: pint.Quantity,
    mtbf: pint.Quantity,
    restart_time: pint.Quantity = DALY_RESTART_TIME,
) -> pint.Quantity:
    """Daly 2006's complete model: ``T_w = M·e^(R/M)·(e^((tau+delta)/M) - 1)·T_s/tau`` (exponential
    failures, failures possible during checkpoints and restarts, ``T_s`` a whole number of
    intervals)."""
    t_s = _magnitude(solve_time, "s", "solve_time")
    return Q_(t_s / goodput(interval, checkpoint_time, mtbf, restart_time), "s").to("hour")


def goodput(
    interval: pint.Quantity,
    checkpoint_time: pint.Quantity,
    mtbf: pint.Quantity,
    restart_time: pint.Quantity = DALY_RESTART_TIME,
) -> Real:
    """Useful fraction of wall time, ``T_s/T_w = tau / (M·e^(R/M)·(e^((tau+delta)/M) - 1))``
    (Daly 2006's complete model, :func:`expected_wall_time`)."""
    tau = _magnitude(interval, "s", "interval")
    delta = _magnitude(checkpoint_time, "s", "checkpoint_time")
    m = _magnitude(mtbf, "s", "mtbf")
    r = _magnitude(restart_time, "s", "restart_time")
    return _checked_goodput(tau, delta, m, r)


def _checked_goodput(tau: Real, delta: Real, m: Real, r: Real) -> Real:
    """:func:`goodput` on magnitudes (seconds), refusing an interval or MTBF that is not > 0."""
    if np.any(np.asarray(tau) <= 0) or np.any(np.asarray(m) <= 0):
        raise MlcostError("interval/mtbf: expected values > 0")
    return _goodput_fraction(tau, delta, m, r)


def waste_fraction(
    interval: pint.Quantity,
    checkpoint_time: pint.Quantity,
    mtbf: pint.Quantity,
    restart_time: pint.Quantity = DALY_RESTART_TIME,
) -> Real:
    """Expected wasted fraction of wall time, ``1 - goodput`` (checkpoint writes, lost work and
    restarts; Daly 2006's complete model). Its first-order parts are
    :func:`waste_breakdown`."""
    return 1.0 - goodput(interval, checkpoint_time, mtbf, restart_time)


def waste_breakdown(
    interval: pint.Quantity,
    checkpoint_time: pint.Quantity,
    mtbf: pint.Quantity,
    restart_time: pint.Quantity = DALY_RESTART_TIME,
) -> dict[str, Real]:
    """The first-order parts of the waste per unit of useful work (Young 1974; Daly 2006's
    first-order model): checkpoints ``delta/tau``, lost work ``(tau + delta)/(2M)`` (half a period
    per failure), restarts ``R/M``."""
    tau = _magnitude(interval, "s", "interval")
    delta = _magnitude(checkpoint_time, "s", "checkpoint_time")
    m = _magnitude(mtbf, "s", "mtbf")
    r = _magnitude(restart_time, "s", "restart_time")
    return _waste_parts(tau, delta, m, r)


def _waste_parts(tau: Real, delta: Real, m: Real, r: Real) -> dict[str, Real]:
    """:func:`waste_breakdown` on magnitudes (seconds)."""
    return {
        "checkpoint writes": delta / tau,
        "lost work": (tau + delta) / (2 * m),
        "restarts": r / m,
    }


class GoodputSchedule(Record, frozen=True):
    """:func:`goodput_seconds`: the checkpoint schedule and goodput of :func:`goodput_plan` at
    Daly's interval on plain magnitudes (numbers, or arrays over GPU counts)."""

    checkpoint_bytes: Real  # S·N: every GPU's state
    write_s: Real  # delta_w = S·N / B
    blocking_s: Real  # delta: the write, or 0 when asynchronous with an ideal snapshot
    mtbf_s: Real  # M = MTBF_gpu / N
    daly_s: Real  # Daly's optimum
    interval_s: Real  # tau: Daly's optimum, at least the write when asynchronous
    restart_s: Real  # R as given
    effective_restart_s: Real  # R, plus the write when asynchronous
    goodput: Real
    asynchronous: bool

    @property
    def interval_rule(self) -> str:
        """:func:`daly_rule` of this schedule."""
        return daly_rule(self.asynchronous, self.daly_s, self.write_s)

    def one_configuration(self) -> GoodputSchedule:
        """This schedule of one configuration (arrays of one GPU count, as a plan's chain
        evaluates) as Python numbers; the mode as it is."""
        numbers: dict[str, Any] = {
            name: only(getattr(self, name))
            for name in self.__struct_fields__
            if name != "asynchronous"
        }
        return GoodputSchedule(**numbers, asynchronous=self.asynchronous)


def daly_rule(asynchronous: bool, daly_s: Real, write_s: Real) -> str:
    """How the checkpoint interval was chosen: Daly's optimum, or the write time where an
    asynchronous write outlasts that optimum (one write in flight at a time)."""
    if asynchronous and np.any(np.asarray(daly_s) < write_s):
        return "the write time (one asynchronous write in flight at a time)"
    return "Daly 2006 optimum"


def goodput_seconds(
    state_bytes_per_gpu: Real,
    gpus: Real,
    write_bandwidth: Real,
    *,
    mtbf_per_gpu_hours: float,
    restart_seconds: float,
    asynchronous: bool = False,
) -> GoodputSchedule:
    """The schedule and goodput of :func:`goodput_plan` at Daly's interval for arrays of GPU
    counts, on plain magnitudes (bytes, bytes/s; a sweep's one call instead of a plan per GPU
    count): the write ``delta_w = S·N / B``, the system MTBF ``M = MTBF_gpu / N``, the blocking
    cost ``delta`` (the write, or 0 when asynchronous with an ideal snapshot), ``tau`` Daly's
    optimum (at least the write when asynchronous) and the complete model's goodput with ``R``
    (plus the write when asynchronous). Inputs are trusted: :func:`goodput_plan` is the checked
    entry point."""
    n = np.asarray(gpus, dtype=np.float64)
    state = np.asarray(state_bytes_per_gpu, dtype=np.float64)
    checkpoint = state * n
    write = checkpoint / write_bandwidth
    mtbf = mtbf_per_gpu_hours * 3600.0 / n
    blocking = np.zeros_like(write) if asynchronous else write
    daly = _daly_seconds(blocking, mtbf)
    tau, restart = _schedule(daly, write, restart_seconds, asynchronous)
    return GoodputSchedule(
        checkpoint_bytes=checkpoint,
        write_s=write,
        blocking_s=blocking,
        mtbf_s=mtbf,
        daly_s=daly,
        interval_s=tau,
        restart_s=restart_seconds,
        effective_restart_s=restart,
        goodput=_goodput_fraction(tau, blocking, mtbf, restart),
        asynchronous=asynchronous,
    )


def _schedule(interval: Real, write: Real, restart: Real, asynchronous: bool) -> tuple:
    """The interval and effective restart (seconds) of a blocking or asynchronous checkpoint:
    blocking, as given; asynchronous (CheckFreq, Mohan et al. 2021), the interval at least the
    write (one write in flight) and the write added to the restart (a failure during the write
    loses the previous interval too)."""
    if not asynchronous:
        return interval, restart
    return plain(np.maximum(interval, write)), restart + write


# ----- one run's plan ------------------------------------------------------------------------
class GoodputPlan(Record, Result, frozen=True):
    """Checkpoint interval, waste and goodput of one run (see :func:`goodput_plan`)."""

    state_bytes_per_gpu: pint.Quantity
    gpus: int
    write_bandwidth: pint.Quantity
    checkpoint_time: pint.Quantity
    write_time: pint.Quantity
    system_mtbf: pint.Quantity
    mtbf_per_gpu: pint.Quantity
    restart_time: pint.Quantity
    effective_restart_time: pint.Quantity
    interval: pint.Quantity
    interval_rule: str
    young_interval: pint.Quantity
    daly_interval: pint.Quantity
    asynchronous: bool
    waste_fraction: float
    goodput: float
    breakdown: dict[str, float]
    sources: dict[str, str]

    @property
    def checkpoint_bytes(self) -> pint.Quantity:
        return (self.state_bytes_per_gpu * self.gpus).to("TB")

    @property
    def failures_per_day(self) -> float:
        return float(expected_failures(Q_(1, "day"), self.system_mtbf))

    def title(self) -> str:
        return (
            f"training checkpoints of {self.checkpoint_bytes.magnitude:.4g} TB on {self.gpus:,} "
            "GPUs against failures"
        )

    def figures(self) -> list[Figure]:
        source = "Daly 2006 (FGCS 22(3)), Young 1974; MTBF: " + self.sources["mtbf"]
        return [
            Figure("checkpoint", self.checkpoint_bytes, "state per GPU x GPUs", "", ""),
            Figure("write time", self.write_time.to("s"), "checkpoint / aggregate bandwidth"),
            Figure("system MTBF", self.system_mtbf.to("hour"), "MTBF per GPU / GPUs", "", source),
            Figure("interval", self.interval.to("minute"), self.interval_rule, "", source),
            Figure(
                "goodput",
                Q_(self.goodput, "").to("percent"),
                "tau / (M e^(R/M) (e^((tau+delta)/M) - 1))",
                "",
                "Daly 2006, complete model",
            ),
        ]

    def to_json(self) -> dict[str, Any]:
        """Every input and result, quantities as ``{"value", "unit"}``."""
        return json_value(
            {
                "checkpoint_bytes": self.checkpoint_bytes,
                "state_bytes_per_gpu": self.state_bytes_per_gpu.to("GB"),
                "gpus": self.gpus,
                "write_bandwidth": self.write_bandwidth.to("GB/s"),
                "write_time": self.write_time.to("s"),
                "checkpoint_time": self.checkpoint_time.to("s"),
                "asynchronous": self.asynchronous,
                "mtbf_per_gpu": self.mtbf_per_gpu.to("hour"),
                "system_mtbf": self.system_mtbf.to("hour"),
                "failures_per_day": self.failures_per_day,
                "restart_time": self.restart_time.to("minute"),
                "young_interval": self.young_interval.to("minute"),
                "daly_interval": self.daly_interval.to("minute"),
                "interval": self.interval.to("minute"),
                "interval_rule": self.interval_rule,
                "waste_fraction": self.waste_fraction,
                "goodput": self.goodput,
                "waste_first_order": dict(self.breakdown),
            }
        )

    def explain(self) -> str:
        """Every figure with its formula, the numbers substituted and the source."""
        s = self.sources
        mode = "asynchronous" if self.asynchronous else "blocking"
        lines = [
            self.title(),
            f"checkpoint: {self.state_bytes_per_gpu.to('GB').magnitude:.4g} GB/GPU x {self.gpus:,}"
            f" GPUs = {self.checkpoint_bytes.magnitude:.4g} TB",
            f"write time: {self.checkpoint_bytes.to('GB').magnitude:.4g} GB / "
            f"{self.write_bandwidth.to('GB/s').magnitude:.4g} GB/s (aggregate) = "
            f"{self.write_time.to('s').magnitude:.4g} s",
            f"checkpoint cost on the critical path ({mode}): delta = "
            f"{self.checkpoint_time.to('s').magnitude:.4g} s"
            + (
                f"; the persist ({self.write_time.to('s').magnitude:.4g} s) overlaps training and "
                "adds to the work lost per failure  [Mohan et al. 2021, CheckFreq]"
                if self.asynchronous
                else ""
            ),
            f"system MTBF: M = MTBF_gpu / N = {self.mtbf_per_gpu.to('hour').magnitude:,.0f} h / "
            f"{self.gpus:,} = {self.system_mtbf.to('hour').magnitude:.4g} h "
            f"({self.failures_per_day:.3g} failures/day)  [{s['mtbf']}]",
            f"Young: sqrt(2 delta M) = {self.young_interval.to('minute').magnitude:.4g} min  "
            "[Young 1974]",
            f"Daly: sqrt(2 delta M)[1 + sqrt(delta/2M)/3 + (delta/2M)/9] - delta = "
            f"{self.daly_interval.to('minute').magnitude:.4g} min  [Daly 2006, eq. 37]",
            f"interval used: {self.interval.to('minute').magnitude:.4g} min ({self.interval_rule})",
            f"restart: R = {self.restart_time.to('minute').magnitude:.4g} min  [{s['restart']}]"
            + (
                f"; effective {self.effective_restart_time.to('minute').magnitude:.4g} min"
                if self.asynchronous
                else ""
            ),
            "waste (first order): " + ", ".join(f"{k} {v:.2%}" for k, v in self.breakdown.items()),
            f"goodput = tau / (M e^(R/M) (e^((tau+delta)/M) - 1)) = {self.goodput:.2%} "
            f"(waste {self.waste_fraction:.2%})  [Daly 2006, complete model]",
        ]
        return "\n".join(lines)


def goodput_plan(
    state_bytes_per_gpu: pint.Quantity,
    gpus: int,
    *,
    write_bandwidth: pint.Quantity,
    mtbf_per_gpu: pint.Quantity | None = None,
    restart_time: pint.Quantity = DALY_RESTART_TIME,
    interval: pint.Quantity | None = None,
    asynchronous: bool = False,
    per_writer_bandwidth: pint.Quantity | None = None,
    snapshot_bandwidth: pint.Quantity | None = None,
) -> GoodputPlan:
    """Checkpoint interval, expected waste and goodput of a run on ``gpus`` GPUs.

    * ``state_bytes_per_gpu``: the unique training state each GPU writes
      (:func:`checkpoint_bytes_per_gpu`); the checkpoint is ``state_bytes_per_gpu x gpus``.
    * ``write_bandwidth``: the storage's **aggregate** write bandwidth available to the job
      (:func:`storage_write_bandwidth`); ``per_writer_bandwidth`` optionally caps each GPU's share
      (:func:`checkpoint_write_time`).
    * ``mtbf_per_gpu``: default :data:`LLAMA3_MTBF_PER_GPU` (Dubey et al. 2024); the system MTBF
      is ``mtbf_per_gpu / gpus`` (:func:`system_mtbf`).
    * ``restart_time``: default :data:`DALY_RESTART_TIME` (Daly 2006's examples).
    * ``interval``: compute time between checkpoints; ``None`` takes Daly's optimum
      (:func:`daly_interval`).
    * ``asynchronous``: the GPU blocks only for a snapshot to host memory,
      ``state_bytes_per_gpu / snapshot_bandwidth`` (0 when no snapshot bandwidth is given: ideal
      overlap, a lower bound), and the write proceeds during training (CheckFreq, Mohan et al.
      2021). A failure during the write loses the previous interval too, which adds the write
      time to the expected lost work (first order: ``tau/2 + delta_w`` instead of ``tau/2``), so
      it is added to the restart time; the interval is at least the write time (one write in
      flight).
    """
    if isinstance(gpus, bool) or not isinstance(gpus, (int, np.integer)) or gpus < 1:
        raise MlcostError(f"gpus: got {gpus!r}, expected a whole number of GPUs >= 1")
    # Every input checked once; then the functions above on magnitudes, with their arithmetic.
    state = _check(state_bytes_per_gpu, "byte", "state_bytes_per_gpu")
    bandwidth = _check(write_bandwidth, "byte/s", "write_bandwidth")
    restart = _check(restart_time, "s", "restart_time")
    sources = {
        "mtbf": "given",
        "restart": "given" if restart_time is not DALY_RESTART_TIME else "Daly 2006, Figs. 3-5",
    }
    if mtbf_per_gpu is None:
        mtbf_per_gpu = LLAMA3_MTBF_PER_GPU
        sources["mtbf"] = LLAMA3_MTBF_SOURCE
    _magnitude(mtbf_per_gpu, "hour", "mtbf_per_gpu")
    mtbf = system_mtbf(mtbf_per_gpu, gpus)
    m = in_unit(mtbf, "s")
    write_s = _write_seconds(
        state.magnitude * gpus, bandwidth.magnitude, gpus, per_writer_bandwidth, write_bandwidth
    )
    if not asynchronous:
        blocking_s = write_s
    elif snapshot_bandwidth is None:
        blocking_s = 0.0
    else:
        snapshot = _magnitude(snapshot_bandwidth, "byte/s", "bandwidth")
        blocking_s = _write_seconds(state.magnitude, snapshot, 1, None, snapshot_bandwidth)
    write, blocking = Q_(write_s, "s"), Q_(blocking_s, "s")
    young = Q_(_young_seconds(blocking_s, m), "s").to("minute")
    daly = Q_(_daly_seconds(blocking_s, m), "s").to("minute")
    tau, restart_s = _schedule(in_unit(daly, "s"), write_s, in_unit(restart, "s"), asynchronous)
    effective_restart = Q_(restart_s, "s").to("minute")
    if interval is None:
        chosen = Q_(tau, "s").to("minute")
        rule = daly_rule(asynchronous, in_unit(daly, "s"), write_s)
    else:
        chosen = _check(interval, "s", "interval").to("minute")
        rule = "given"
        if np.any(np.asarray(in_unit(chosen, "s")) <= 0):
            raise MlcostError(f"interval: got {interval!r}, expected a time > 0")
    tau_s, r = in_unit(chosen, "s"), in_unit(effective_restart, "s")
    useful = _checked_goodput(tau_s, blocking_s, m, r)
    waste = _waste_parts(tau_s, blocking_s, m, r)
    return GoodputPlan(
        state_bytes_per_gpu=state.to("GB"),
        gpus=int(gpus),
        write_bandwidth=bandwidth.to("GB/s"),
        checkpoint_time=blocking.to("s"),
        write_time=write.to("s"),
        system_mtbf=mtbf,
        mtbf_per_gpu=mtbf_per_gpu.to("hour"),
        restart_time=restart.to("minute"),
        effective_restart_time=effective_restart,
        interval=chosen,
        interval_rule=rule,
        young_interval=young,
        daly_interval=daly,
        asynchronous=asynchronous,
        waste_fraction=float(1.0 - useful),
        goodput=float(useful),
        breakdown={k: float(v) for k, v in waste.items()},
        sources=sources,
    )
