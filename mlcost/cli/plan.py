"""``mlcost plan``: the main command. Plan a run: layout, memory, step time, time to train,
energy, dollars and CO2, with sources; a run that does not fit exits with status 2 and the
nearest layouts that fit."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from mlcost.cli.options import (
    DEFAULT_MODEL,
    PLAN_LAYOUT,
    TRAINING,
    ImplementationOption,
    JsonOption,
    count_option,
    quantity_option,
    resolve_model,
    with_options,
)
from mlcost.cli.output import print_explained, print_json, print_result, save_png, stdout_console
from mlcost.layout import Layout
from mlcost.plan import Plan
from mlcost.specs import default_catalog
from mlcost.timing import step_time
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
    tokens: Annotated[str, typer.Option(help="Training tokens, e.g. 2e12 or 2T.")] = "2T",
    region: Annotated[
        str, typer.Option(help="Grid region for CO2e (mlcost specs list grids).")
    ] = "us",
    price: Annotated[
        str | None, typer.Option(help="USD per GPU-hour, or a catalog price name.")
    ] = None,
    purchase: Annotated[str | None, typer.Option(help="Purchase price per GPU (USD).")] = None,
    pue: Annotated[
        float | None, typer.Option(help="Data-centre PUE (default: the grid's).")
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
    explain: Annotated[bool, typer.Option(help="Each figure with formula and source.")] = False,
    plots: Annotated[
        Path | None, typer.Option(help="Folder to write roofline.png and memory.png into.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Plan a run: its layout (given with --tp/--pp/..., or the fastest that fits), memory, step
    time, time to train, energy, dollars and CO2, with sources."""
    catalog = default_catalog()
    price_value: Any = price
    if price is not None and price not in catalog:
        price_value = quantity_option(price, "USD/hour", "--price")
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
        tokens=count_option(tokens, "--tokens"),
        config=config,
        region=region,
        price=price_value,
        purchase_price=quantity_option(purchase, "USD", "--purchase") if purchase else None,
        pue=pue,
        sustained=quantity_option(str(sustained), "TFLOP/s", "--sustained") if sustained else None,
        flop_count="6ND" if sustained else "operators",
        failures=failures,
        catalog=catalog,
        implementation=implementation,
    )
    the_plan.require_fit()
    written = _plots(the_plan, plots) if plots is not None else []
    if as_json:
        data = the_plan.to_json()
        data["plots"] = written
        print_json(data)
        return
    if explain:
        print_explained(the_plan)
    else:
        print_result(the_plan, title=f"plan: {the_plan.description}")
        stdout_console().print(
            "[dim]--explain shows the numbers substituted and each source.[/dim]"
        )
    for path in written:
        stdout_console().print(f"wrote {path}")


def _plots(the_plan: Plan, folder: Path) -> list[str]:
    """The roofline of the model's operators on the plan's GPU, and the memory per GPU."""
    import matplotlib

    matplotlib.use("Agg")
    from mlcost import plot

    folder.mkdir(parents=True, exist_ok=True)
    r = the_plan.run
    single = step_time(r.model, r.config, r.system.accelerator, r.layout, implementation=r.software)
    roofline = plot.roofline(the_plan.accelerator, single, format=r.config.policy.compute_format)
    save_png(roofline, folder / "roofline.png")
    save_png(plot.memory(the_plan.memory()), folder / "memory.png")
    return [str(folder / "roofline.png"), str(folder / "memory.png")]
