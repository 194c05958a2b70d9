"""``mlcost memory`` and ``mlcost fit``: memory per GPU of one step, and the inverse questions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from mlcost.cli.options import (
    DEFAULT_GPU,
    LAYOUT,
    TRAINING,
    GpuOption,
    JsonOption,
    ModelArgument,
    resolve_accelerator,
    resolve_model,
    with_options,
)
from mlcost.cli.output import print_json, stdout_console
from mlcost.errors import MlcostError
from mlcost.layout import Layout
from mlcost.memory import (
    PROFILES,
    Profile,
    max_micro_batch_size,
    max_sequence_length,
    memory_breakdown,
    min_gpus,
    smallest_gpu,
)
from mlcost.specs import Accelerator, ModelSpec, TransformerSpec, default_catalog
from mlcost.workload import TrainingConfig

if TYPE_CHECKING:  # the plan modules load only for ``mlcost fit`` (start-up of ``mlcost memory``)
    from mlcost.plan.fit import FineTuningFit

ProfileOption = Annotated[str, typer.Option(help="pytorch (eager, HF layout) | megatron")]


def profile_option(value: str) -> Profile:
    if value not in PROFILES:
        raise MlcostError(f"--profile: got {value!r}, expected pytorch or megatron")
    return value  # type: ignore[return-value]


@with_options(TRAINING, LAYOUT)
def memory(
    model: ModelArgument,
    config: TrainingConfig,
    layout: Layout,
    gpu: GpuOption = DEFAULT_GPU,
    profile: ProfileOption = "pytorch",
    mini_sequences: Annotated[
        int, typer.Option("--mini-sequences", help="Mini-Sequence Transformer chunks (M).")
    ] = 1,
    as_json: JsonOption = False,
) -> None:
    """Memory per GPU of one training step, term by term, against the GPU's usable memory."""
    accelerator = resolve_accelerator(gpu)
    breakdown = memory_breakdown(
        resolve_model(model),
        config,
        accelerator,
        layout,
        profile=profile_option(profile),
        mini_sequences=mini_sequences,
    )
    if as_json:
        print_json(
            {
                "model": resolve_model(model).name,
                "gpu": breakdown.gpu,
                "layout": layout.model_dump(mode="json"),
                "terms": [
                    {"name": t.name, "bytes": t.value.to("GiB"), "formula": t.formula,
                     "source": t.source}
                    for t in breakdown.terms
                ],
                "total": breakdown.total,
                "capacity": breakdown.capacity.to("GiB") if breakdown.capacity else None,
                "headroom": breakdown.headroom,
                "fits": bool(breakdown.fits()),
            }
        )  # fmt: skip
        return
    table = Table(
        title=f"memory per GPU on {accelerator.name}: {breakdown.description}", title_justify="left"
    )
    for column in ("term", "GiB", "GB", "formula"):
        table.add_column(column, justify="right" if column in ("GiB", "GB") else "left")
    for t in breakdown.terms:
        table.add_row(
            t.name,
            f"{t.value.to('GiB').magnitude:,.2f}",
            f"{t.value.to('GB').magnitude:,.2f}",
            t.formula,
        )
    total = breakdown.total
    table.add_row("total", f"{total.magnitude:,.2f}", f"{total.to('GB').magnitude:,.2f}", "")
    console = stdout_console()
    console.print(table)
    console.print(breakdown.why_not())


@with_options(TRAINING, LAYOUT)
def fit(
    model: ModelArgument,
    config: TrainingConfig,
    layout: Layout,
    gpu: GpuOption = DEFAULT_GPU,
    profile: ProfileOption = "pytorch",
    as_json: JsonOption = False,
) -> None:
    """Does it fit, the largest micro-batch, the longest sequence, the fewest GPUs; and which
    of full fine-tuning, LoRA and QLoRA fits, at which micro-batch and sequence."""
    spec, accelerator = resolve_model(model), resolve_accelerator(gpu)
    chosen = profile_option(profile)
    breakdown = memory_breakdown(spec, config, accelerator, layout, profile=chosen)
    gpus = [g for g in default_catalog().items("accelerators") if isinstance(g, Accelerator)]
    sharded = layout.model_copy(update={"zero_stage": 3, "dp": 1, "global_batch_size": None})
    smallest = smallest_gpu(spec, config, gpus, layout, profile=chosen)
    answers: dict[str, Any] = {
        "fits": bool(breakdown.fits()),
        "verdict": breakdown.why_not(),
        "max_micro_batch_size": max_micro_batch_size(
            spec, config, accelerator, layout, profile=chosen
        ),
        "max_sequence_length": max_sequence_length(
            spec, config, accelerator, layout, profile=chosen
        ),
        "smallest_catalog_gpu": None if smallest is None else smallest.name,
        "min_gpus_zero3": min_gpus(spec, config, accelerator, sharded, profile=chosen),
    }
    methods = _finetuning_rows(spec, accelerator, config, layout, chosen)
    if as_json:
        rows = None if methods is None else methods.to_frame().to_dict(orient="records")
        print_json({"model": spec.name, "gpu": accelerator.name, **answers, "finetuning": rows})
        return
    console = stdout_console()
    console.print(f"{accelerator.name}: {answers['verdict']}")
    console.print(
        f"largest micro-batch at s={config.sequence_length}: {answers['max_micro_batch_size']}"
    )
    console.print(
        f"longest sequence at b={layout.micro_batch_size}: {answers['max_sequence_length']:,}"
    )
    console.print(
        f"fewest GPUs with ZeRO-3 (x tp {layout.tp} x pp {layout.pp} x cp {layout.cp}): "
        f"{answers['min_gpus_zero3']}"
    )
    console.print(f"smallest catalog GPU that fits: {answers['smallest_catalog_gpu'] or 'none'}")
    if methods is not None:
        console.print(_finetuning_table(methods))


def _finetuning_rows(
    spec: ModelSpec, accelerator: Accelerator, config: TrainingConfig, layout: Layout,
    profile: Profile,
) -> FineTuningFit | None:  # fmt: skip
    """Full / LoRA / QLoRA on the GPU (decoder transformers; ``None`` for other models)."""
    if not isinstance(spec, TransformerSpec) or spec.architecture != "decoder":
        return None
    from mlcost.plan.fit import finetuning_fit

    return finetuning_fit(spec, accelerator, config, layout, profile=profile)


def _finetuning_table(fit: FineTuningFit) -> Table:
    table = Table(title=f"which fine-tuning fits: {fit.title()}", title_justify="left")
    frame = fit.to_frame()
    for column in frame.columns:
        table.add_column(str(column), justify="left" if column == "method" else "right")
    for record in frame.to_dict(orient="records"):
        cells = []
        for key, value in record.items():
            if key == "GiB per GPU":
                cells.append(f"{value:,.2f}")
            elif key == "fits":
                cells.append("yes" if value else "no")
            elif isinstance(value, int | float) and not isinstance(value, bool):
                cells.append(f"{value:,}" if value else "-")
            else:
                cells.append(str(value))
        table.add_row(*cells)
    return table
