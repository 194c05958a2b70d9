"""``mlcost ui``: the local web page (the ``ui`` extra: Starlette and uvicorn)."""

from __future__ import annotations

import importlib.util
from typing import Annotated

import typer

from mlcost.errors import MlcostError

LOOPBACK = "127.0.0.1"


def ui(
    port: Annotated[int, typer.Option(help="TCP port to listen on.")] = 8765,
    host: Annotated[
        str,
        typer.Option(help="Address to listen on (loopback by default: this machine only)."),
    ] = LOOPBACK,
    browser: Annotated[
        bool, typer.Option("--browser/--no-browser", help="Open the page in a browser.")
    ] = True,
) -> None:
    """A local page where every answer moves with the inputs: train, serve and fit, with
    memory bars, the step split, the roofline and a cost-against-time comparison."""
    missing = [
        m for m in ("starlette", "uvicorn", "multipart") if importlib.util.find_spec(m) is None
    ]
    if missing:
        raise MlcostError(
            f"ui: needs {', '.join(missing)} (the ui extra); install it with "
            "pip install 'mlcost[ui]'"
        )
    if not 0 < port < 65536:
        raise MlcostError(f"--port: got {port}, expected a TCP port from 1 to 65535")
    from mlcost.ui.app import serve

    serve(host=host, port=port, open_browser=browser)
