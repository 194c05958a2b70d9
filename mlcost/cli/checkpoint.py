"""``mlcost checkpoint ...``: activation checkpoint placement and the training-checkpoint
interval against failures."""

from __future__ import annotations

import textwrap
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from mlcost.checkpointing import (
    LLAMA3_MTBF_PER_GPU,
    RecomputePlan,
    cheapest_recompute,
    checkpoint_bytes_per_gpu,
    failure_probability,
    goodput_plan,
    storage_write_bandwidth,
    tradeoff_curve,
    transformer_layer_chain,
)
from mlcost.cli.options import (
    DEFAULT_GPU,
    LAYOUT,
    TRAINING,
    AllOption,
    ExplainOption,
    GpuOption,
    JsonOption,
    quantity_option,
    resolve_accelerator,
    resolve_model,
    with_options,
)
from mlcost.cli.output import (
    print_answer,
    print_explained,
    print_json,
    print_short,
    stdout_console,
)
from mlcost.errors import MlcostError
from mlcost.layout import Layout
from mlcost.memory.breakdown import gib_text
from mlcost.results import SHORT_WIDTH, short_rows
from mlcost.specs import Storage, default_catalog
from mlcost.units import Q_, parse_count
from mlcost.workload import TrainingConfig

checkpoint_app = typer.Typer(
    help="Activation checkpoint placement and training-checkpoint intervals.",
    no_args_is_help=True,
)


@checkpoint_app.command("activations")
@with_options(TRAINING, LAYOUT)
def activations(
    model: Annotated[
        str, typer.Argument(help="Transformer: catalog name, spec YAML or config.json.")
    ],
    config: TrainingConfig,
    layout: Layout,
    gpu: GpuOption = DEFAULT_GPU,
    budget: Annotated[
        str | None,
        typer.Option(help="Per-GPU memory limit, e.g. 70GiB (default: the GPU's usable memory)."),
    ] = None,
    selective: Annotated[
        str, typer.Option(help="attention-core | attention-and-elementwise")
    ] = "attention-core",
    curve: Annotated[bool, typer.Option(help="Print the whole memory/recompute curve.")] = False,
    as_json: JsonOption = False,
    explain: ExplainOption = False,
    every: AllOption = False,
) -> None:
    """The cheapest activation recomputation that makes a step fit, and the trade-off curve."""
    spec, accelerator = resolve_model(model), resolve_accelerator(gpu)
    limit = quantity_option(budget, "GiB", "--budget") if budget is not None else None
    result = cheapest_recompute(
        spec, config, accelerator, layout, memory_limit=limit, selective=selective
    )
    points: list[dict[str, Any]] = []
    if curve or as_json:
        chain = transformer_layer_chain(spec, config, accelerator, layout, selective=selective)
        points = [p.to_dict() for p in tradeoff_curve(chain).points]
    if as_json:
        data = result.to_json()
        data.update({"model": spec.name, "gpu": accelerator.name, "curve": points})
        print_json(data)
        return
    fits = "yes" if result.fits else f"no: capacity {gib_text(result.capacity)} per GPU"
    alternatives = [(name, f"{alt.memory.to('GiB').magnitude:,.2f} GiB activations, "
                           f"{alt.recompute_flops.to('TFLOP').magnitude:,.3f} TFLOP / micro-batch")
                    for name, alt in result.alternatives.items()]  # fmt: skip
    print_answer(
        result, explain=explain, every=every or curve,
        full=lambda: _print_activations(result, points, curve),
        rows=[("fits", fits), *alternatives],
    )  # fmt: skip


def _print_activations(result: RecomputePlan, points: list[dict[str, Any]], curve: bool) -> None:
    """``mlcost checkpoint activations --all``: the strategies, every figure explained and,
    with ``--curve``, the memory / recompute trade-off."""
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
        Text("cheapest that fits", style="bold"),
        f"{best.memory.to('GiB').magnitude:,.2f}",
        f"{best.recompute_flops.to('TFLOP').magnitude:,.3f}",
    )
    console.print(table)
    print_explained(result)
    if curve:
        table = Table(title="memory / recompute trade-off (Pareto points)", title_justify="left")
        for column in ("placement", "memory GiB", "recompute ms"):
            table.add_column(column, justify="left" if column == "placement" else "right")
        for point in points:
            ms = point["recompute_ms"]
            table.add_row(
                point["placement"], f"{point['memory_GiB']:.2f}", "" if ms is None else f"{ms:.2f}"
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
    explain: ExplainOption = False,
    full: AllOption = False,
) -> None:
    """Checkpoint size, write time, Young and Daly intervals, expected waste and goodput."""
    if gpus < 1:
        raise MlcostError(f"--gpus: got {gpus}, expected >= 1")
    parameters = parse_count(params, "--params")
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
        data = plan.to_json()
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
    if explain:
        stdout_console().print(plan.explain(), highlight=False, markup=False)
        return
    if not full:
        verdict = (
            f"goodput {plan.goodput:.2%} checkpointing every "
            f"{plan.interval.to('minute').magnitude:,.4g} min: {parameters:,.4g} params on "
            f"{gpus:,} GPUs, {storage_label}"
        )
        chosen = [row for row in rows if row[0] in INTERVAL_SHORT]
        print_short([*textwrap.wrap(verdict, SHORT_WIDTH, subsequent_indent="  "),
                     *short_rows(chosen)])  # fmt: skip
        return
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


#: The rows of ``mlcost checkpoint interval``'s table that its short answer shows.
INTERVAL_SHORT = ("checkpoint size", "write time", "blocking checkpoint time", "system MTBF",
                  "Daly interval", "interval used", "expected waste")  # fmt: skip
