"""The ``mlcost`` command line (typer + rich).

Every command takes ``--json`` where it prints numbers; in JSON every quantity is
``{"value": <number>, "unit": "<pint unit string>"}``. A user error (unknown name, bad file,
bad option, a run that does not fit) prints one line on stderr and exits with status 2, never a
traceback. Commands live in one module per group (``specs``, ``workload``, ``memory``,
``timing``, ``parallel``, ``checkpoint``, ``measure``, ``plan``); the options they share and the
one name resolver are :mod:`mlcost.cli.options`, what they print :mod:`mlcost.cli.output`.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from mlcost import __version__
from mlcost.cli.checkpoint import checkpoint_app
from mlcost.cli.measure import bench, calibrate, validate
from mlcost.cli.memory import fit, memory
from mlcost.cli.parallel import comm_app, parallel_command
from mlcost.cli.plan import plan
from mlcost.cli.specs import specs_app, summary
from mlcost.cli.timing import roofline, step
from mlcost.cli.workload import flops, ops
from mlcost.errors import MlcostError

app = typer.Typer(
    help="What a training run costs - FLOPs, memory, time, dollars, CO2 - before you rent a GPU.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(specs_app, name="specs")
app.add_typer(checkpoint_app, name="checkpoint")
app.add_typer(comm_app, name="comm")
for _command in (
    summary,
    flops,
    ops,
    memory,
    fit,
    step,
    roofline,
    bench,
    calibrate,
    validate,
    plan,
):
    app.command()(_command)
app.command("parallel")(parallel_command)


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


#: The base class of typer's (vendored) click usage errors, found without importing click.
_CLICK_ERROR: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
)


def _fail(message: str) -> None:
    Console(stderr=True, soft_wrap=True).print(
        Text.assemble(("error: ", "bold red"), message), highlight=False
    )
    sys.exit(2)


def main() -> None:
    """Console entry point: user errors become one line on stderr and exit status 2."""
    try:
        code = app(standalone_mode=False)
    except MlcostError as error:
        _fail(" ".join(str(error).split()))
    except typer.Exit as done:
        sys.exit(done.exit_code)
    except typer.Abort:
        sys.exit(1)
    except _CLICK_ERROR as error:  # usage errors: unknown command or option, bad value
        error.show()  # type: ignore[attr-defined]
        sys.exit(error.exit_code)  # type: ignore[attr-defined]
    except OSError as error:
        where = f" {error.filename}" if error.filename else ""
        _fail(f"cannot use{where}: {error.strerror or error}")
    except KeyboardInterrupt:
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
