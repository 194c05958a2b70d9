"""The ``mlcost`` command line (typer + rich).

Every command takes ``--json`` where it prints numbers; in JSON every quantity is
``{"value": <number>, "unit": "<pint unit string>"}``. A user error (unknown name, bad file,
bad option, a run that does not fit) prints one line on stderr and exits with status 2, never a
traceback. Commands live in one module per group (``specs``, ``workload``, ``memory``,
``timing``, ``parallel``, ``checkpoint``, ``measure``, ``plan``); the options they share and the
one name resolver are :mod:`mlcost.cli.options`, what they print :mod:`mlcost.cli.output`.
"""

from __future__ import annotations

import importlib
import json
import sys
import textwrap
import warnings
from collections.abc import Callable
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from mlcost.errors import DeprecatedOptionWarning, MlcostError, Note, RunDoesNotFitError

#: Every command and command group, in the order ``mlcost --help`` lists them, with the module
#: and attribute that define it and the summary the listing shows (the first paragraph of the
#: command's help; a test holds the two equal). A command line imports only the module of its
#: own command (``mlcost memory`` never loads the checkpointing or the published-runs code), and
#: the listing (``mlcost --help``, ``mlcost`` alone) none of them.
COMMANDS: dict[str, tuple[str, str, bool, str]] = {  # name: (module, attribute, group?, summary)
    "plan": ("mlcost.cli.plan", "plan", False,
             "Plan a run: its layout (given with --tp/--pp/..., or the fastest that fits), "
             "memory, step time, time to train, energy, dollars and CO2, with sources."),
    "serve": ("mlcost.cli.serve", "serve", False,
              "Serving cost of MODEL: KV cache, TTFT, TPOT, throughput, GPUs, $ and CO2e per "
              "1M tokens; with --ttft/--tpot and no --gpu/--system, the cheapest configuration "
              "meeting them."),
    "summary": ("mlcost.cli.specs", "summary", False,
                "A model and a GPU side by side, with their sources."),
    "flops": ("mlcost.cli.workload", "flops", False,
              "FLOPs of one training step: exact count, model vs hardware FLOPs, closed forms."),
    "ops": ("mlcost.cli.workload", "ops", False,
            "The operator table of one training step (per-execution figures; see 'count')."),
    "memory": ("mlcost.cli.memory", "memory", False,
               "Memory per GPU of one training step, term by term, against the GPU's usable "
               "memory."),
    "fit": ("mlcost.cli.memory", "fit", False,
            "Does it fit, the largest micro-batch, the longest sequence, the fewest GPUs; and "
            "which of full fine-tuning, LoRA and QLoRA fits, at which micro-batch and "
            "sequence."),
    "step": ("mlcost.cli.timing", "step", False,
             "Predicted step time on one GPU, by operator kind, with MFU, HFU and the "
             "bottleneck."),
    "roofline": ("mlcost.cli.timing", "roofline", False,
                 "Ridge points of GPUs, and where a model's operators sit on the roofline."),
    "bench": ("mlcost.cli.measure", "bench", False,
              "Measure this device: GEMMs, attention, memory bandwidth, kernels, the optimizer, "
              "launch latency, first touch of fresh pages (CPU), host-device copies, "
              "collectives and an end-to-end training step."),
    "calibrate": ("mlcost.cli.measure", "calibrate", False,
                  "Fit the measurements into a hardware profile (the catalog's schema, with the "
                  "fits and their provenance) that every command accepts in place of a catalog "
                  "GPU. With --trace, fit it from a profiled run of your own (GEMMs by shape, "
                  "attention, per-kind bandwidth, gaps, allocator fragmentation) and show "
                  "measured against predicted per class."),
    "validate": ("mlcost.cli.measure", "validate", False,
                 "Prediction error per benchmark, with the datasheet and with the calibrated "
                 "profile; or, with --published, against published training runs and hardware "
                 "measurements; or, with --trace, a profiled run against the prediction on "
                 "--profile (or --base)."),
    "energy": ("mlcost.cli.plan", "energy", False,
               "Report mode: energy and CO2e of published GPU-hours under a report's convention "
               "(E = GPU-hours x power per GPU x PUE [+ idle]; CO2e = E x intensity "
               "[+ embodied])."),
    "parallel": ("mlcost.cli.parallel", "parallel_command", False,
                 "Best parallel layouts (dp/tp/pp/cp, micro-batch, ZeRO, recompute) that fit."),
    "specs": ("mlcost.cli.specs", "specs_app", True, "List, show, validate and import specs."),
    "checkpoint": ("mlcost.cli.checkpoint", "checkpoint_app", True,
                   "Activation checkpoint placement and training-checkpoint intervals."),
    "comm": ("mlcost.cli.parallel", "comm_app", True,
             "Collective times on a system (alpha-beta model), reported like nccl-tests."),
    "ui": ("mlcost.cli.ui", "ui", False,
           "A local page where every answer moves with the inputs: train, serve and fit, with "
           "memory bars, the step split, the roofline and a cost-against-time comparison."),
}  # fmt: skip


