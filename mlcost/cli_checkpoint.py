"""``mlcost checkpoint ...``: activation checkpoint placement and the training-checkpoint interval.

Registered in :mod:`mlcost.cli` as ``app.add_typer(checkpoint_app, name="checkpoint")``. Same
conventions as the rest of the CLI: ``--json`` prints quantities as ``{"value", "unit"}``; user
errors raise :class:`mlcost.errors.MlcostError` (one line, exit status 2 from ``mlcost.cli.main``).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from mlcost.checkpointing import (
    LLAMA3_MTBF_PER_GPU,
    cheapest_recompute,
    checkpoint_bytes_per_gpu,
    failure_probability,
    goodput_plan,
    storage_write_bandwidth,
)
from mlcost.cli_common import count_option, print_json, quantity_option, stdout_console
from mlcost.errors import MlcostError
from mlcost.memory import Parallelism
from mlcost.specs import Accelerator, Storage, TransformerSpec, default_catalog
from mlcost.units import Q_
from mlcost.workload import TrainingConfig

checkpoint_app = typer.Typer(
    help="Activation checkpoint placement and training-checkpoint intervals.",
    no_args_is_help=True,
)

JsonOption = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


@checkpoint_app.command("activations")
def activations(
    model: Annotated[str, typer.Argument(help="Transformer name or alias from the catalog.")],
    gpu: Annotated[str, typer.Option("--gpu", help="Accelerator name or alias.")] = (
        "h100-sxm5-80gb"
    ),
    batch: Annotated[int, typer.Option("--batch", "-b", help="Micro-batch size.")] = 1,
    seq: Annotated[int, typer.Option("--seq", "-s", help="Sequence length (tokens).")] = 2048,
    budget: Annotated[
        str | None,
        typer.Option(help="Per-GPU memory limit, e.g. 70GiB (default: the GPU's capacity)."),
    ] = None,
    precision: Annotated[str, typer.Option(help="fp32 | fp16-mixed | bf16-mixed | bf16 | fp8")] = (
        "bf16-mixed"
    ),
    attention: Annotated[str, typer.Option(help="eager | flash")] = "flash",
    optimizer: Annotated[str, typer.Option(help="adamw | adam | sgd | ...")] = "adamw",
    accumulation: Annotated[int, typer.Option(help="Gradient accumulation steps.")] = 1,
    zero: Annotated[int, typer.Option(help="ZeRO stage 0-3.")] = 0,
    dp: Annotated[int, typer.Option(help="Data-parallel degree.")] = 1,
    tp: Annotated[int, typer.Option(help="Tensor-parallel degree.")] = 1,
    pp: Annotated[int, typer.Option(help="Pipeline-parallel degree.")] = 1,
    selective: Annotated[
        str, typer.Option(help="attention-core | attention-and-elementwise")
    ] = "attention-core",
    curve: Annotated[bool, typer.Option(help="Print the whole memory/recompute curve.")] = False,
    as_json: JsonOption = False,
) -> None:
    """The cheapest activation recomputation that makes a step fit, and the trade-off curve."""
    catalog = default_catalog()
    spec = catalog.get(model)
    if not isinstance(spec, TransformerSpec):
        raise MlcostError(f"MODEL: {model!r} is a {spec.KIND}, expected a transformer")
    accelerator = catalog.get(gpu)
    if not isinstance(accelerator, Accelerator):
        raise MlcostError(f"--gpu: {gpu!r} is a {accelerator.KIND}, expected an accelerator")
    config = TrainingConfig(
        micro_batch_size=batch,
        sequence_length=seq,
        precision=precision,
        attention=attention,
        optimizer=optimizer,
        gradient_accumulation_steps=accumulation,
    )
    parallel = Parallelism(
        data_parallel=dp,
        tensor_parallel=tp,
        pipeline_parallel=pp,
        zero_stage=zero,
    )
    limit = quantity_option(budget, "GiB", "--budget") if budget is not None else None
    result = cheapest_recompute(
        spec, config, accelerator, parallel=parallel, memory_limit=limit, selective=selective
    )
    from mlcost.checkpointing import tradeoff_curve, transformer_layer_chain

    points = []
    if curve or as_json:
        chain = transformer_layer_chain(
            spec,
            config,
            accelerator,
            tensor_parallel=tp,
            pipeline_parallel=pp,
            selective=selective,
        )
        points = [p.to_dict() for p in tradeoff_curve(chain).points]
    if as_json:
        print_json(
            {
                "model": spec.name,
                "gpu": accelerator.name,
                "result": result.to_dict(),
                "alternatives": {
                    name: {
                        "activation_memory": alt.memory.to("GiB"),
                        "recompute_flops": alt.recompute_flops.to("flop"),
                    }
                    for name, alt in result.alternatives.items()
                },
                "curve": points,
            }
        )
        return
    console = stdout_console()
    table = Table(title=result.description, title_justify="left")
    table.add_column("strategy")
    table.add_column("activations GiB", justify="right")
    table.add_column("recomputed TFLOP / micro-batch", justify="right")
    for name, alt in result.alternatives.items():
        table.add_row(
            name,
            f"{alt.memory.to('GiB').magnitude:,.2f}",
            f"{alt.recompute_flops.to('TFLOP').magnitude:,.3f}",
        )
    best = result.chain_cost
    table.add_row(
        "[bold]cheapest that fits[/bold]",
        f"{best.memory.to('GiB').magnitude:,.2f}",
        f"{best.recompute_flops.to('TFLOP').magnitude:,.3f}",
    )
    console.print(table)
    console.print(result.explain(), highlight=False, markup=False)
    if curve:
        table = Table(title="memory / recompute trade-off (Pareto points)", title_justify="left")
        for column in ("placement", "memory GiB", "recompute ms"):
            table.add_column(column, justify="left" if column == "placement" else "right")
        for point in points:
            ms = point["recompute_ms"]
            table.add_row(
                point["placement"],
                f"{point['memory_GiB']:.2f}",
                "" if ms is None else f"{ms:.2f}",
            )
        console.print(table)


@checkpoint_app.command("interval")
def interval(
    params: Annotated[str, typer.Option(help="Parameters, e.g. 70B or 4.05e11.")],
    gpus: Annotated[int, typer.Option(help="GPUs in the job.")],
    mtbf_gpu: Annotated[
        str | None,
        typer.Option(
            "--mtbf-gpu",
            help="Per-GPU MTBF, e.g. '50000 h' (default: Llama 3's 54 d x 16,384 / 419).",
        ),
    ] = None,
    storage: Annotated[
        str,
        typer.Option(
            help="Storage catalog name (aggregate = its sequential write x --storage-devices) or "
            "an aggregate bandwidth such as '2 TB/s'."
        ),
    ] = "fsx-lustre-persistent2-250-24tib",
    storage_devices: Annotated[
        int, typer.Option("--storage-devices", help="Devices of --storage written in parallel.")
    ] = 1,
    restart: Annotated[
        str | None, typer.Option(help="Restart time, e.g. '10 min' (default Daly 2006's).")
    ] = None,
    every: Annotated[
        str | None, typer.Option("--every", help="Given interval instead of Daly's optimum.")
    ] = None,
    asynchronous: Annotated[
        bool, typer.Option("--async", help="Asynchronous checkpointing (snapshot, then write).")
    ] = False,
    snapshot_bandwidth: Annotated[
        str | None,
        typer.Option("--snapshot-bandwidth", help="Device-to-host bandwidth per GPU (--async)."),
    ] = None,
    precision: Annotated[str, typer.Option(help="Numeric format policy.")] = "bf16-mixed",
    optimizer: Annotated[str, typer.Option(help="Optimizer.")] = "adamw",
    as_json: JsonOption = False,
) -> None:
    """Checkpoint size, write time, Young and Daly intervals, expected waste and goodput."""
    if gpus < 1:
        raise MlcostError(f"--gpus: got {gpus}, expected >= 1")
    parameters = count_option(params, "--params")
    state = checkpoint_bytes_per_gpu(parameters, gpus, precision, optimizer)
    catalog = default_catalog()
    if storage in catalog:
        device = catalog.get(storage)
        if not isinstance(device, Storage):
            raise MlcostError(f"--storage: {storage!r} is a {device.KIND}, expected storage")
        bandwidth = storage_write_bandwidth(device, storage_devices)
        storage_label = f"{device.name} x {storage_devices}"
    else:
        try:
            bandwidth = quantity_option(storage, "GB/s", "--storage")
        except MlcostError:
            raise MlcostError(
                f"--storage: got {storage!r}, expected a storage name (mlcost specs list "
                "storage) or a bandwidth such as '2 TB/s'"
            ) from None
        storage_label = "given bandwidth"
    kwargs: dict[str, Any] = {
        "write_bandwidth": bandwidth,
        "mtbf_per_gpu": quantity_option(mtbf_gpu, "hour", "--mtbf-gpu") if mtbf_gpu else None,
        "asynchronous": asynchronous,
    }
    if restart is not None:
        kwargs["restart_time"] = quantity_option(restart, "minute", "--restart")
    if every is not None:
        kwargs["interval"] = quantity_option(every, "minute", "--every")
    if snapshot_bandwidth is not None:
        kwargs["snapshot_bandwidth"] = quantity_option(
            snapshot_bandwidth, "GB/s", "--snapshot-bandwidth"
        )
    plan = goodput_plan(state, gpus, **kwargs)
    p_day = float(failure_probability(Q_(1, "day"), plan.system_mtbf))
    if as_json:
        data = plan.to_dict()
        data["parameters"] = parameters
        data["storage"] = storage_label
        data["failure_probability_per_day"] = p_day
        print_json(data)
        return
    rows = [
        ("checkpoint size", f"{plan.checkpoint_bytes.to('TB').magnitude:,.4g} TB"),
        ("per GPU", f"{plan.state_bytes_per_gpu.to('GB').magnitude:,.4g} GB"),
        ("write bandwidth", f"{plan.write_bandwidth.to('GB/s').magnitude:,.4g} GB/s"),
        ("write time", f"{plan.write_time.to('s').magnitude:,.4g} s"),
        ("blocking checkpoint time", f"{plan.checkpoint_time.to('s').magnitude:,.4g} s"),
        ("system MTBF", f"{plan.system_mtbf.to('hour').magnitude:,.4g} h"),
        ("P(failure within a day)", f"{p_day:.1%}"),
        ("Young interval", f"{plan.young_interval.to('minute').magnitude:,.4g} min"),
        ("Daly interval", f"{plan.daly_interval.to('minute').magnitude:,.4g} min"),
        ("interval used", f"{plan.interval.to('minute').magnitude:,.4g} min"),
        ("expected waste", f"{plan.waste_fraction:.2%}"),
        ("goodput", f"{plan.goodput:.2%}"),
    ]
    table = Table(
        title=f"training checkpoints: {parameters:,.4g} params on {gpus:,} GPUs, {storage_label}"
        + (
            ""
            if mtbf_gpu
            else f" (MTBF/GPU {LLAMA3_MTBF_PER_GPU.to('hour').magnitude:,.0f} h, Llama 3)"
        ),
        title_justify="left",
    )
    table.add_column("quantity")
    table.add_column("value", justify="right")
    for name, value in rows:
        table.add_row(name, value)
    console = stdout_console()
    console.print(table)
    console.print(plan.explain(), highlight=False, markup=False)
