"""The chain of one run, stage by stage, for arrays of configurations sharing one resolved run
(:class:`mlcost.plan.resolve.Run`): every stage is one named function of plain numpy arrays.

1. :func:`step_stage`: the multi-GPU step of the run's layout (:func:`mlcost.parallel.step.
   evaluate`: compute of the slowest pipeline stage, bubble, exposed communication), or in
   napkin mode ``FLOPs per step / (GPUs x sustained)``;
2. :func:`memory_stage`: per-GPU memory of the most loaded stage (:func:`mlcost.memory.
   per_gpu_memory`), against the GPU's usable memory;
3. :func:`data_stage`: the input pipeline ``max(read, tokenize, transfer)`` per GPU (the chapter's
   F-36), overlapped with compute by prefetching;
4. :func:`evaluate_time`: ``step = max(compute + exposed communication, input pipeline)``,
   steps, wall clock divided by the goodput of the failure model, GPU-hours, MFU
   (:func:`mlcost.timing.training_time`, :func:`mlcost.timing.model_flops_utilization`), and
   the distance from compute-optimal (:func:`mlcost.scaling.distance_from_optimal`);
5. :func:`energy_stage`: ``N_gpu·P_gpu(u) + N_gpu·P_host``, ``u`` the GPU's busy share of the
   step, facility energy ``x PUE`` (:mod:`mlcost.energy`);
6. :func:`cost_stage`: rental, ownership, break-even (:mod:`mlcost.cost`);
7. :func:`carbon_stage`: operational and embodied CO2e (:mod:`mlcost.energy`).

Stages 1-4 are :func:`evaluate_time` (:class:`TimeArrays`), stages 5-7 :func:`evaluate_money`
(:class:`MoneyArrays`): a plan evaluates the second only when an answer reads energy, cost or
CO2e (``Plan.train()`` does not).

Sweeps vary the run's layout: ``micro_batch_size`` replaces its micro-batch, ``gpus`` its
data-parallel degree (``dp = GPUs / (tp·pp·cp)``), with the micro-batches per step kept.
"""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np
import numpy.typing as npt

from mlcost import cost, energy
from mlcost.arrays import Array, Real, distinct, divide
from mlcost.checkpointing import GoodputPlan, goodput_plan
from mlcost.checkpointing.failures import (
    DALY_RESTART_TIME,
    LLAMA3_MTBF_PER_GPU,
    GoodputSchedule,
    checkpoint_state_bytes,
    goodput_seconds,
)
from mlcost.datapipe import data_stage_seconds, pipelined_seconds
from mlcost.errors import MlcostError
from mlcost.finetune import trainable_parameters
from mlcost.flops import six_nd
from mlcost.memory import activation_parts
from mlcost.memory.breakdown import _convnet_parts, layout_memory, overheads_of
from mlcost.memory.states import model_state_bytes_per_parameter
from mlcost.parallel.compute import compute_parts, model_dims
from mlcost.parallel.degrees import Degrees
from mlcost.parallel.step import StepArrays, evaluate
from mlcost.plan.resolve import Run
from mlcost.records import Record, replace
from mlcost.scaling import distance_from_optimal
from mlcost.specs import ConvNetSpec, TransformerSpec
from mlcost.systems import System
from mlcost.timing import model_flops_utilization, training_time
from mlcost.units import Q_, in_unit
from mlcost.workload import OperatorTable, TrainingConfig, operators


class Numbers(Record, frozen=True):
    """Per-configuration inputs that vary along a sweep's numeric axes: arrays of one length
    (one configuration: arrays of one, :meth:`of`)."""

    micro_batch_size: Array
    sequence_length: Array
    gpus: Array
    tokens: Array
    intensity: Array  # gCO2e/kWh
    pue: Array
    price: Array  # USD per GPU-hour (NaN when unknown)
    electricity_price: Array  # USD/kWh

    @classmethod
    def of(cls, run: Run) -> Numbers:
        """The run's own numbers: one configuration, arrays of one (a sweep broadcasts them
        over its axes)."""
        return cls(
            micro_batch_size=np.array([run.layout.micro_batch_size], dtype=np.int64),
            sequence_length=np.array([run.config.sequence_length], dtype=np.int64),
            gpus=np.array([run.gpus], dtype=np.int64),
            tokens=np.array([run.tokens], dtype=np.float64),
            intensity=np.array([in_unit(run.grid.carbon_intensity, "gCO2e/kWh")], np.float64),
            pue=np.array([run.pue], dtype=np.float64),
            price=np.array([run.price], dtype=np.float64),
            electricity_price=np.array([run.electricity_price], dtype=np.float64),
        )