def _version_callback(value: bool) -> None:
    if value:
        from mlcost import __version__  # importlib.metadata only when asked

        typer.echo(f"mlcost {__version__}")
        raise typer.Exit()


def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version_callback, is_eager=True, help="Print the version."
        ),
    ] = False,
) -> None:
    """mlcost command line."""


def build_app(only: str | None = None, *, listing: bool = False) -> typer.Typer:
    """The typer application with every command, or with ``only`` that one (its module alone
    is imported); with ``listing``, every command by name and summary only, no module
    imported (what ``mlcost --help`` prints; such an application runs no command)."""
    app = typer.Typer(
        help="What a training run costs - FLOPs, memory, time, dollars, CO2 - before you rent a "
        "GPU. Start with `mlcost plan` (the default job: Llama-2-7B on 20 tokens per parameter "
        "on one DGX H100); every command takes catalog names, aliases, spec YAML files and "
        "config.json; it answers in a few lines first (`--explain`, `--all` for the rest); "
        "`--json` for machine-readable output, `--plot` for figures.",
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode="markdown",
    )
    app.callback()(_root)
    for name, (module, attribute, group, summary) in COMMANDS.items():
        if only is not None and name != only:
            continue
        if listing:
            app.command(name, help=summary)(_listed)
            continue
        target: Callable[..., object] | typer.Typer = getattr(
            importlib.import_module(module), attribute
        )
        if group:
            app.add_typer(target, name=name)  # type: ignore[arg-type]
        else:
            app.command(name)(target)
    return app


def _listed() -> None:
    """A command as the listing shows it (:func:`build_app` with ``listing``)."""


#: The base class of typer's (vendored) click usage errors, found without importing click.
_CLICK_ERROR: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
)


#: The longest error line printed (longer ones keep their start and end).
MAX_MESSAGE = 600


#: Exit statuses (docs/cli.md "Exit status"): an answer; the answer "does not fit"; bad input;
#: a bug in mlcost.
EXIT_ANSWER, EXIT_DOES_NOT_FIT, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 70


def _does_not_fit(message: str, *, as_json: bool) -> None:
    """The answer "does not fit" (:class:`RunDoesNotFitError`): the verdict on stdout, wrapped
    at 80 columns, or with ``--json`` the one JSON shape with ``fits: false``; exit status 1."""
    if as_json:
        answer = {"fits": False, "verdict": message, "exit_code": EXIT_DOES_NOT_FIT}
        typer.echo(json.dumps(envelope(answer), indent=2))
    else:
        typer.echo(textwrap.fill(message, NOTE_WIDTH, subsequent_indent="  "))
    sys.exit(EXIT_DOES_NOT_FIT)


def _fail(message: str, *, code: int = 2, as_json: bool = False) -> None:
    """One line: on stderr, or with ``--json`` a JSON object on stdout; then exit ``code``."""
    message = " ".join(message.split())
    if len(message) > MAX_MESSAGE:  # a 20,000-character file name echoed back helps no one
        message = f"{message[: MAX_MESSAGE // 2]} ... {message[-MAX_MESSAGE // 4 :]}"
    if as_json:
        sys.stdout.write(json.dumps(envelope({"error": message, "exit_code": code})) + "\n")
    else:
        Console(stderr=True, soft_wrap=True).print(
            Text.assemble(("error: ", "bold red"), message), highlight=False
        )
    sys.exit(code)


def _usage_message(error: Exception) -> str:
    """A click usage error as one line: the command, the problem, where to look."""
    context = getattr(error, "ctx", None)
    command = context.command_path if context is not None else "mlcost"
    text = error.format_message() if hasattr(error, "format_message") else str(error)
    text = text.rstrip(".")
    return f"{command}: {text}; see '{command} --help'"


