"""The ``mlcost`` command line (typer + rich).

Every command takes ``--json`` where it prints numbers; in JSON every quantity is
``{"value": <number>, "unit": "<pint unit string>"}``. A user error (unknown name, bad file)
prints one line on stderr and exits with status 2, never a traceback.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from mlcost import __version__
from mlcost.cli_checkpoint import checkpoint_app
from mlcost.cli_common import count_option, print_json, quantity_option, save_png, stdout_console
from mlcost.cli_parallel import comm_app, parallel_command
from mlcost.describe import Row, SpecDescription, describe, value_text
from mlcost.errors import MlcostError
from mlcost.flops import training_flops
from mlcost.io import write_bytes_atomically, write_text_atomically
from mlcost.memory import (
    Parallelism,
    Profile,
    max_micro_batch_size,
    max_sequence_length,
    memory_breakdown,
    min_gpus,
    smallest_gpu,
)
from mlcost.specs import (
    GROUPS,
    Accelerator,
    Catalog,
    ConvNetSpec,
    Spec,
    TransformerSpec,
    default_catalog,
    from_hf_config,
    load_spec,
)
from mlcost.timing import step_time
from mlcost.units import Q_, quantity_to_json
from mlcost.workload import TrainingConfig, operators

app = typer.Typer(
    help="What a training run costs - FLOPs, memory, time, dollars, CO2 - before you rent a GPU.",
    no_args_is_help=True,
    add_completion=False,
)
specs_app = typer.Typer(help="List, show, validate and import specs.", no_args_is_help=True)
app.add_typer(specs_app, name="specs")
app.add_typer(checkpoint_app, name="checkpoint")
app.add_typer(comm_app, name="comm")
app.command("parallel")(parallel_command)

DEFAULT_MODEL = "llama-2-7b"
DEFAULT_GPU = "h100-sxm5-80gb"


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"mlcost {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version_callback, is_eager=True, help="Print the version."
        ),
    ] = False,
) -> None:
    """mlcost command line."""


def _resolve(name_or_path: str, catalog: Catalog) -> Spec:
    """A catalog name, a spec YAML path or a Hugging Face config.json path."""
    path = Path(name_or_path)
    if path.suffix.lower() in (".yaml", ".yml") or (path.exists() and path.suffix != ".json"):
        return load_spec(path)
    if path.suffix.lower() == ".json":
        return from_hf_config(path)
    return catalog.get(name_or_path)


def _render(description: SpecDescription, console: Console) -> None:
    spec = description.spec
    table = Table(title=f"{spec.display_name or spec.name}  ({spec.name})", title_justify="left")
    table.add_column("", style="dim")
    table.add_column("field")
    table.add_column("value", justify="right")
    table.add_column("source", overflow="fold", max_width=60)
    for row in description.rows:
        table.add_row(row.section, row.field, value_text(row.value), Text(_short_source(spec, row)))
    console.print(table)
    if spec.notes:
        console.print(f"[dim]notes:[/dim] {spec.notes}")
    for key, text in spec.references.items():
        console.print(Text.assemble((f"[{key}] ", "dim"), text))


def _short_source(spec: Spec, row: Row) -> str:
    """In tables a field's source is its reference key (the references are listed below the
    table); derived rows show their formula."""
    if row.section == "fields":
        entry = spec.source_entry(row.field.split(" ")[0]) if " " not in row.field else None
        if row.field.startswith("peak "):
            entry = spec.source_entry("peak_compute")
        if entry is not None and entry in spec.references:
            return f"[{entry}]"
    return row.source or ""


@specs_app.command("list")
def specs_list(
    group: Annotated[
        str | None,
        typer.Argument(help=f"One of: {', '.join(GROUPS)}. All when left out."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """List the catalog (all of it, or one group)."""
    catalog = default_catalog()
    items = catalog.items(group)
    if as_json:
        print_json(
            [
                {
                    "name": s.name,
                    "kind": s.KIND,
                    "display_name": s.display_name,
                    "aliases": list(s.aliases),
                }
                for s in items
            ]
        )
        return
    table = Table(
        title=f"mlcost catalog: {group or 'everything'} ({len(items)})", title_justify="left"
    )
    table.add_column("name")
    table.add_column("kind", style="dim")
    table.add_column("description")
    table.add_column("aliases", style="dim")
    for spec in items:
        table.add_row(spec.name, spec.KIND, spec.display_name or "", ", ".join(spec.aliases))
    stdout_console().print(table)


@specs_app.command("show")
def specs_show(
    names: Annotated[
        list[str],
        typer.Argument(help="Catalog names or aliases, spec YAML paths, or HF config.json paths."),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Show specs with every number's unit and source, and derived values."""
    catalog = default_catalog()
    descriptions = [describe(_resolve(name, catalog), catalog) for name in names]
    if as_json:
        payload = [d.to_json() for d in descriptions]
        print_json(payload[0] if len(payload) == 1 else payload)
        return
    console = stdout_console()
    for description in descriptions:
        _render(description, console)


