"""The ``mlcost`` command line (typer + rich); the commands are in :mod:`mlcost.cli.app`.

This module stays light: ``mlcost --version`` answers from the installed package's metadata
without importing the model, pint or pandas; every other command line goes to
:func:`mlcost.cli.app.main`.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Console entry point (see :func:`mlcost.cli.app.main` for the error contract)."""
    if sys.argv[1:] == ["--version"]:
        from mlcost import __version__

        sys.stdout.write(f"mlcost {__version__}\n")
        sys.exit(0)
    from mlcost.cli.app import main as run

    run()


__all__ = ["main"]
