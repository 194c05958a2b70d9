"""``mlcost memory`` and ``mlcost fit``: memory per GPU of one step, and the inverse questions."""

from __future__ import annotations

import functools
import textwrap
import warnings
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer
from rich.table import Table

from mlcost.cli.app import EXIT_DOES_NOT_FIT
from mlcost.cli.options import (
    DEFAULT_GPU,
    LAYOUT,
    TRAINING,
    AllOption,
    ExplainOption,
    GpuOption,
    ImplementationOption,
    JsonOption,
    ModelArgument,
    renamed,
    resolve_accelerator,
    resolve_model,
    with_options,
)
from mlcost.cli.output import MORE, print_explained, print_json, stdout_console
from mlcost.errors import MlcostError, UnmodelledGpuNote
from mlcost.layout import Layout
from mlcost.memory import (
    MEMORY_MODEL_SCOPE,
    PROFILES,
    Profile,
    able_gpus,
    max_micro_batch_size,
    max_sequence_length,
    memory_breakdown,
    min_gpus,
    modelled_gpus,
    smallest_gpu,
    unmodelled_reason,
)
from mlcost.memory.breakdown import MemoryBreakdown
from mlcost.results import SHORT_WIDTH
from mlcost.specs import Accelerator, ModelSpec, TransformerSpec, default_catalog
from mlcost.units import in_unit
from mlcost.workload import TrainingConfig

if TYPE_CHECKING:  # the plan modules load only for ``mlcost fit`` (start-up of ``mlcost memory``)
    from mlcost.plan.fit import FineTuningFit

MemoryModelOption = Annotated[
    str, typer.Option("--memory-model", help="pytorch (eager, HF layout) | megatron")
]
OldProfileOption = Annotated[
    str | None, typer.Option("--profile", hidden=True, help="Deprecated: --memory-model.")
]


def profile_option(value: str, old: str | None = None) -> Profile:
    """The memory model of ``--memory-model`` (or its old spelling ``--profile``)."""
    chosen = value if old is None else str(renamed(None, old, "--profile", "--memory-model"))
    if chosen not in PROFILES:
        raise MlcostError(f"--memory-model: got {chosen!r}, expected pytorch or megatron")
    return chosen  # type: ignore[return-value]


@with_options(TRAINING, LAYOUT)
def memory(
    model: ModelArgument,
    config: TrainingConfig,
    layout: Layout,
    gpu: GpuOption = DEFAULT_GPU,
    memory_model: MemoryModelOption = "pytorch",
    old_profile: OldProfileOption = None,
    mini_sequences: Annotated[
        int, typer.Option("--mini-sequences", help="Mini-Sequence Transformer chunks (M).")
    ] = 1,
    explain: ExplainOption = False,
    every: AllOption = False,
    as_json: JsonOption = False,
    implementation: ImplementationOption = None,
) -> None:
    """Memory per GPU of one training step, term by term, against the GPU's usable memory.

    ``--implementation``: the software whose gradient buffers and MoE layer's saved tensors
    count (not given: the Hugging Face eager modules' activations)."""
    accelerator = resolve_accelerator(gpu)
    breakdown = memory_breakdown(
        resolve_model(model),
        config,
        accelerator,
        layout,
        profile=profile_option(memory_model, old_profile),
        mini_sequences=mini_sequences,
        implementation=implementation,
    )
    _show_memory(model, layout, accelerator, breakdown, (as_json, explain, every))
    if not bool(np.all(breakdown.fits())):
        raise typer.Exit(EXIT_DOES_NOT_FIT)


def _show_memory(
    model: str,
    layout: Layout,
    accelerator: Accelerator,
    breakdown: MemoryBreakdown,
    shown: tuple[bool, bool, bool],
) -> None:
    as_json, explain, every = shown
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
    if explain:
        print_explained(breakdown)
        return
    if not every:
        typer.echo(_memory_short(breakdown, accelerator))
        typer.echo(MORE)
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