@specs_app.command("validate")
def specs_validate(
    paths: Annotated[list[Path], typer.Argument(help="Spec YAML files to check.")],
) -> None:
    """Check spec files: schema, units, signs, and that every number has a source."""
    failed = False
    for path in paths:
        spec = load_spec(path)
        missing = spec.unsourced_paths()
        if missing:
            failed = True
            typer.echo(f"{path}: numbers without a source: {', '.join(missing)}", err=True)
        else:
            typer.echo(f"{path}: ok ({spec.KIND} {spec.name})")
    if failed:
        raise typer.Exit(1)


@specs_app.command("import-hf")
def specs_import_hf(
    config: Annotated[Path, typer.Argument(help="A Hugging Face config.json.")],
    name: Annotated[str | None, typer.Option(help="Canonical name for the spec.")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write YAML here.")] = None,
) -> None:
    """Turn a Hugging Face config.json into an mlcost transformer spec (YAML)."""
    spec = from_hf_config(config, name=name)
    text = spec.to_yaml()
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_text_atomically(output, text)
        typer.echo(f"wrote {output} ({spec.parameter_count:,} parameters)")


@app.command()
def summary(
    model: Annotated[str, typer.Option(help="Model name, alias or spec path.")] = DEFAULT_MODEL,
    gpu: Annotated[str, typer.Option(help="Accelerator name, alias or spec path.")] = DEFAULT_GPU,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """The default job: a model and a GPU side by side, with their sources."""
    catalog = default_catalog()
    model_spec = _resolve(model, catalog)
    gpu_spec = _resolve(gpu, catalog)
    if not isinstance(model_spec, (TransformerSpec, ConvNetSpec)):
        raise MlcostError(f"--model: {model!r} is a {model_spec.KIND}, expected a model")
    if not isinstance(gpu_spec, Accelerator):
        raise MlcostError(f"--gpu: {gpu!r} is a {gpu_spec.KIND}, expected an accelerator")
    descriptions = [describe(gpu_spec, catalog), describe(model_spec, catalog)]
    if as_json:
        print_json({"accelerator": descriptions[0].to_json(), "model": descriptions[1].to_json()})
        return
    console = stdout_console()
    for description in descriptions:
        _render(description, console)


def _training_config(**options: Any) -> TrainingConfig:
    """The CLI's options as a TrainingConfig (bad values raise SpecError, shown as one line)."""
    names = {
        "batch": "micro_batch_size",
        "seq": "sequence_length",
        "accumulation": "gradient_accumulation_steps",
        "window": "attention_window",
    }
    return TrainingConfig(**{names.get(key, key): value for key, value in options.items()})


Batch = Annotated[int, typer.Option("--batch", "-b", help="Micro-batch size.")]
Seq = Annotated[int, typer.Option("--seq", "-s", help="Sequence length (tokens).")]
PrecisionOption = Annotated[str, typer.Option(help="fp32 | fp16-mixed | bf16-mixed | bf16 | fp8")]
AttentionOption = Annotated[str, typer.Option(help="eager | flash")]
AttentionFlopsOption = Annotated[
    str,
    typer.Option("--attention-flops", help="executed (every score the kernel computes) | causal"),
]
RecomputeOption = Annotated[str, typer.Option(help="none | selective | full | every-k")]
RecomputeEveryOption = Annotated[
    int | None, typer.Option("--recompute-every", help="k for --recompute every-k.")
]
AccumulationOption = Annotated[
    int, typer.Option("--accumulation", help="Gradient accumulation steps.")
]
OptimizerOption = Annotated[str, typer.Option(help="adamw | adam | sgd | lion | ...")]
ImageOption = Annotated[int | None, typer.Option("--image-size", help="Conv nets: pixels.")]
WindowOption = Annotated[
    int | None, typer.Option("--window", help="Sliding-window attention of this many keys.")
]


@app.command()
def flops(
    model: Annotated[str, typer.Argument(help="Model name, alias, spec YAML or config.json.")],
    batch: Batch = 1,
    seq: Seq = 2048,
    precision: PrecisionOption = "bf16-mixed",
    attention: AttentionOption = "flash",
    attention_flops: AttentionFlopsOption = "executed",
    recompute: RecomputeOption = "none",
    recompute_every: RecomputeEveryOption = None,
    accumulation: AccumulationOption = 1,
    optimizer: OptimizerOption = "adamw",
    image_size: ImageOption = None,
    window: WindowOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """FLOPs of one training step: exact count, model vs hardware FLOPs, closed forms."""
    spec = _resolve(model, default_catalog())
    config = _training_config(
        batch=batch,
        seq=seq,
        precision=precision,
        attention=attention,
        attention_flops=attention_flops,
        recompute=recompute,
        recompute_every=recompute_every,
        accumulation=accumulation,
        optimizer=optimizer,
        image_size=image_size,
        window=window,
    )
    result = training_flops(spec, config)
    rows = result.rows()
    if as_json:
        print_json(
            {
                "model": spec.name,
                "config": config.model_dump(mode="json"),
                "tokens_per_step": quantity_to_json(result.tokens),
                "model_flops_per_token": quantity_to_json(result.model_flops_per_token),
                "rows": [
                    {"quantity": name, "flops": quantity_to_json(value), "vs_exact": diff}
                    for name, value, diff in rows
                ],
            }
        )
        return
    table = Table(
        title=f"FLOPs per training step: {result.table.description}", title_justify="left"
    )
    table.add_column("quantity")
    table.add_column("FLOPs", justify="right")
    table.add_column("vs exact model FLOPs", justify="right")
    for name, value, diff in rows:
        table.add_row(name, f"{value.to('flop').magnitude:.4e}", f"{diff:+.2%}" if diff else "")
    console = stdout_console()
    console.print(table)
    console.print(
        f"tokens per step: {result.tokens.magnitude:,}; model FLOPs per token: "
        f"{result.model_flops_per_token.magnitude:,.4g}"
    )


@app.command()
def ops(
    model: Annotated[str, typer.Argument(help="Model name, alias, spec YAML or config.json.")],
    batch: Batch = 1,
    seq: Seq = 2048,
    precision: PrecisionOption = "bf16-mixed",
    attention: AttentionOption = "flash",
    attention_flops: AttentionFlopsOption = "executed",
    recompute: RecomputeOption = "none",
    recompute_every: RecomputeEveryOption = None,
    accumulation: AccumulationOption = 1,
    optimizer: OptimizerOption = "adamw",
    image_size: ImageOption = None,
    window: WindowOption = None,
    csv: Annotated[Path | None, typer.Option("--csv", help="Write the table as CSV here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """The operator table of one training step (per-execution figures; see 'count')."""
    spec = _resolve(model, default_catalog())
    config = _training_config(
        batch=batch,
        seq=seq,
        precision=precision,
        attention=attention,
        attention_flops=attention_flops,
        recompute=recompute,
        recompute_every=recompute_every,
        accumulation=accumulation,
        optimizer=optimizer,
        image_size=image_size,
        window=window,
    )
    table_of_ops = operators(spec, config)
    if csv is not None:
        write_text_atomically(csv, table_of_ops.to_frame().to_csv(index=False))
        typer.echo(f"wrote {csv} ({len(table_of_ops)} operators)")
        return
    if as_json:
        typer.echo(table_of_ops.to_frame().to_json(orient="records", indent=2))
        return
    table = Table(title=f"operators: {table_of_ops.description}", title_justify="left")
    for column in ("name", "kind", "count", "forward GFLOP", "backward GFLOP", "saved MB"):
        table.add_column(column, justify="left" if column in ("name", "kind") else "right")
    for op in table_of_ops.operators:
        table.add_row(
            op.name,
            op.kind,
            f"{op.count:g}",
            f"{op.forward_flops / 1e9:,.3f}",
            f"{op.backward_flops / 1e9:,.3f}",
            f"{op.saved_bytes / 1e6:,.2f}",
        )
    stdout_console().print(table)


ProfileOption = Annotated[str, typer.Option(help="pytorch (eager, HF layout) | megatron")]
Zero = Annotated[int, typer.Option("--zero", help="ZeRO stage 0-3 over the data-parallel ranks.")]
Dp = Annotated[int, typer.Option("--dp", help="Data-parallel degree.")]
Tp = Annotated[int, typer.Option("--tp", help="Tensor-parallel degree.")]
Pp = Annotated[int, typer.Option("--pp", help="Pipeline-parallel degree.")]
SpOption = Annotated[bool, typer.Option("--sp", help="Sequence parallelism (with --tp).")]
OffloadOption = Annotated[bool, typer.Option("--offload", help="Optimizer states on the CPU.")]
GpuOption = Annotated[str, typer.Option("--gpu", help="Accelerator name, alias or spec path.")]


def _memory_inputs(
    model: str, gpu: str, zero: int, dp: int, tp: int, pp: int, sp: bool, offload: bool
) -> tuple[Spec, Accelerator, Parallelism]:
    catalog = default_catalog()
    spec = _resolve(model, catalog)
    accelerator = _resolve(gpu, catalog)
    if not isinstance(accelerator, Accelerator):
        raise MlcostError(f"--gpu: {gpu!r} is a {accelerator.KIND}, expected an accelerator")
    parallel = Parallelism(
        data_parallel=dp,
        tensor_parallel=tp,
        pipeline_parallel=pp,
        zero_stage=zero,
        sequence_parallel=sp,
        cpu_offload=offload,
    )
    return spec, accelerator, parallel


@app.command()
def memory(
    model: Annotated[str, typer.Argument(help="Model name, alias, spec YAML or config.json.")],
    gpu: GpuOption = DEFAULT_GPU,
    batch: Batch = 1,
    seq: Seq = 2048,
    precision: PrecisionOption = "bf16-mixed",
    optimizer: OptimizerOption = "adamw",
    recompute: RecomputeOption = "none",
    recompute_every: RecomputeEveryOption = None,
    attention: AttentionOption = "flash",
    profile: ProfileOption = "pytorch",
    zero: Zero = 0,
    dp: Dp = 1,
    tp: Tp = 1,
    pp: Pp = 1,
    sp: SpOption = False,
    offload: OffloadOption = False,
    mini_sequences: Annotated[
        int, typer.Option("--mini-sequences", help="Mini-Sequence Transformer chunks (M).")
    ] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Memory per GPU of one training step, term by term, against the GPU's capacity."""
    spec, accelerator, parallel = _memory_inputs(model, gpu, zero, dp, tp, pp, sp, offload)
    config = _training_config(
        batch=batch,
        seq=seq,
        precision=precision,
        optimizer=optimizer,
        recompute=recompute,
        recompute_every=recompute_every,
        attention=attention,
    )
    breakdown = memory_breakdown(
        spec,
        config,
        accelerator,
        parallel=parallel,
        profile=_profile(profile),
        mini_sequences=mini_sequences,
    )
    if as_json:
        print_json(
            {
                "model": spec.name,
                "gpu": accelerator.name,
                "terms": [
                    {
                        "name": t.name,
                        "bytes": quantity_to_json(t.bytes.to("GiB")),
                        "formula": t.formula,
                        "source": t.source,
                    }
                    for t in breakdown.terms
                ],
                "total": quantity_to_json(breakdown.total),
                "capacity": quantity_to_json(breakdown.capacity.to("GiB"))
                if breakdown.capacity is not None
                else None,
                "headroom": quantity_to_json(breakdown.headroom),
                "fits": bool(breakdown.fits()),
            }
        )
        return
    table = Table(title=f"memory per GPU: {breakdown.description}", title_justify="left")
    for column in ("term", "GiB", "GB", "formula"):
        table.add_column(column, justify="right" if column in ("GiB", "GB") else "left")
    for t in breakdown.terms:
        table.add_row(
            t.name,
            f"{t.bytes.to('GiB').magnitude:,.2f}",
            f"{t.bytes.to('GB').magnitude:,.2f}",
            t.formula,
        )
    table.add_row(
        "total",
        f"{breakdown.total.magnitude:,.2f}",
        f"{breakdown.total.to('GB').magnitude:,.2f}",
        "",
    )
    console = stdout_console()
    console.print(table)
    console.print(breakdown.why_not())


def _profile(value: str) -> Profile:
    if value not in ("pytorch", "megatron"):
        raise MlcostError(f"--profile: got {value!r}, expected pytorch or megatron")
    return value  # type: ignore[return-value]


@app.command()
def fit(
    model: Annotated[str, typer.Argument(help="Model name, alias, spec YAML or config.json.")],
    gpu: GpuOption = DEFAULT_GPU,
    batch: Batch = 1,
    seq: Seq = 2048,
    precision: PrecisionOption = "bf16-mixed",
    optimizer: OptimizerOption = "adamw",
    recompute: RecomputeOption = "none",
    attention: AttentionOption = "flash",
    profile: ProfileOption = "pytorch",
    zero: Zero = 0,
    dp: Dp = 1,
    tp: Tp = 1,
    pp: Pp = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Does it fit, the largest micro-batch, the longest sequence, the fewest GPUs."""
    spec, accelerator, parallel = _memory_inputs(model, gpu, zero, dp, tp, pp, False, False)
    config = _training_config(
        batch=batch,
        seq=seq,
        precision=precision,
        optimizer=optimizer,
        recompute=recompute,
        attention=attention,
    )
    options: dict[str, Any] = {"parallel": parallel, "profile": _profile(profile)}
    breakdown = memory_breakdown(spec, config, accelerator, **options)
    answers = {
        "fits": bool(breakdown.fits()),
        "verdict": breakdown.why_not(),
        "max_micro_batch_size": max_micro_batch_size(spec, config, accelerator, **options),
        "max_sequence_length": max_sequence_length(spec, config, accelerator, **options),
        "smallest_catalog_gpu": getattr(
            smallest_gpu(spec, config, default_catalog().items("accelerators"), **options),  # type: ignore[arg-type]
            "name",
            None,
        ),
        "min_gpus_zero3": min_gpus(
            spec,
            config,
            accelerator,
            zero_stage=3,
            tensor_parallel=tp,
            pipeline_parallel=pp,
            profile=_profile(profile),
        ),
    }
    if as_json:
        print_json({"model": spec.name, "gpu": accelerator.name, **answers})
        return
    console = stdout_console()
    console.print(answers["verdict"])
    console.print(f"largest micro-batch at s={seq}: {answers['max_micro_batch_size']}")
    console.print(f"longest sequence at b={batch}: {answers['max_sequence_length']:,}")
    console.print(f"fewest GPUs with ZeRO-3 (x tp {tp} x pp {pp}): {answers['min_gpus_zero3']}")
    console.print(f"smallest catalog GPU that fits: {answers['smallest_catalog_gpu'] or 'none'}")


@app.command()
def step(
    model: Annotated[str, typer.Argument(help="Model name, alias, spec YAML or config.json.")],
    gpu: GpuOption = DEFAULT_GPU,
    batch: Batch = 1,
    seq: Seq = 2048,
    precision: PrecisionOption = "bf16-mixed",
    attention: AttentionOption = "flash",
    recompute: RecomputeOption = "none",
    accumulation: AccumulationOption = 1,
    optimizer: OptimizerOption = "adamw",
    mode: Annotated[str, typer.Option(help="roofline (max) | no-overlap (sum)")] = "roofline",
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Predicted step time on one GPU, by operator kind, with MFU, HFU and the bottleneck."""
    spec, accelerator, _ = _memory_inputs(model, gpu, 0, 1, 1, 1, False, False)
    config = _training_config(
        batch=batch,
        seq=seq,
        precision=precision,
        attention=attention,
        recompute=recompute,
        accumulation=accumulation,
        optimizer=optimizer,
    )
    if mode not in ("roofline", "no-overlap"):
        raise MlcostError(f"--mode: got {mode!r}, expected roofline or no-overlap")
    predicted = step_time(spec, config, accelerator, mode=mode)  # type: ignore[arg-type]
    kinds = predicted.by_kind()
    if as_json:
        print_json(
            {
                "model": spec.name,
                "gpu": accelerator.name,
                "mode": mode,
                "step_time": quantity_to_json(predicted.total),
                "mfu": float(predicted.mfu()),
                "hfu": float(predicted.hfu()),
                "by_kind": [
                    {
                        "kind": str(kind),
                        "time": quantity_to_json(Q_(row["time_s"], "s").to("ms")),
                        "share": float(row["share"]),
                        "bound": row["bound"],
                    }
                    for kind, row in kinds.iterrows()
                ],
            }
        )
        return
    table = Table(
        title=f"step time on {accelerator.name}: {predicted.table.description}",
        title_justify="left",
    )
    for column in ("kind", "ms", "share", "compute ms", "memory ms", "bound"):
        table.add_column(column, justify="left" if column in ("kind", "bound") else "right")
    for kind, row in kinds.iterrows():
        table.add_row(
            str(kind),
            f"{row['time_s'] * 1e3:,.3f}",
            f"{row['share']:.1%}",
            f"{row['compute_s'] * 1e3:,.3f}",
            f"{row['memory_s'] * 1e3:,.3f}",
            row["bound"],
        )
    console = stdout_console()
    console.print(table)
    console.print(
        f"step {predicted.total.magnitude:,.2f} ms ({mode}); MFU "
        f"{predicted.mfu():.1%}, HFU {predicted.hfu():.1%}"
    )


@app.command()
def roofline(
    model: Annotated[
        str | None, typer.Argument(help="Optional model to place on the roofline.")
    ] = None,
    gpu: Annotated[list[str] | None, typer.Option("--gpu", help="Accelerator(s).")] = None,
    batch: Batch = 1,
    seq: Seq = 2048,
    precision: PrecisionOption = "bf16-mixed",
    attention: AttentionOption = "flash",
    out: Annotated[Path | None, typer.Option("--out", help="Write the figure (PNG) here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Ridge points of GPUs, and where a model's operators sit on the roofline."""
    import matplotlib

    matplotlib.use("Agg")
    from mlcost import plot

    catalog = default_catalog()
    gpus = [catalog.accelerator(name) for name in (gpu or [DEFAULT_GPU])]
    config = _training_config(batch=batch, seq=seq, precision=precision, attention=attention)
    fmt = config.policy.compute_format
    predicted = None
    if model is not None:
        predicted = step_time(_resolve(model, catalog), config, gpus[0])
    rows: list[dict[str, Any]] = []
    for accelerator in gpus:
        used = fmt if fmt in accelerator.formats else accelerator.formats[0]
        rows.append(
            {
                "gpu": accelerator.name,
                "format": used,
                "ridge_point": quantity_to_json(accelerator.ridge_point(used)),
                "peak": quantity_to_json(accelerator.peak(used)),
                "bandwidth": quantity_to_json(accelerator.memory_bandwidth),
            }
        )
    operators_on_roofline: list[dict[str, Any]] = []
    if predicted is not None:
        ridge = predicted.ceilings.ridge_point.magnitude
        for op, timed in zip(predicted.table.operators, predicted.rows, strict=True):
            moved = op.bytes_read + op.bytes_written + op.backward_bytes
            flops = op.forward_flops + op.backward_flops
            if moved <= 0 or flops <= 0:
                continue
            intensity = flops / moved
            operators_on_roofline.append(
                {
                    "name": op.name,
                    "intensity": {"value": intensity, "unit": "FLOP / B"},
                    "time": quantity_to_json(Q_(timed.total, "s").to("ms")),
                    "bound": "compute" if intensity >= ridge else "memory",
                }
            )
    if out is not None:
        figure = plot.roofline(gpus, predicted, format=fmt)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=120)
        write_bytes_atomically(out, buffer.getvalue())
    if as_json:
        print_json(
            {"gpus": rows, "operators": operators_on_roofline, "figure": str(out) if out else None}
        )
        return
    table = Table(title="roofline", title_justify="left")
    for column in ("gpu", "format", "peak TFLOP/s", "TB/s", "ridge FLOP/B"):
        table.add_column(column)
    for row in rows:
        table.add_row(
            row["gpu"],
            row["format"],
            f"{row['peak']['value']:,.1f}",
            f"{row['bandwidth']['value']:g} {row['bandwidth']['unit']}",
            f"{row['ridge_point']['value']:.1f}",
        )
    console = stdout_console()
    console.print(table)
    for entry in operators_on_roofline:
        console.print(
            f"  {entry['name']}: {entry['intensity']['value']:,.1f} FLOP/B, "
            f"{entry['bound']}-bound, {entry['time']['value']:.3f} ms"
        )
    if out is not None:
        console.print(f"wrote {out}")


@app.command()
def bench(
    out: Annotated[
        Path, typer.Option("--out", help="Results folder (resumed if it exists).")
    ] = Path("bench-results"),
    device: Annotated[str, typer.Option(help="cpu or cuda (cuda:N).")] = "cpu",
    full: Annotated[bool, typer.Option("--full", help="Full preset (GPU sizes).")] = False,
    quick: Annotated[bool, typer.Option("--quick", help="Quick preset (the default).")] = True,
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only",
            help="Benchmark families: gemm, memory, kernels, attention, "
            "optimizer, launch, transfer, collective, e2e (repeatable).",
        ),
    ] = None,
    formats: Annotated[
        list[str] | None, typer.Option("--format", help="GEMM formats (repeatable).")
    ] = None,
) -> None:
    """Measure this device: GEMMs, attention, memory bandwidth, kernels, the optimizer, launch
    latency, host-device copies, collectives and an end-to-end training step.

    Results go to OUT/results.csv with OUT/metadata.json; an interrupted run resumes. On a GPU
    node: 'mlcost bench --device cuda --full'. Collectives across GPUs or nodes: run under
    torchrun, e.g. 'torchrun --nproc-per-node 8 -m mlcost.cli bench --device cuda --only
    collective'. Then 'mlcost calibrate OUT --base GPU --out profile.yaml' (see
    docs/benchmarks.md).
    """
    from mlcost.bench.runner import run

    preset = "full" if full else "quick"
    store = run(out, device=device, preset=preset, families=only, formats=formats)
    frame = store.load()
    counts = frame.groupby(["family", "status"]).size()
    console = stdout_console()
    for key, count in counts.items():
        family, status = str(key[0]), str(key[1])  # type: ignore[index]
        console.print(f"{family:12s} {status:12s} {count}")
    console.print(f"results in {store.results}")


@app.command()
def calibrate(
    results: Annotated[Path, typer.Argument(help="A 'mlcost bench' results folder.")],
    base: Annotated[
        str | None, typer.Option("--base", help="Catalog GPU the results were measured on.")
    ] = None,
    out: Annotated[Path, typer.Option("--out", help="Profile YAML to write.")] = Path(
        "profile.yaml"
    ),
    name: Annotated[str | None, typer.Option(help="Name of the profile.")] = None,
) -> None:
    """Fit the measurements into a hardware profile (the catalog's schema, with the fits and
    their provenance) that every command accepts in place of a catalog GPU."""
    from mlcost.calibrate import calibrate as fit

    base_spec = default_catalog().accelerator(base) if base else None
    profile = fit(results, base=base_spec, name=name)
    write_text_atomically(out, profile.to_yaml())
    measured = profile.measured
    console = stdout_console()
    console.print(f"wrote {out} ({profile.name})")
    if measured is not None:
        for key, value in measured.fit_quality.items():
            console.print(f"  {key}: {value:.4g}")


@app.command()
def validate(
    results: Annotated[Path, typer.Argument(help="A 'mlcost bench' results folder.")],
    profile: Annotated[
        Path | None, typer.Option("--profile", help="Calibrated profile YAML.")
    ] = None,
    base: Annotated[
        str | None, typer.Option("--base", help="Catalog GPU (datasheet) for 'before'.")
    ] = None,
    plot_path: Annotated[
        Path | None, typer.Option("--plot", help="Predicted vs measured figure (PNG).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Prediction error per benchmark, with the datasheet and with the calibrated profile."""
    from mlcost.calibrate import calibrate as fit
    from mlcost.validate import plot as figure_of
    from mlcost.validate import summary
    from mlcost.validate import validate as compare

    after = load_spec(profile) if profile else fit(results)
    if not isinstance(after, Accelerator):
        raise MlcostError(f"--profile: {profile} is not an accelerator profile")
    before = default_catalog().accelerator(base) if base else after
    report = compare(results, before, after)
    table_of = summary(report)
    if plot_path is not None:
        import matplotlib

        matplotlib.use("Agg")
        buffer = io.BytesIO()
        figure_of(report).savefig(buffer, format="png", dpi=120)
        write_bytes_atomically(plot_path, buffer.getvalue())
    if as_json:
        print_json(
            {
                "summary": json.loads(table_of.to_json(orient="index")),
                "rows": json.loads(report.to_json(orient="records")),
            }
        )
        return
    table = Table(title=f"prediction error: {results}", title_justify="left")
    table.add_column("family")
    for column in table_of.columns:
        table.add_column(column, justify="right")
    for family, row in table_of.iterrows():
        table.add_row(str(family), *(f"{value:.1%}" for value in row))
    stdout_console().print(table)


@app.command()
def plan(
    model: Annotated[str, typer.Argument(help="Model name, alias or spec path.")] = DEFAULT_MODEL,
    gpu: Annotated[str | None, typer.Option(help="Accelerator (default: the system's).")] = None,
    system: Annotated[
        str | None,
        typer.Option(
            help="Node or cluster (GPU, host power, storage); default dgx-h100 without --gpu."
        ),
    ] = None,
    gpus: Annotated[
        int | None, typer.Option(help="Number of GPUs (default: the system's).")
    ] = None,
    tokens: Annotated[str, typer.Option(help="Training tokens, e.g. 2e12 or 2T.")] = "2T",
    region: Annotated[
        str, typer.Option(help="Grid region for CO2e (mlcost specs list grid).")
    ] = "us",
    price: Annotated[
        str | None, typer.Option(help="USD per GPU-hour, or a catalog price name.")
    ] = None,
    purchase: Annotated[str | None, typer.Option(help="Purchase price per GPU (USD).")] = None,
    pue: Annotated[
        float | None, typer.Option(help="Data-centre PUE (default: the grid's).")
    ] = None,
    batch: Batch = 1,
    seq: Seq = 4096,
    accumulation: Annotated[int, typer.Option(help="Gradient accumulation steps.")] = 1,
    precision: PrecisionOption = "bf16-mixed",
    recompute: Annotated[str, typer.Option(help="none | selective | full")] = "none",
    zero: Annotated[int, typer.Option(help="ZeRO stage 0-3 over the data-parallel GPUs.")] = 1,
    sustained: Annotated[
        float | None,
        typer.Option(help="Napkin mode: achieved TFLOP/s per GPU instead of the roofline."),
    ] = None,
    explain: Annotated[bool, typer.Option(help="Each figure with formula and source.")] = False,
    plots: Annotated[
        Path | None, typer.Option(help="Folder to write roofline.png and memory.png into.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Plan a run: memory, step time, time to train, energy, dollars and CO2, with sources."""
    from mlcost.plan import Plan

    catalog = default_catalog()
    model_spec = _resolve(model, catalog)
    config = _training_config(
        batch=batch,
        seq=seq,
        accumulation=accumulation,
        precision=precision,
        recompute=recompute,
    )
    price_value: Any = price
    if price is not None and price not in catalog:
        price_value = quantity_option(price, "USD/hour", "--price")
    if system is None and gpu is None:
        system = "dgx-h100"
    the_plan = Plan(
        model_spec,
        gpu=gpu,
        gpus=gpus,
        system=system,
        tokens=count_option(tokens, "--tokens"),
        config=config,
        region=region,
        price=price_value,
        purchase_price=quantity_option(purchase, "USD", "--purchase") if purchase else None,
        pue=pue,
        zero_stage=zero,
        sustained=quantity_option(str(sustained), "TFLOP/s", "--sustained") if sustained else None,
        flop_count="6ND" if sustained else "operators",
        catalog=catalog,
    )
    written = []
    if plots is not None:
        import matplotlib

        matplotlib.use("Agg")
        from mlcost import plot

        plots.mkdir(parents=True, exist_ok=True)
        step = the_plan.step_time()
        save_png(
            plot.roofline(the_plan.accelerator, step.detail, format=config.policy.compute_format),
            plots / "roofline.png",
        )
        save_png(plot.memory(the_plan.memory()), plots / "memory.png")
        written = [str(plots / "roofline.png"), str(plots / "memory.png")]
    if as_json:
        data = the_plan.to_json()
        data["plots"] = written
        print_json(data)
        return
    console = stdout_console()
    if explain:
        console.print(the_plan.explain(), highlight=False, markup=False)
    else:
        title = f"plan: {the_plan.description}"
        table = Table(title=title, title_justify="left")
        table.add_column("quantity")
        table.add_column("value", justify="right")
        table.add_column("formula", overflow="fold", max_width=70)
        for figure in the_plan.figures():
            table.add_row(figure.name, figure.text(), figure.formula)
        console.print(table)
        console.print("[dim]--explain shows the numbers substituted and each source.[/dim]")
    for path in written:
        console.print(f"wrote {path}")


def main() -> None:
    """Console entry point: user errors become one line on stderr and exit status 2."""
    try:
        code = app(standalone_mode=False)
    except MlcostError as error:
        Console(stderr=True, soft_wrap=True).print(
            Text.assemble(("error: ", "bold red"), str(error)), highlight=False
        )
        sys.exit(2)
    except typer.Exit as done:
        sys.exit(done.exit_code)
    except typer.Abort:
        sys.exit(1)
    except Exception as error:  # click's usage errors
        import click

        if isinstance(error, click.ClickException):
            error.show()
            sys.exit(error.exit_code)
        raise
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