class TimeArrays(Record, frozen=True):
    """The chain up to the time to train (stages 1-4, and the distance from compute-optimal),
    one value per configuration: what ``Plan.train()``, the memory verdict and the step
    need."""

    micro_batch_size: Array
    sequence_length: Array
    gpus: Array
    tokens: Array
    compute_s: Array
    communication_s: Array
    read_s: Array
    preprocess_s: Array
    transfer_s: Array
    data_s: Array
    step_s: Array
    data_bound: npt.NDArray[np.bool_]
    memory_gib: Array
    capacity_gib: Array
    fits: npt.NDArray[np.bool_]
    steps: Array
    wall_s: Array
    wall_days: Array
    gpu_hours: Array
    #: The GPU-hours this plan predicts, also in report mode (where ``gpu_hours`` is the
    #: published figure): what a published figure is compared with.
    predicted_gpu_hours: Array
    mfu: Array
    model_flops: Array  # the whole run
    n_over_n_opt: Array
    goodput: Array
    # The checkpoint schedule the goodput column comes from (:func:`goodput_schedule`, arrays
    # over the configurations; None without a checkpoint target): not a column, what the
    # figures cite (:meth:`GoodputSchedule.one_configuration`), computed once with the goodput.
    schedule: GoodputSchedule | None = None

    def columns(self) -> dict[str, Array]:
        """Every column by name, in field order (the schedule is not a column)."""
        columns = msgspec.structs.asdict(self)
        del columns["schedule"]
        return columns


class MoneyArrays(Record, frozen=True):
    """Energy, cost and CO2e (stages 5-7) of the configurations of :class:`TimeArrays`, with the
    PUE, price and grid intensity they were computed at."""

    gpu_power_w: Array
    it_power_w: Array
    pue: Array
    step_kwh: Array
    dynamic_kwh: Array
    idle_kwh: Array
    energy_kwh: Array
    price: Array
    rental_usd: Array
    purchase_usd: Array
    electricity_usd: Array
    ownership_usd: Array
    break_even_runs: Array
    break_even_months: Array
    intensity_g_per_kwh: Array
    operational_t: Array
    embodied_gpu_t: Array
    embodied_server_t: Array
    embodied_t: Array
    total_t: Array

    def columns(self) -> dict[str, Array]:
        """Every column by name, in field order."""
        return msgspec.structs.asdict(self)


class PlanArrays(Record, frozen=True):
    """Every figure of the chain, one value per configuration (the columns of a sweep): the time
    to train, then energy, cost and CO2e."""

    time: TimeArrays
    money: MoneyArrays

    def columns(self) -> dict[str, Array]:
        return {**self.time.columns(), **self.money.columns()}