def _show_fit(
    spec: ModelSpec,
    config: TrainingConfig,
    layout: Layout,
    accelerator: Accelerator,
    breakdown: MemoryBreakdown,
    answers: dict[str, Any],
    methods: FineTuningFit | None,
    inference: dict[str, Any] | None,
    shown: tuple[bool, bool, bool],
) -> None:
    as_json, explain, every = shown
    if as_json:
        rows = None if methods is None else methods.to_frame().to_dict(orient="records")
        print_json({"model": spec.name, "gpu": accelerator.name, **answers, "finetuning": rows,
                    "inference": inference})  # fmt: skip
        return
    if explain:
        print_explained(breakdown)
        return
    console = stdout_console()
    if not every:
        typer.echo(
            _fit_short(spec, config, layout, accelerator, breakdown, answers, methods, inference)
        )
        typer.echo(MORE)
        return
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
    if inference is not None:
        console.print(f"inference: {_inference_text(inference)}")


#: Memory terms the short answer of ``mlcost memory`` lists (the largest).
SHORT_TERMS = 5


def _memory_short(breakdown: MemoryBreakdown, accelerator: Accelerator) -> str:
    """``mlcost memory``'s short answer: what it is about, fits?, the largest terms."""
    wrap = functools.partial(textwrap.wrap, width=SHORT_WIDTH, subsequent_indent="  ")
    lines = wrap(f"memory per GPU on {accelerator.name}: {breakdown.description}")
    lines += wrap(breakdown.fit_text())
    largest = sorted(breakdown.terms, key=lambda t: -float(in_unit(t.value, "GiB")))
    column = max(len(t.name) for t in largest[:SHORT_TERMS]) + 2
    lines += [f"  {t.name:<{column}}{in_unit(t.value, 'GiB'):>9,.2f} GiB"
              for t in largest[:SHORT_TERMS]]  # fmt: skip
    return "\n".join(lines)


@with_options(TRAINING, LAYOUT)
def fit(
    model: ModelArgument,
    config: TrainingConfig,
    layout: Layout,
    gpu: Annotated[
        list[str] | None,
        typer.Option(
            "--gpu",
            help="Accelerator: catalog name or alias, spec YAML or calibrated profile (default "
            f"{DEFAULT_GPU}); several (repeated or separated by commas), or 'all' (every "
            "catalog GPU of the precision), side by side.",
        ),
    ] = None,
    memory_model: MemoryModelOption = "pytorch",
    old_profile: OldProfileOption = None,
    explain: ExplainOption = False,
    every: AllOption = False,
    as_json: JsonOption = False,
) -> None:
    """Does it fit, the largest micro-batch, the longest sequence, the fewest GPUs; and which
    of full fine-tuning, LoRA and QLoRA fits, at which micro-batch and sequence."""
    spec, chosen = resolve_model(model), profile_option(memory_model, old_profile)
    names = [n.strip() for given in gpu or [DEFAULT_GPU] for n in given.split(",") if n.strip()]
    if names == ["all"] or len(names) > 1:
        _fit_side_by_side(spec, config, layout, names, chosen, as_json)
        return
    accelerator = resolve_accelerator(names[0] if names else "")
    _note_unmodelled([accelerator])
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
    inference = _inference(spec, accelerator, config)
    _show_fit(spec, config, layout, accelerator, breakdown, answers, methods, inference,
              (as_json, explain, every))  # fmt: skip
    if not answers["fits"]:
        raise typer.Exit(EXIT_DOES_NOT_FIT)


def serving_format(config: TrainingConfig, accelerator: Accelerator) -> str:
    """The 16-bit format ``fit``'s inference row serves in: the run's own (``fp16`` for an
    ``fp16-mixed`` run, ``bf16`` for a ``bf16``/``bf16-mixed`` run, the BF16 of an FP8 recipe's
    other GEMMs), and for a run without one (FP32) BF16 where the GPU has a BF16 peak, else
    FP16 (a V100 or a T4 has no BF16 tensor cores)."""
    for fmt in config.policy.compute_formats:
        if fmt in ("bf16", "fp16"):
            return fmt
    return "bf16" if "bf16" in accelerator.formats else "fp16"


