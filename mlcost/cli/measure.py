"""``mlcost bench``, ``mlcost calibrate`` and ``mlcost validate``: the calibration loop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from mlcost.cli.options import (
    STEP_LAYOUT,
    TRAINING,
    ForceOption,
    JsonOption,
    renamed,
    resolve_accelerator,
    resolve_model,
    with_options,
)
from mlcost.cli.output import check_destination, print_json, save_png, stdout_console
from mlcost.errors import MlcostError
from mlcost.io import YAML, check_output, write_output
from mlcost.layout import Layout
from mlcost.serving.published import validate_published_serving
from mlcost.specs import Accelerator, ModelSpec
from mlcost.workload import TrainingConfig


def bench(
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out-dir", help="Results folder (resumed if it exists; default bench-results)."
        ),
    ] = None,
    old_out: Annotated[
        Path | None, typer.Option("--out", hidden=True, help="Deprecated: --out-dir.")
    ] = None,
    device: Annotated[str, typer.Option(help="cpu or cuda (cuda:N).")] = "cpu",
    full: Annotated[bool, typer.Option("--full", help="Full preset (GPU sizes).")] = False,
    quick: Annotated[bool, typer.Option("--quick", help="Quick preset (the default).")] = True,
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only",
            help="Benchmark families: gemm, memory, kernels, attention, "
            "optimizer, launch, host, transfer, collective, e2e (repeatable).",
        ),
    ] = None,
    formats: Annotated[
        list[str] | None, typer.Option("--format", help="GEMM formats (repeatable).")
    ] = None,
) -> None:
    """Measure this device: GEMMs, attention, memory bandwidth, kernels, the optimizer, launch
    latency, first touch of fresh pages (CPU), host-device copies, collectives and an
    end-to-end training step.

    Results go to OUT_DIR/results.csv with OUT_DIR/metadata.json; an interrupted run resumes. On
    a GPU node: 'mlcost bench --device cuda --full'. Collectives across GPUs or nodes: run under
    torchrun, e.g. 'torchrun --nproc-per-node 8 -m mlcost.cli bench --device cuda --only
    collective'. Then 'mlcost calibrate OUT_DIR --base GPU --out profile.yaml' (see
    docs/benchmarks.md).
    """
    import importlib.util

    from mlcost.bench.store import ResultStore, check_request

    out = renamed(out_dir, old_out, "--out", "--out-dir") or Path("bench-results")
    preset = "full" if full else "quick"
    check_output(out, option="--out", folder=True)
    check_request(device, preset, only, formats)
    if importlib.util.find_spec("torch") is None:
        raise MlcostError(
            "bench: PyTorch is not installed; install it with "
            "\"pip install 'mlcost[bench]'\" (the CPU build torch==2.13.0)"
        )
    from mlcost.bench.runner import run

    try:
        store = run(out, device=device, preset=preset, families=only, formats=formats)
    except KeyboardInterrupt:
        kept = len(ResultStore(out).load()) if (out / "results.csv").is_file() else 0
        typer.echo(
            f"interrupted: {kept} results kept in {out / 'results.csv'}; rerun the same "
            "command to resume",
            err=True,
        )
        raise typer.Exit(130) from None
    frame = store.load()
    counts = frame.groupby(["family", "status"]).size()
    console = stdout_console()
    for key, count in counts.items():
        family, status = str(key[0]), str(key[1])  # type: ignore[index]
        console.print(f"{family:12s} {status:12s} {count}")
    console.print(f"results in {store.results}")


TraceOption = Annotated[
    Path | None,
    typer.Option(
        "--trace",
        help="A PyTorch profiler trace of a few training steps (export_chrome_trace, .json or "
        ".json.gz); describe its run with --model, --batch, --seq, --recompute, --precision.",
    ),
]
TraceModelOption = Annotated[
    str | None,
    typer.Option("--model", help="With --trace: the model that ran (catalog name, spec YAML "
                 "or Hugging Face config.json)."),
]  # fmt: skip
StepTimeOption = Annotated[
    float | None,
    typer.Option(
        "--step-time",
        help="With --trace: the step time measured without the profiler, in ms (the profiler "
        "slows the host; default: the trace's own steps).",
    ),
]
ImplementationOption = Annotated[
    str | None,
    typer.Option("--implementation", help="The software that ran it (default ddp-eager)."),
]


def _trace_run(trace: Path, model: str | None, base: str | None) -> tuple[ModelSpec, Accelerator]:
    """The model and base GPU of a ``--trace`` run, refused in one line where missing."""
    if model is None:
        raise MlcostError(
            f"--model: missing; --trace {trace.name} needs the model that ran it (a catalog "
            "name, a spec YAML or a config.json)"
        )
    if base is None:
        raise MlcostError(
            f"--base: missing; --trace {trace.name} needs the catalog GPU it ran on (its "
            "datasheet peaks bound the fit), e.g. --base h100-sxm5-80gb"
        )
    return resolve_model(model), resolve_accelerator(base)


@with_options(TRAINING, STEP_LAYOUT)
def calibrate(
    results: Annotated[
        Path | None, typer.Argument(help="A 'mlcost bench' results folder (or use --trace).")
    ] = None,
    base: Annotated[
        str | None, typer.Option("--base", help="Catalog GPU the results were measured on.")
    ] = None,
    out: Annotated[Path, typer.Option("--out", help="Profile YAML to write.")] = Path(
        "profile.yaml"
    ),
    name: Annotated[str | None, typer.Option(help="Name of the profile.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace OUT if it exists.")] = False,
    stand_in: Annotated[
        bool,
        typer.Option(
            "--stand-in",
            help="Calibrate this device in the place of --base on purpose (tests, dry runs); "
            "without it a --base other than the device measured is refused.",
        ),
    ] = False,
    trace: TraceOption = None,
    model: TraceModelOption = None,
    implementation: ImplementationOption = None,
    step_time: StepTimeOption = None,
    plot_path: Annotated[
        Path | None,
        typer.Option("--plot", help="With --trace: measured vs predicted per class (PNG)."),
    ] = None,
    as_json: JsonOption = False,
    config: TrainingConfig | None = None,
    layout: Layout | None = None,
) -> None:
    """Fit the measurements into a hardware profile (the catalog's schema, with the fits and
    their provenance) that every command accepts in place of a catalog GPU. With --trace, fit
    it from a profiled run of your own (GEMMs by shape, attention, per-kind bandwidth, gaps,
    allocator fragmentation) and show measured against predicted per class."""
    from mlcost.calibrate import calibrate as fit
    from mlcost.calibrate import calibration_warnings

    inputs = _inputs(results, trace)
    check_output(out, option="--out", suffixes=YAML, force=force, inputs=inputs)
    if plot_path is not None:
        check_destination(plot_path, "--plot", force=force, inputs=inputs)
    if trace is not None:
        _calibrate_trace(
            trace, model, base, config or TrainingConfig(), layout or Layout(),
            implementation, step_time, name, out, plot_path, as_json, force=force,
        )  # fmt: skip
        return
    if results is None:
        raise MlcostError(
            "results: give a 'mlcost bench' results folder, or --trace with a profiler trace"
        )
    accelerator = resolve_accelerator(base) if base else None
    for warning in calibration_warnings(results, accelerator, stand_in=stand_in):
        typer.echo(f"warning: {warning}", err=True)
    profile = fit(results, base=accelerator, name=name, stand_in=stand_in)
    write_output(out, profile.to_yaml(), option="--out", suffixes=YAML, force=force, inputs=inputs)
    measured = profile.measured
    console = stdout_console()
    console.print(f"wrote {out} ({profile.name})")
    if measured is not None:
        for key, value in measured.fit_quality.items():
            console.print(f"  {key}: {value:.4g}")


def _calibrate_trace(
    trace: Path,
    model: str | None,
    base: str | None,
    config: TrainingConfig,
    layout: Layout,
    implementation: str | None,
    step_time: float | None,
    name: str | None,
    out: Path,
    plot_path: Path | None,
    as_json: bool,
    *,
    force: bool = False,
) -> None:
    """``mlcost calibrate --trace``: fit, write the profile, show before and after."""
    from mlcost.trace_fit import calibrate_from_trace

    spec, accelerator = _trace_run(trace, model, base)
    fitted = calibrate_from_trace(
        trace, spec, config, layout, base=accelerator, implementation=implementation,
        step_seconds=None if step_time is None else step_time / 1e3, name=name,
    )  # fmt: skip
    write_output(
        out, fitted.profile.to_yaml(), option="--out", suffixes=YAML, force=force,
        inputs=(trace,),
    )  # fmt: skip
    if plot_path is not None:
        _save_comparison(fitted.after, plot_path, before=fitted.before, force=force)
    if as_json:
        print_json({"out": str(out), **fitted.to_json()})
        return
    for warning in fitted.warnings:
        typer.echo(f"warning: {warning}", err=True)
    typer.echo(fitted.before.text())
    typer.echo("")
    typer.echo(fitted.after.text())
    typer.echo(f"wrote {out} ({fitted.profile.name})")


def _inputs(results: Path | None, trace: Path | None) -> tuple[Path, ...]:
    """The files a calibration reads (never one of its outputs)."""
    found = [trace] if trace is not None else []
    if results is not None:
        found += [results, results / "results.csv", results / "metadata.json"]
    return tuple(found)


def _save_comparison(
    comparison: Any, path: Path, before: Any = None, *, force: bool = False
) -> None:
    """The stacked measured-vs-predicted figure (with ``before`` beside it) as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [before, comparison] if before is not None else [comparison]
    figure, axes = plt.subplots(1, len(panels), figsize=(7.5 * len(panels), 4.8), squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        panel.plot(ax=ax)
    figure.tight_layout()
    save_png(figure, path, force=force)


@with_options(TRAINING, STEP_LAYOUT)
def validate(
    results: Annotated[Path | None, typer.Argument(help="A 'mlcost bench' results folder.")] = None,
    published: Annotated[
        bool,
        typer.Option(
            "--published", help="Predict every row of the published validation set instead."
        ),
    ] = False,
    profile: Annotated[
        str | None,
        typer.Option("--profile", help="Calibrated profile: catalog name (measured/) or YAML."),
    ] = None,
    base: Annotated[
        str | None, typer.Option("--base", help="Catalog GPU (datasheet) for 'before'.")
    ] = None,
    plot_path: Annotated[
        Path | None, typer.Option("--plot", help="Predicted vs measured figure (PNG).")
    ] = None,
    force: ForceOption = False,
    as_json: JsonOption = False,
    trace: TraceOption = None,
    model: TraceModelOption = None,
    implementation: ImplementationOption = None,
    step_time: StepTimeOption = None,
    config: TrainingConfig | None = None,
    layout: Layout | None = None,
) -> None:
    """Prediction error per benchmark, with the datasheet and with the calibrated profile; or,
    with --published, against published training runs and hardware measurements; or, with
    --trace, a profiled run against the prediction on --profile (or --base)."""
    if plot_path is not None:
        check_destination(plot_path, "--plot", force=force, inputs=_inputs(results, trace))
    if trace is not None:
        from mlcost.trace_fit import compare_trace

        spec, accelerator = _trace_run(trace, model, profile or base)
        comparison = compare_trace(
            trace, spec, config or TrainingConfig(), accelerator, layout or Layout(),
            implementation=implementation,
            step_seconds=None if step_time is None else step_time / 1e3,
        )  # fmt: skip
        if plot_path is not None:
            _save_comparison(comparison, plot_path, force=force)
        if as_json:
            print_json(comparison.to_json())
        else:
            typer.echo(comparison.text())
        return
    if published:
        _validate_published(plot_path, as_json, force=force)
        return
    if results is None:
        raise MlcostError(
            "results: give a 'mlcost bench' results folder, or --published for the published set"
        )
    from mlcost.calibrate import calibrate as fit
    from mlcost.validate import plot as figure_of
    from mlcost.validate import summary
    from mlcost.validate import validate as compare

    after = resolve_accelerator(profile) if profile else fit(results)
    before = resolve_accelerator(base) if base else after
    report = compare(results, before, after)
    table_of = summary(report)
    if plot_path is not None:
        import matplotlib

        matplotlib.use("Agg")
        save_png(figure_of(report), plot_path, force=force)
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


def _validate_published(plot_path: Path | None, as_json: bool, *, force: bool = False) -> None:
    """``mlcost validate --published``: every row, its error, and the median per family."""
    result = validate_published_serving()  # training, hardware, energy and serving rows
    if plot_path is not None:
        import matplotlib

        matplotlib.use("Agg")
        save_png(result.plot(), plot_path, force=force)
    if as_json:
        print_json(result.to_json())
        return
    table = Table(title=result.title(), title_justify="left")
    for column in ("row", "measured", "predicted", "unit", "error", "note"):
        table.add_column(
            column, justify="right" if column in ("measured", "predicted", "error") else "left"
        )
    for row in result.rows:
        error = (
            "-" if row.error is None else f"{row.error:+.1%}" + (" (anchor)" if row.anchor else "")
        )
        predicted = "-" if row.predicted is None else f"{row.predicted:,.4g}"
        measured = "-" if row.measured != row.measured else f"{row.measured:,.4g}"
        table.add_row(row.id, measured, predicted, row.unit, error, row.note)
    console = stdout_console()
    console.print(table)
    for figure in result.figures():
        console.print(f"{figure.name}: {figure.text()} ({figure.numbers()})", highlight=False)