def _degrees(run: Run, x: Numbers) -> Degrees:
    """The run's layout broadcast over the configurations (dp follows the GPU count)."""
    layers = run.model.num_layers if isinstance(run.model, TransformerSpec) else 1
    dp = np.maximum(x.gpus // run.layout.model_parallel, 1)
    return Degrees.from_layouts([run.layout], layers).broadcast_to(
        x.gpus.shape, dp=dp, micro_batch=x.micro_batch_size
    )


def _at_length(config: TrainingConfig, length: int) -> TrainingConfig:
    """``config`` at a sequence ``length`` of a sweep (itself at its own length)."""
    if length == config.sequence_length:
        return config
    return config.model_copy(update={"sequence_length": length})


class StepStage(Record, frozen=True):
    compute_s: Array
    communication_s: Array
    model_flops_step: Array  # all GPUs
    calibration: float = 1.0  # the implementation's factor on compute + communication


def one_table(run: Run, x: Numbers) -> OperatorTable | None:
    """The operator table of one micro-batch that both the step and the memory stage read where
    ``x`` is one configuration of a transformer without context parallelism (its GPU holds the
    whole sequence, so the memory stage's table is the step's): built once for both, else
    None (each stage builds its own)."""
    if x.gpus.size != 1 or run.layout.cp != 1 or not isinstance(run.model, TransformerSpec):
        return None
    return operators(
        run.model,
        _at_length(run.config, int(x.sequence_length[0])),
        run.layout.one_micro_batch(),
        micro_batch_size=int(x.micro_batch_size[0]),
        implementation=run.software.spec,
    )


def step_stage(
    run: Run, x: Numbers, degrees: Degrees, table: OperatorTable | None = None
) -> StepStage:
    """Compute (with the bubble) and exposed communication per step, and model FLOPs per step
    (module docstring), evaluated once per distinct sequence length; ``table``: the one
    configuration's operator table (:func:`one_table`)."""
    m = np.asarray(degrees.micro_batches, dtype=np.float64)
    tokens_per_step = degrees.dp * x.micro_batch_size * m * x.sequence_length
    compute = np.zeros(x.gpus.shape)
    exposed = np.zeros(x.gpus.shape)
    flops = np.zeros(x.gpus.shape)
    factor = 1.0
    resolved = run.system.for_gpus(int(np.max(x.gpus)))
    for length in distinct(x.sequence_length):
        mask = x.sequence_length == length
        result = _step_at(
            run, length, resolved, degrees.at(mask), x.gpus[mask], x.micro_batch_size[mask], table
        )
        compute[mask] = result.compute + result.bubble
        exposed[mask] = result.exposed
        factor = result.calibration
        flops[mask] = result.model_flops
    if run.flop_count == "6ND":
        flops = six_nd(run.active_parameters, tokens_per_step).magnitude
    if run.sustained is not None:
        compute = flops / (x.gpus * run.sustained)
        exposed = np.zeros_like(compute)
        factor = 1.0
    return StepStage(
        compute_s=compute, communication_s=exposed, model_flops_step=flops, calibration=factor
    )


def _step_at(
    run: Run,
    length: Real,
    resolved: System,
    degrees: Degrees,
    gpus: Array,
    batch: Array,
    table: OperatorTable | None,
) -> StepArrays:
    """The step (:func:`mlcost.parallel.step.evaluate`) of the configurations at one sequence
    ``length`` (``gpus`` and their micro-batch sizes ``batch``), each distinct size's compute
    parts evaluated once."""
    config = _at_length(run.config, int(length))
    sizes = distinct(batch)
    parts = compute_parts(
        run.model,
        config,
        resolved,
        run.layout,
        sizes,
        software=run.software,
        table=table,
    ).take(np.searchsorted(sizes, batch).ravel())
    return evaluate(
        model_dims(run.model, config, run.software),
        resolved,
        degrees,
        parts,
        gpus_per_node=np.minimum(resolved.gpus_per_node, gpus),
        software=run.software,
    )


def memory_stage(
    run: Run, x: Numbers, degrees: Degrees, table: OperatorTable | None = None
) -> Array:
    """Bytes per GPU of every configuration (:func:`mlcost.memory.per_gpu_memory`, the memory
    model of :func:`mlcost.memory.memory_breakdown`), once per distinct sequence length;
    ``table``: the one configuration's operator table (:func:`one_table`)."""
    layout = run.layout
    per_parameter = model_state_bytes_per_parameter(
        run.config.precision, run.config.optimizer, model=run.model, finetune=run.config.finetune,
        gradient_bytes=run.software.spec.held_gradient_bytes,
    )  # fmt: skip
    out = np.zeros(x.gpus.shape)
    for length in distinct(x.sequence_length):
        mask = x.sequence_length == length
        batch = x.micro_batch_size[mask]
        one = distinct(batch)
        out[mask] = _memory_at(
            run,
            length,
            # One size: its table (rows of numbers); several: the sweep's.
            int(one[0]) if one.size == 1 else batch,
            degrees.dp[mask] * layout.cp,
            per_parameter,
            table,
        )
    return out


def _memory_at(
    run: Run,
    length: Real,
    batch: Real,
    weight_replicas: Real,
    per_parameter: Any,
    table: OperatorTable | None,
) -> Real:
    """Bytes per GPU (:func:`mlcost.memory.breakdown.layout_memory`) of the configurations at one
    sequence ``length``: micro-batch size(s) ``batch`` and the replicas holding each weight."""
    model, layout = run.model, run.layout
    config = _at_length(run.config, int(length))
    if isinstance(model, TransformerSpec):
        parts = activation_parts(
            model, config, layout, "pytorch", batch, int(length) // layout.cp, table=table,
            implementation=run.software.spec,
        )  # fmt: skip
        layers, stages = model.num_layers, layout.stage_layer_counts(model.num_layers)
    elif isinstance(model, ConvNetSpec):
        parts, layers, stages = _convnet_parts(model, config, layout), 1, (1,)
    else:
        raise MlcostError(f"model: {model.name!r} is a {model.KIND}, expected a transformer")
    return layout_memory(
        parts,
        model,
        config,
        layout,
        layers,
        stages,
        per_parameter=per_parameter,
        weight_replicas=weight_replicas,
        overheads=overheads_of(run.system.accelerator),
    ).total


def data_stage(run: Run, x: Numbers, degrees: Degrees) -> dict[str, Array]:
    """Seconds of each input-pipeline stage per GPU and step: a replica's tokens spread over its
    ``tp·pp·cp`` GPUs (:func:`mlcost.datapipe.data_stage_seconds`), the slowest of them the
    prefetched pipeline's (:func:`mlcost.datapipe.pipelined_seconds`), arrays over the
    configurations."""
    a = run.assumptions
    replica_tokens = x.micro_batch_size * degrees.micro_batches * x.sequence_length
    readers = np.minimum(x.gpus, run.system.gpus_per_node)
    storage, link = run.data_storage, run.system.host_link
    seconds = data_stage_seconds(
        replica_tokens / run.layout.model_parallel,
        storage=in_unit(storage.sequential_read, "byte/s") if storage is not None else None,
        stored_bytes_per_token=in_unit(
            a.token_id_bytes if run.pretokenized else a.stored_bytes_per_token, "byte"
        ),
        readers_sharing_storage=readers,
        access_factor=a.storage_access_factor,
        tokenization_rate=None
        if run.pretokenized
        else in_unit(a.tokenization_rate_per_core, "token/s"),
        workers=a.loader_workers,
        host_link=in_unit(link.peak, "byte/s") if link is not None else None,
        token_id_bytes=in_unit(a.token_id_bytes, "byte"),
    )
    seconds["data"] = pipelined_seconds(*seconds.values())
    return {k: np.broadcast_to(v, np.shape(x.gpus)) for k, v in seconds.items()}


def _checkpoint_state(run: Run, gpus: Any) -> Any:
    """The bytes of the checkpoint each of ``gpus`` GPUs writes (:func:`mlcost.checkpointing.
    checkpoint_bytes_per_gpu`, a plain number: the failure model computes on magnitudes): the
    trainable parameters' share of the state when fine-tuning (the frozen base is not written
    again)."""
    model, tuning = run.model, run.config.finetune
    share = 1.0
    if isinstance(model, TransformerSpec) and not tuning.is_default:
        share = trainable_parameters(model, tuning) / model.parameter_count
    return checkpoint_state_bytes(
        run.parameters, gpus, run.config.precision, run.config.optimizer, trained_share=share
    )


def goodput_of(run: Run, gpus: int) -> GoodputPlan | None:
    """The failure model (:func:`mlcost.checkpointing.goodput_plan`) of the sharded training
    state on ``gpus`` GPUs, or None when no checkpoint target is known."""
    if run.checkpoint is None:
        return None
    state = _checkpoint_state(run, gpus)
    bandwidth = float(run.checkpoint.bandwidth(gpus, run.system.gpus_per_node))
    return goodput_plan(
        Q_(state, "byte"),
        gpus,
        write_bandwidth=Q_(bandwidth, "byte/s"),
        mtbf_per_gpu=run.mtbf_per_gpu,
        asynchronous=run.async_checkpoint,
    )


def goodput_schedule(run: Run, gpus: Any) -> GoodputSchedule | None:
    """:func:`goodput_of`'s schedule and goodput for every GPU count of ``gpus`` at once, on
    magnitudes (one vectorized call, :func:`mlcost.checkpointing.failures.goodput_seconds`);
    None without a checkpoint target."""
    if run.checkpoint is None:
        return None
    state = _checkpoint_state(run, gpus)
    mtbf = run.mtbf_per_gpu if run.mtbf_per_gpu is not None else LLAMA3_MTBF_PER_GPU
    return goodput_seconds(
        state,
        gpus,
        run.checkpoint.bandwidth(gpus, run.system.gpus_per_node),
        mtbf_per_gpu_hours=float(in_unit(mtbf, "hour")),
        restart_seconds=float(in_unit(DALY_RESTART_TIME, "s")),
        asynchronous=run.async_checkpoint,
    )


def evaluate_time(run: Run, x: Numbers) -> TimeArrays:
    """The chain up to the time to train (stages 1-4) for arrays of configurations sharing one
    resolved run."""
    degrees = _degrees(run, x)
    table = one_table(run, x)
    step = step_stage(run, x, degrees, table)
    memory = memory_stage(run, x, degrees, table) / 2**30
    capacity = float(in_unit(run.system.accelerator.memory_available, "GiB"))
    data = data_stage(run, x, degrees)
    # The implementation's correction factor on the step's compute and communication
    # (mlcost.uncertainty.calibration; the data pipeline is not part of what it corrects).
    busy = (step.compute_s + step.communication_s) * step.calibration
    step_s = np.maximum(busy, data["data"])
    m = degrees.micro_batches
    tokens_per_step = degrees.dp * x.micro_batch_size * m * x.sequence_length
    schedule = goodput_schedule(run, x.gpus)
    ones = np.ones(x.gpus.shape)
    goodput = ones if schedule is None else schedule.goodput  # 1 without a checkpoint target
    time = training_time(x.tokens, tokens_per_step, step_s, x.gpus, goodput)
    predicted_gpu_hours = np.asarray(time.gpu_hours)
    if run.gpu_hours is not None:  # report mode: the published GPU-hours set the wall clock
        hours = run.gpu_hours * ones
        time = replace(time, wall_seconds=hours * 3600.0 / x.gpus, gpu_hours=hours)
    return TimeArrays(
        micro_batch_size=x.micro_batch_size,
        sequence_length=x.sequence_length,
        gpus=x.gpus.astype(np.int64),
        tokens=x.tokens,
        compute_s=step.compute_s,
        communication_s=step.communication_s,
        read_s=data["read"] * ones,
        preprocess_s=data["preprocess"] * ones,
        transfer_s=data["transfer"] * ones,
        data_s=data["data"] * ones,
        step_s=step_s,
        data_bound=data["data"] > busy,
        memory_gib=memory,
        capacity_gib=capacity * ones,
        fits=memory <= capacity,
        steps=np.asarray(time.steps),
        wall_s=np.asarray(time.wall_seconds),
        wall_days=np.asarray(time.wall_seconds) / 86400.0,
        gpu_hours=np.asarray(time.gpu_hours),
        predicted_gpu_hours=predicted_gpu_hours,
        mfu=np.asarray(model_flops_utilization(step.model_flops_step, step_s, x.gpus, run.peak)),
        model_flops=step.model_flops_step * time.steps,
        n_over_n_opt=distance_from_optimal(run.parameters, x.tokens) * ones,
        goodput=goodput * ones,
        schedule=schedule,
    )


def evaluate_money(run: Run, x: Numbers, time: TimeArrays) -> MoneyArrays:
    """Energy, cost and CO2e (stages 5-7) of the configurations ``time`` holds (numpy's IEEE
    arithmetic where a price or a step is zero)."""
    busy = divide(time.compute_s, time.step_s)
    power = energy_stage(run, x, busy, time.wall_s, time.step_s)
    money = cost_stage(run, x, time.gpu_hours, time.wall_s, power["energy_kwh"])
    carbon = carbon_stage(run, x, time.gpu_hours, power["energy_kwh"])
    ones = np.ones(np.shape(x.gpus))
    return MoneyArrays(
        pue=x.pue * ones,
        price=x.price * ones,
        intensity_g_per_kwh=x.intensity * ones,
        **power,
        **money,
        **carbon,
    )


def evaluate_run(run: Run, x: Numbers) -> PlanArrays:
    """The whole chain for arrays of configurations sharing one resolved run."""
    time = evaluate_time(run, x)
    return PlanArrays(time=time, money=evaluate_money(run, x, time))


def energy_stage(
    run: Run, x: Numbers, utilization: Array, wall_s: Array, step_s: Array
) -> dict[str, Array]:
    """GPU power at the busy share, IT power with the host's share, facility energy per step and
    per run (:mod:`mlcost.energy`)."""
    gpu_w: Real
    if run.power_per_gpu is not None:  # a fixed convention: measured node, system, TDP
        gpu_w = run.power_per_gpu * np.ones(np.shape(utilization))
        it_w = x.gpus * gpu_w
    else:
        tdp = run.system.accelerator.tdp
        if tdp is None:
            raise MlcostError(
                f"Plan: {run.system.accelerator.name} has no tdp in its spec; energy needs one"
            )
        gpu_w = energy.accelerator_watts(
            utilization, in_unit(tdp, "W"), run.assumptions.gpu_idle_fraction
        )
        it_w = x.gpus * gpu_w + in_unit(run.system.host_power_per_gpu, "W") * x.gpus
    dynamic = energy.energy_kwh(it_w, wall_s, x.pue)
    idle_w = run.idle_power_per_gpu * x.gpus
    idle = energy.energy_kwh(idle_w, wall_s, x.pue)
    per_step = energy.energy_kwh(it_w + idle_w, step_s, x.pue)
    ones = np.ones(np.shape(x.gpus))
    return {
        "gpu_power_w": np.asarray(gpu_w) * ones,
        "it_power_w": np.asarray(it_w) * ones,
        "step_kwh": np.asarray(per_step) * ones,
        "dynamic_kwh": np.asarray(dynamic) * ones,
        "idle_kwh": np.asarray(idle) * ones,
        "energy_kwh": np.asarray(dynamic + idle) * ones,
    }


def cost_stage(
    run: Run, x: Numbers, gpu_hours: Array, wall_s: Array, energy_kwh: Array
) -> dict[str, Array]:
    """Rental, purchase, electricity, ownership for this run, and the rent-vs-buy break-even
    (:mod:`mlcost.cost`; amortization over lifetime x use rate, Luccioni et al. 2022)."""
    a = run.assumptions
    usd_per_kwh = np.asarray(x.electricity_price, dtype=np.float64)
    rental = cost.rental_usd(gpu_hours, x.price)
    purchase = run.purchase * x.gpus
    ownership = cost.ownership_usd(
        x.gpus,
        run.purchase,
        wall_s / 3600.0,
        in_unit(a.gpu_lifetime, "hour") * a.gpu_use_rate,
        energy_kwh,
        usd_per_kwh,
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        runs = cost.break_even_run_count(purchase, rental)
        months = cost.break_even_month_count(purchase, x.gpus, x.price, a.gpu_use_rate)
    ones = np.ones(np.shape(x.gpus))
    return {
        "rental_usd": np.asarray(rental) * ones,
        "purchase_usd": np.asarray(purchase) * ones,
        "electricity_usd": np.asarray(cost.electricity_usd(energy_kwh, usd_per_kwh)),
        "ownership_usd": np.asarray(ownership) * ones,
        "break_even_runs": np.asarray(runs) * ones,
        "break_even_months": np.asarray(months) * ones,
    }


def carbon_stage(run: Run, x: Numbers, gpu_hours: Array, energy_kwh: Array) -> dict[str, Array]:
    """Operational CO2e ``energy x grid intensity``; embodied CO2e of the GPU and of its share of
    the server, each ``per device x GPU-hours / (lifetime x use rate)`` (Luccioni et al. 2022,
    section 4.1), reported apart and summed."""
    a = run.assumptions
    embodied_each = run.system.accelerator.embodied_carbon or a.embodied_carbon_per_gpu
    intensity = np.asarray(x.intensity, dtype=np.float64)
    operational = energy.operational_tonnes(energy_kwh, intensity)
    busy_life = in_unit(a.gpu_lifetime, "hour") * a.gpu_use_rate
    embodied_gpu = energy.embodied_tonnes(gpu_hours, in_unit(embodied_each, "tCO2e"), busy_life)
    server_share = in_unit(a.embodied_carbon_per_server, "tCO2e") / run.system.gpus_per_node
    embodied_server = energy.embodied_tonnes(gpu_hours, server_share, busy_life)
    embodied = np.asarray(embodied_gpu) + np.asarray(embodied_server)
    return {
        "operational_t": np.asarray(operational),
        "embodied_gpu_t": np.asarray(embodied_gpu),
        "embodied_server_t": np.asarray(embodied_server),
        "embodied_t": embodied,
        "total_t": np.asarray(operational) + embodied,
    }