def _inference(
    spec: ModelSpec, accelerator: Accelerator, config: TrainingConfig
) -> dict[str, Any] | None:
    """Serving ``spec`` on one ``accelerator`` (weights and KV cache in the run's 16-bit
    format, :func:`serving_format`; ``mlcost serve``'s other defaults) with sequences of the
    run's length: weights per GPU and the largest batch (:attr:`mlcost.serving.ServePlan.memory`);
    ``None`` for a model serving does not cover (not a decoder transformer), and a row naming
    the reason (``refused``) where ``ServePlan`` refuses the model."""
    if not isinstance(spec, TransformerSpec) or spec.architecture != "decoder":
        return None
    from mlcost.serving import ServePlan

    tokens = max(config.sequence_length, 2)
    fmt = serving_format(config, accelerator)
    try:
        memory = ServePlan(
            spec, gpu=accelerator, prompt=tokens - 1, output=1, weights=fmt, kv_format=fmt
        ).memory
    except MlcostError as error:
        return {"fits": None, "format": fmt, "refused": str(error)}
    return {
        "fits": memory["max_batch"] >= 1,
        "format": fmt,
        "weights_gib": memory["weights"] / 2**30,
        "max_batch": int(memory["max_batch"]),
        "tokens_per_sequence": int(memory["longest"]),
    }


def _inference_text(inference: dict[str, Any]) -> str:
    if inference.get("refused"):
        return f"not answered: {inference['refused']}"
    weights = f"{inference['format']} weights {inference['weights_gib']:,.1f} GiB"
    if not inference["fits"]:
        return f"does not fit ({weights})"
    return (
        f"fits: up to {inference['max_batch']:,} sequences of "
        f"{inference['tokens_per_sequence']:,} tokens ({weights})"
    )


def _method_text(row: Any, config: TrainingConfig, layout: Layout) -> str:
    """One fine-tuning method in a few words: fits?, its memory, the largest micro-batch or
    the longest sequence that fit."""
    memory = f"{row.memory.to('GiB').magnitude:,.1f} GiB"
    if row.fits:
        return f"fits: {memory}; micro-batch up to {row.max_micro_batch_size:,}"
    if row.max_sequence_length:
        return (
            f"does not fit: {memory}; fits at s <= {row.max_sequence_length:,} "
            f"(b={layout.micro_batch_size})"
        )
    return f"does not fit: {memory}"


def _fit_short(
    spec: ModelSpec, config: TrainingConfig, layout: Layout, accelerator: Accelerator,
    breakdown: MemoryBreakdown, answers: dict[str, Any], methods: FineTuningFit | None,
    inference: dict[str, Any] | None,
) -> str:  # fmt: skip
    """``mlcost fit``'s short answer: training (full, LoRA, QLoRA) and inference on the GPU,
    then the fewest GPUs and the smallest catalog GPU for the full run."""
    capacity = accelerator.memory_available.to("GiB").magnitude
    lines = [
        f"{spec.name} on {accelerator.name} ({capacity:,.1f} GiB usable), "
        f"{config.policy.name}, b={layout.micro_batch_size}, s={config.sequence_length}"
    ]
    rows: list[tuple[str, str]] = []
    if methods is not None:
        rows += [("full training" if r.method == "full" else r.tuning.method_name(),
                  _method_text(r, config, layout)) for r in methods.methods]  # fmt: skip
    else:
        rows.append(("training", breakdown.fit_text()))
    if inference is not None:
        rows.append(("inference", _inference_text(inference)))
    rows.append(("fewest GPUs", f"{answers['min_gpus_zero3']} with ZeRO-3 (full training)"))
    rows.append(("smallest GPU", f"{answers['smallest_catalog_gpu'] or 'none'} (full training)"))
    column = max(len(label) for label, _ in rows) + 2
    for label, text in rows:
        lines += textwrap.wrap(
            f"{label:<{column}}{text}", SHORT_WIDTH, subsequent_indent=" " * column
        )
    return "\n".join(lines)