def command_name(arguments: list[str]) -> str | None:
    """The command a command line names: its first argument that is not an option (None for
    ``mlcost``, ``mlcost --help``)."""
    return next((arg for arg in arguments if not arg.startswith("-")), None)


#: The width notes wrap at: an 80-column terminal.
NOTE_WIDTH = 80


#: The version of the one JSON shape every ``--json`` output has (docs/cli.md "JSON output";
#: the JSON Schema is mlcost/data/cli-output.schema.json).
SCHEMA_VERSION = 1


def command_path(arguments: list[str]) -> str:
    """The command a command line runs, with its group's subcommand (``plan``, ``specs
    list``); empty for ``mlcost`` alone."""
    first = command_name(arguments)
    if first is None:
        return ""
    rest = arguments[arguments.index(first) + 1 :]
    if first in COMMANDS and COMMANDS[first][2] and rest and not rest[0].startswith("-"):
        return f"{first} {rest[0]}"
    return first


def envelope(data: Any) -> dict[str, Any]:
    """``data`` in the one JSON shape: an object with ``schema_version`` and ``command`` first
    (a list becomes ``items``), then the command's own fields."""
    body = data if isinstance(data, dict) else {"items": data}
    return {"schema_version": SCHEMA_VERSION, "command": command_path(sys.argv[1:]), **body}


def _collect_notes(lines: list[str]) -> None:
    """Collect each :class:`mlcost.errors.Note` (a short name resolved to its default, a user
    spec without sources) once per command as one ``note:`` line, other warnings as one
    ``warning:`` line each, into ``lines``; numpy's arithmetic RuntimeWarnings are dropped (a
    NaN or infinity is shown as ``unknown`` or refused where it matters). :func:`main` prints
    them on stderr after an answer (stdout stays the answer, JSON included), and not after an
    error, whose one line is then all of stderr. Called inside ``warnings.catch_warnings()``,
    which restores both on the way out."""

    def show(message: Any, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        label = "note" if issubclass(category, Note) else "warning"
        line = f"{label}: {' '.join(str(message).split())}"
        if not issubclass(category, RuntimeWarning) and line not in lines:
            lines.append(line)

    warnings.showwarning = show
    warnings.simplefilter("always", Note)
    warnings.simplefilter("always", DeprecatedOptionWarning)


def main() -> None:
    """Console entry point: every user error becomes one line (stderr, or a JSON object on
    stdout with ``--json``) and exit status 2; never a traceback."""
    notes: list[str] = []
    with warnings.catch_warnings():
        _collect_notes(notes)
        try:
            _main()
        except SystemExit as done:
            if done.code in (0, 1, None):  # an answer, "does not fit" included
                for line in notes:
                    typer.echo(textwrap.fill(line, NOTE_WIDTH, subsequent_indent="  "), err=True)
            raise


def _main() -> None:
    as_json = "--json" in sys.argv[1:]
    first = command_name(sys.argv[1:])
    try:
        # No command named: only the listing (or an option's error) can follow.
        app = build_app(first if first in COMMANDS else None, listing=first is None)
        code = app(standalone_mode=False)
    except RunDoesNotFitError as answer:  # an answer: on stdout, status 1
        _does_not_fit(str(answer), as_json=as_json)
    except MlcostError as error:
        _fail(str(error), as_json=as_json)
    except typer.Exit as done:
        sys.exit(done.exit_code)
    except typer.Abort:
        sys.exit(1)
    except _CLICK_ERROR as error:  # usage errors: unknown command or option, bad value
        if type(error).__name__ == "NoArgsIsHelpError":  # bare `mlcost`: the help is the answer
            sys.exit(0)
        _fail(_usage_message(error), code=getattr(error, "exit_code", 2) or 2, as_json=as_json)
    except OSError as error:
        where = f" {error.filename}" if error.filename else ""
        _fail(f"cannot use{where}: {error.strerror or error}", as_json=as_json)
    except RecursionError:
        _fail("input nested too deeply to be read", as_json=as_json)
    except MemoryError:
        _fail("input too large to hold in memory", as_json=as_json)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as error:  # a bug, not a user error: still one line, and a distinct status
        _fail(
            f"internal error ({type(error).__name__}: {error}); this is a bug in mlcost, "
            "please report it with the command line",
            code=70,
            as_json=as_json,
        )
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
