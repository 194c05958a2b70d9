"""``mlcost plan``: the main command. Plan a run: layout, memory, step time, time to train,
energy, dollars and CO2, with sources; a run that does not fit exits with status 2 and the
nearest layouts that fit."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Annotated, Any

import typer

from mlcost.cli.options import (
    DEFAULT_MODEL,
    PLAN_LAYOUT,
    TRAINING,
    AllOption,
    ExplainOption,
    ForceOption,
    ImplementationOption,
    JsonOption,
    price_option,
    quantity_option,
    renamed,
    resolve_accelerator,
    resolve_model,
    with_options,
)
from mlcost.cli.output import (
    check_destination,
    print_answer,
    print_json,
    print_short,
    save_png,
    stdout_console,
)
from mlcost.io import check_output, make_output_folder, write_output
from mlcost.layout import Layout
from mlcost.plan import Plan
from mlcost.plan.inputs import PlanInputs
from mlcost.results import SHORT_WIDTH, short_rows
from mlcost.specs import default_catalog
from mlcost.timing import step_time
from mlcost.units import parse_count
from mlcost.workload import TrainingConfig

DEFAULT_SYSTEM = "dgx-h100"


@with_options(TRAINING, PLAN_LAYOUT)
def plan(
    config: TrainingConfig,
    layout: Layout | None,
    model: Annotated[str, typer.Argument(help="Model name, alias or spec path.")] = DEFAULT_MODEL,
    gpu: Annotated[
        str | None,
        typer.Option(
            help="Accelerator, a spec YAML or a calibrated profile (default: the system's)."
        ),
    ] = None,
    system: Annotated[
        str | None,
        typer.Option(
            help="Node or cluster (GPU, links, host power, storage); default dgx-h100 "
            "without --gpu."
        ),
    ] = None,
    gpus: Annotated[
        int | None, typer.Option(help="Number of GPUs (default: the system's).")
    ] = None,
    tokens: Annotated[
        str | None,
        typer.Option(
            help="Training tokens, e.g. 2e12 or 2T (default: 20 per parameter, Chinchilla's "
            "compute-optimal count, as in Python; a LoRA/QLoRA run must give them)."
        ),
    ] = None,
    region: Annotated[
        str | None,
        typer.Option(help="Grid region for CO2e, PUE and price (default: world, as in Python)."),
    ] = None,
    price: Annotated[
        str | None, typer.Option(help="USD per GPU-hour, or a catalog price name.")
    ] = None,
    purchase: Annotated[str | None, typer.Option(help="Purchase price per GPU (USD).")] = None,
    pue: Annotated[
        float | None, typer.Option(help="Data-centre PUE (default: the grid's, else --facility's).")
    ] = None,
    accounting: Annotated[
        str,
        typer.Option(
            help="measured-node (default) | system-per-accelerator | gpu-tdp | utilization."
        ),
    ] = "measured-node",
    power_per_gpu: Annotated[
        str | None,
        typer.Option(help="Measured system power per GPU, e.g. '330 W' (system-per-accelerator)."),
    ] = None,
    facility: Annotated[
        str | None,
        typer.Option(help="PUE by facility class: industry-average (1.58) | hyperscale (1.10)."),
    ] = None,
    idle_power: Annotated[
        str | None,
        typer.Option(help="Idle infrastructure power per GPU, e.g. '237 W' (reported apart)."),
    ] = None,
    gpu_hours: Annotated[
        str | None,
        typer.Option(help="Report mode: published GPU-hours replace the predicted wall clock."),
    ] = None,
    sustained: Annotated[
        float | None,
        typer.Option(help="Napkin mode: achieved TFLOP/s per GPU instead of the roofline."),
    ] = None,
    implementation: ImplementationOption = None,
    failures: Annotated[
        bool,
        typer.Option(help="Model failures and checkpoints (goodput) where storage is known."),
    ] = True,
    explain: ExplainOption = False,
    every: AllOption = False,
    plot_dir: Annotated[
        Path | None,
        typer.Option("--plot-dir", help="Folder to write roofline.png and memory.png into."),
    ] = None,
    old_plot: Annotated[
        Path | None, typer.Option("--plot", hidden=True, help="Deprecated: --plot-dir.")
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Write a static HTML report (opens without a server)."),
    ] = None,
    force: ForceOption = False,
    as_json: JsonOption = False,
) -> None:
    """Plan a run: its layout (given with --tp/--pp/..., or the fastest that fits), memory, step
    time, time to train, energy, dollars and CO2, with sources."""
    plots = renamed(plot_dir, old_plot, "--plot", "--plot-dir")
    if plots is not None:
        option = "--plot-dir" if old_plot is None else "--plot"
        check_destination(plots, option, folder=True)
        if plots.is_dir():
            for name in PLOT_FILES:
                check_destination(plots / name, option, force=force)
    if html is not None:  # refused before any work, under the one output rule (mlcost.io)
        check_output(html, option="--html", suffixes=(".html", ".htm"), force=force)
    catalog = default_catalog()
    price_value = price_option(price)  # a number, or a catalog price name or alias
    # --global-batch alone sets the batch the layout search works for; any other layout option
    # gives the layout itself.
    batch_only = layout is not None and layout.model_fields_set == {"global_batch_size"}
    the_plan = Plan(
        resolve_model(model),
        gpu=gpu,
        gpus=gpus,
        system=DEFAULT_SYSTEM if system is None and gpu is None else system,
        layout=None if batch_only else layout,
        global_batch_size=layout.global_batch_size if batch_only and layout else None,
        tokens=None if tokens is None else parse_count(tokens, "--tokens"),
        config=config,
        region=region or PlanInputs.region,
        price=price_value,
        purchase_price=quantity_option(purchase, "USD", "--purchase") if purchase else None,
        pue=pue,
        accounting=accounting,
        power_per_gpu=quantity_option(power_per_gpu, "W", "--power-per-gpu")
        if power_per_gpu
        else None,
        facility=facility,
        idle_power=quantity_option(idle_power, "W", "--idle-power") if idle_power else None,
        gpu_hours=parse_count(gpu_hours, "--gpu-hours") if gpu_hours else None,
        sustained=quantity_option(str(sustained), "TFLOP/s", "--sustained") if sustained else None,
        flop_count="6ND" if sustained else "operators",
        failures=failures,
        catalog=catalog,
        implementation=implementation,
    )
    the_plan.require_fit()
    written = _plots(the_plan, plots, force=force) if plots is not None else []
    if html is not None:
        from mlcost.ui.report import plan_report  # the standard library only: no ui extra

        write_output(
            html, plan_report(the_plan), option="--html", suffixes=(".html", ".htm"), force=force
        )
        written.append(str(html))
    note = the_plan.report_mode_note()  # said, never silent (issue 65)
    if as_json:
        data = the_plan.to_json()
        data["plots"] = written
        data["warnings"] = [note] if note else []
        print_json(data)
        return
    print_answer(the_plan, explain=explain, every=every)
    for path in written:
        stdout_console().print(f"wrote {path}")
    if note:
        typer.echo(f"warning: {note}", err=True)


#: The files ``mlcost plan --plot-dir FOLDER`` writes into FOLDER.
PLOT_FILES = ("roofline.png", "memory.png")


def _plots(the_plan: Plan, folder: Path, *, force: bool = False) -> list[str]:
    """The roofline of the model's operators on the plan's GPU, and the memory per GPU."""
    import matplotlib

    matplotlib.use("Agg")
    from mlcost import plot

    make_output_folder(folder, option="--plot-dir")
    r = the_plan.run
    single = step_time(r.model, r.config, r.system.accelerator, r.layout, implementation=r.software)
    roofline = plot.roofline(the_plan.accelerator, single, format=r.config.policy.compute_format)
    save_png(roofline, folder / PLOT_FILES[0], force=force)
    save_png(plot.memory(the_plan.memory()), folder / PLOT_FILES[1], force=force)
    return [str(folder / name) for name in PLOT_FILES]


def energy(
    gpu_hours: Annotated[
        str, typer.Option("--gpu-hours", help="Published GPU-hours, e.g. 1.46M or 3.552e6.")
    ],
    gpu: Annotated[str, typer.Option(help="Accelerator (its TDP for gpu-tdp).")] = "h100-sxm5-80gb",
    accounting: Annotated[
        str, typer.Option(help="gpu-tdp (model cards) | system-per-accelerator (Patterson).")
    ] = "gpu-tdp",
    power_per_gpu: Annotated[
        str | None,
        typer.Option(help="Power per GPU the report counts, e.g. '330 W' (default: the TDP)."),
    ] = None,
    pue: Annotated[float, typer.Option(help="The report's PUE.")] = 1.0,
    region: Annotated[str | None, typer.Option(help="Grid region for the intensity.")] = None,
    intensity: Annotated[
        str | None, typer.Option(help="Location-based intensity, e.g. '429 gCO2e/kWh'.")
    ] = None,
    market_intensity: Annotated[
        str | None, typer.Option(help="Market-based intensity, e.g. '0 gCO2e/kWh'.")
    ] = None,
    idle_power: Annotated[
        str | None,
        typer.Option(help="Idle infrastructure power per GPU, e.g. '237 W' (life-cycle view)."),
    ] = None,
    idle_energy: Annotated[
        str | None,
        typer.Option(help="The report's idle energy, e.g. '256646 kWh' (BLOOM's idle share)."),
    ] = None,
    gpus_per_server: Annotated[
        int | None,
        typer.Option(
            min=1, help="Add embodied CO2e of GPUs and servers (GPUs per server, e.g. 8)."
        ),
    ] = None,
    as_json: JsonOption = False,
    every: Annotated[
        bool, typer.Option("--all", help="The report as one sentence (the former output).")
    ] = False,
) -> None:
    """Report mode: energy and CO2e of published GPU-hours under a report's convention
    (E = GPU-hours x power per GPU x PUE [+ idle]; CO2e = E x intensity [+ embodied])."""
    from mlcost.energy import check_accounting, report_energy
    from mlcost.errors import MlcostError

    check_accounting(accounting)  # first: an unknown name is its own error, not --power-per-gpu's
    accelerator = resolve_accelerator(gpu)
    if power_per_gpu is not None:
        power: Any = quantity_option(power_per_gpu, "W", "--power-per-gpu")
    elif accounting == "gpu-tdp" and accelerator.tdp is not None:
        power = accelerator.tdp
    else:
        raise MlcostError(
            f"--power-per-gpu: {accounting} needs the power per GPU the report counts, e.g. '330 W'"
        )
    if intensity is None and region is None:
        raise MlcostError("--intensity: give the report's grid intensity, or --region")
    if idle_power is not None and idle_energy is not None:
        raise MlcostError("--idle-energy: give --idle-power or --idle-energy, not both")
    report = report_energy(
        parse_count(gpu_hours, "--gpu-hours"), power, pue=pue,
        intensity=intensity if intensity is not None
        else default_catalog().grid(str(region)).carbon_intensity,
        market_intensity=market_intensity,
        accounting=accounting,
        idle_power_per_gpu=None if idle_power is None
        else quantity_option(idle_power, "W", "--idle-power"),
        idle_energy=None if idle_energy is None
        else quantity_option(idle_energy, "kWh", "--idle-energy"),
        gpus_per_server=gpus_per_server,
    )  # fmt: skip
    if as_json:
        embodied = report.embodied_carbon
        print_json(
            {
                "gpu_hours": report.gpu_hours, "power_per_gpu": report.power_per_gpu,
                "pue": report.pue, "dynamic_energy": report.dynamic_energy.to("MWh"),
                "idle_energy": report.idle_energy.to("MWh"), "energy": report.energy.to("MWh"),
                "location_carbon": report.location_carbon.to("tCO2e"),
                "location_carbon_dynamic": report.dynamic_carbon,
                "location_carbon_idle": report.idle_carbon,
                "market_carbon": None if report.market_carbon is None
                else report.market_carbon.to("tCO2e"),
                "embodied_carbon": None if embodied is None else embodied.to("tCO2e"),
                "total_carbon": report.total_carbon.to("tCO2e"),
                "accounting": report.accounting,
            }
        )  # fmt: skip
        return
    if every:
        stdout_console().print(report.text(), highlight=False)
        return
    print_short(
        [*textwrap.wrap(f"{report.total_carbon.to('tCO2e').magnitude:,.4g} tCO2e in all for "
                        f"{report.gpu_hours.to('hour').magnitude:,.4g} GPU-hours", SHORT_WIDTH),
         *short_rows(report.short_rows())],
        "--all: the report's sentence, every figure in one line",
    )  # fmt: skip