def _fit_side_by_side(
    spec: ModelSpec, config: TrainingConfig, layout: Layout, names: list[str], profile: Profile,
    as_json: bool,
) -> None:  # fmt: skip
    """``mlcost fit MODEL --gpu a,b`` (or ``all``): one row per GPU, training (full, LoRA,
    QLoRA: GiB per GPU, fits?) and inference (the largest batch) side by side."""
    left_out: dict[str, str] = {}
    if names == ["all"]:
        catalog = default_catalog().items("accelerators")
        able = able_gpus(config, [g for g in catalog if isinstance(g, Accelerator)])
        accelerators, left_out = modelled_gpus(able)
        if left_out:
            by_stack: dict[str, list[str]] = {}
            for name, stack in left_out.items():
                by_stack.setdefault(stack, []).append(name)
            runs = "; ".join(f"{', '.join(n)} run {stack}" for stack, n in by_stack.items())
            warnings.warn(
                f"left out {len(left_out)} accelerators: {MEMORY_MODEL_SCOPE}; {runs}",
                UnmodelledGpuNote,
                stacklevel=2,
            )
    else:
        accelerators = [resolve_accelerator(name) for name in names]
        _note_unmodelled(accelerators)
    if not isinstance(spec, TransformerSpec) or spec.architecture != "decoder":
        raise MlcostError(
            f"--gpu: several GPUs side by side take a decoder transformer; {spec.name} is not "
            "one; name one GPU"
        )
    from mlcost.plan.fit import finetuning_fit

    records = []
    for accelerator in accelerators:
        methods = finetuning_fit(spec, accelerator, config, layout, profile=profile)
        record: dict[str, Any] = {
            "gpu": accelerator.name,
            "usable_gib": accelerator.memory_available.to("GiB").magnitude,
        }
        for row in methods.methods:
            record[row.method] = {"fits": row.fits, "gib": row.memory.to("GiB").magnitude,
                                  "max_micro_batch_size": row.max_micro_batch_size}  # fmt: skip
        record["inference"] = _inference(spec, accelerator, config)
        records.append(record)
    if as_json:
        print_json({"model": spec.name, "gpus": records,
                    "left_out": [{"gpu": name, "runs": stack, "reason": MEMORY_MODEL_SCOPE}
                                 for name, stack in left_out.items()]})  # fmt: skip
        return
    typer.echo(
        f"{spec.name}, {config.policy.name}, b={layout.micro_batch_size}, "
        f"s={config.sequence_length}: GiB per GPU (yes = fits)"
    )
    typer.echo(
        f"{'GPU':<20}{'usable':>8}{'full':>12}{'LoRA':>12}{'QLoRA':>12}{'serve (batch)':>15}"
    )
    refused: dict[str, str] = {}
    for record in records:
        cells = [
            f"{'yes' if record[m]['fits'] else 'no'} {record[m]['gib']:,.1f}"
            for m in ("full", "lora", "qlora")
        ]
        served = record["inference"]
        serve_text = "-" if served is None else "no"
        if served is not None and served.get("refused"):
            serve_text = "refused*"
            refused[record["gpu"]] = served["refused"]
        elif served is not None and served["fits"]:
            serve_text = f"yes {served['max_batch']:,}"
        typer.echo(
            f"{record['gpu'][:19]:<20}{record['usable_gib']:>8.1f}"
            + "".join(f"{c:>12}" for c in cells)
            + f"{serve_text:>15}"
        )
    for name, reason in refused.items():
        typer.echo(f"* {name}: serving not answered: {reason}")


def _note_unmodelled(accelerators: list[Accelerator]) -> None:
    """A note for each named accelerator the memory model does not describe (answered with it
    all the same: the user named it)."""
    for accelerator in accelerators:
        reason = unmodelled_reason(accelerator)
        if reason is not None:
            warnings.warn(
                f"{reason}: read its answer as PyTorch-on-CUDA's", UnmodelledGpuNote, stacklevel=3
            )


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
