"""The ``mlcost`` command line (typer + rich); the commands are in :mod:`mlcost.cli.app`.

This module stays light: ``mlcost --version`` answers from the installed package's metadata
without importing the model, pint or pandas; every other command line goes to
:func:`mlcost.cli.app.main`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable


def main() -> None:
    """Console entry point (see :func:`mlcost.cli.app.main` for the error contract)."""
    if sys.argv[1:] == ["--version"]:
        from mlcost import __version__

        sys.stdout.write(f"mlcost {__version__}\n")
        sys.exit(0)
    if "mlcost.cli.app" in sys.modules:  # started before (a test calling main again)
        from mlcost.cli.app import main as run
    else:
        run = _start()
    run()


def _start() -> Callable[[], None]:
    """Import the command line, and the module of the command it names, with the cyclic garbage
    collector off: start-up creates some 10^5 objects that live until exit (modules, classes,
    the unit registry, numpy, pydantic) and no garbage, so the collector's passes over them are
    pure cost. What start-up built is then frozen out of later collections (``gc.freeze``) and
    the collector turned back on for the command's own work. A command module that fails to
    import is imported again by :func:`mlcost.cli.app.main`, which reports the error in its
    one line."""
    import contextlib
    import gc
    import importlib
    import os

    # pydantic loads its plugins (entry points of the group "pydantic") when it builds its
    # first validator: a read of every installed distribution's entry points, about 10 ms with
    # the 104 distributions of the test environment, on every command line. The command line
    # validates only its own specs and options and no plugin instruments them, so it runs
    # without pydantic plugins unless PYDANTIC_DISABLE_PLUGINS (pydantic's own switch) is set
    # to something else. Set for this process (and what it starts) only: importing mlcost as a
    # library changes no environment.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    gc.disable()
    try:
        from mlcost.cli import app

        command = app.COMMANDS.get(app.command_name(sys.argv[1:]) or "")
        if command is not None:
            # A failure is reported by app.main, which imports the module again.
            with contextlib.suppress(Exception):
                importlib.import_module(command[0])
    finally:
        gc.freeze()
        gc.enable()
    return app.main


__all__ = ["main"]
