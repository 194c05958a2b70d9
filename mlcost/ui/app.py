"""The web app of ``mlcost ui``: a small ASGI app (Starlette, served by uvicorn) that renders the
page on the server and answers each input change with the new answer fragment as JSON
(``static/page.js`` swaps it in). Needs the ``ui`` extra; nothing else in mlcost imports this."""

from __future__ import annotations

import hashlib
import tempfile
import warnings
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import mlcost
from mlcost.ui import render, report, views
from mlcost.ui.page import MAX_UPLOAD_BYTES, STATIC, page
from mlcost.ui.state import UiState


class Uploads:
    """Uploaded files of one server, kept under a temporary folder by content hash (the page
    refers to them by hash), each checked with the same loaders as the CLI
    (:func:`mlcost.model` for a model, :func:`mlcost.accelerator` for a calibrated profile)."""

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="mlcost-ui-")
        self._paths: dict[str, Path] = {}

    def add(self, name: str, data: bytes, kind: str) -> tuple[str, str]:
        """Store and check an upload; returns (its id, what it is). One-line errors raise."""
        suffix = Path(name).suffix.lower()
        if suffix not in (".json", ".yaml", ".yml"):
            raise mlcost.MlcostError(
                f"upload: got {name!r}, expected a config.json or a spec .yaml/.yml file"
            )
        if len(data) > MAX_UPLOAD_BYTES:
            raise mlcost.MlcostError(
                f"upload: {name!r} is {len(data):,} bytes, expected at most "
                f"{MAX_UPLOAD_BYTES:,} (a config.json or spec YAML is a few kB)"
            )
        key = hashlib.sha256(data).hexdigest()[:16]
        path = Path(self._folder.name) / f"{key}{suffix}"
        path.write_bytes(data)
        try:
            loaded = mlcost.model(str(path)) if kind == "model" else mlcost.accelerator(str(path))
        except mlcost.MlcostError as problem:  # name the file as the user knows it
            line = str(problem).splitlines()[0].replace(str(path), Path(name).name)
            raise mlcost.MlcostError(line) from None
        self._paths[key] = path
        return key, str(getattr(loaded, "name", name))

    def path(self, key: str) -> Path:
        if key not in self._paths:
            raise mlcost.MlcostError(
                f"upload: {key!r} is not held by this server (it restarted?); upload the file again"
            )
        return self._paths[key]


def create_app() -> Starlette:
    """The app: the page, its answer, comparison, explain and export endpoints, uploads."""
    uploads = Uploads()
    catalog = mlcost.catalog()
    choices = {g: catalog.names(g) for g in ("models", "accelerators", "systems", "grids")}

    def resolved(request: Request) -> tuple[UiState, Any]:
        """The state to compute with (an uploaded profile's path as its GPU) and the model."""
        state = UiState.from_query(dict(request.query_params))
        model: Any = str(uploads.path(state.upload)) if state.upload else state.model
        if state.profile:
            state = state.with_(gpu=str(uploads.path(state.profile)))
        return state, model

    def shared(request: Request) -> dict[str, str]:
        """The URL's query, command line and Python snippet (uploads by their usual names)."""
        state = UiState.from_query(dict(request.query_params))
        shown = state.with_(gpu="profile.yaml") if state.profile else state
        return {"query": state.query(), "cli": shown.command_line(), "python": shown.python()}

    async def index(request: Request) -> Response:
        try:
            state, model = resolved(request)
            answer = views.answer(state, model)
            state = UiState.from_query(dict(request.query_params))  # as the user gave it
        except mlcost.MlcostError as problem:
            state, answer = UiState(), render.error(str(problem))
        return HTMLResponse(page(state, answer, choices))

    async def answer(request: Request) -> Response:
        try:
            state, model = resolved(request)
        except mlcost.MlcostError as problem:
            return JSONResponse({"html": render.error(str(problem)), "error": True})
        return JSONResponse({"html": views.answer(state, model), **shared(request)})

    def fragment(build: Any) -> Any:
        async def endpoint(request: Request) -> Response:
            try:
                state, model = resolved(request)
                return HTMLResponse(build(state, model))
            except mlcost.MlcostError as problem:
                return HTMLResponse(render.error(str(problem)))

        return endpoint

    def compare(state: UiState, model: Any) -> str:
        if state.q == "fit":
            return views.fit_comparison(state, model)
        return views.comparison(state, model)

    async def export(request: Request) -> Response:
        try:
            state, model = resolved(request)
        except mlcost.MlcostError as problem:
            return PlainTextResponse(str(problem), status_code=400)
        kind = request.query_params.get("format", "json")
        if kind == "yaml":
            return PlainTextResponse(state.to_yaml(), media_type="application/yaml")
        if kind == "html":
            return HTMLResponse(report.report(state, model))
        if kind in ("cli", "python"):
            return PlainTextResponse(shared(request)[kind])
        return Response(state.to_json(), media_type="application/json")

    async def upload(request: Request) -> Response:
        kind = request.query_params.get("kind", "model")
        length = int(request.headers.get("content-length") or 0)
        if length > MAX_UPLOAD_BYTES + 4096:
            message = f"upload: {length:,} bytes, expected at most {MAX_UPLOAD_BYTES:,}"
            return JSONResponse({"error": message})
        async with request.form(max_files=1, max_fields=4) as form:
            item = form.get("file")
            if item is None or isinstance(item, str):
                return JSONResponse({"error": "upload: no file given; choose a file"})
            data = await item.read(MAX_UPLOAD_BYTES + 1)
            name = item.filename or "upload"
        try:
            key, label = uploads.add(name, data, kind)
        except mlcost.MlcostError as problem:
            return JSONResponse({"error": str(problem).splitlines()[0]})
        return JSONResponse({"id": key, "name": label})

    routes = [
        Route("/", index),
        Route("/answer", answer),
        Route("/compare", fragment(compare)),
        Route("/explain", fragment(views.explain)),
        Route("/export", export),
        Route("/upload", upload, methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    # The compute-optimal note is a figure of the plan (N / N_opt); as a warning it would only
    # fill the server's log on every request.
    warnings.filterwarnings("ignore", category=UserWarning, module="mlcost")
    app = Starlette(routes=routes)
    views.answer(UiState(), "llama-3-8b")  # warm the catalog and the first plan
    return app


def serve(host: str = "127.0.0.1", port: int = 8765, open_browser: bool = True) -> None:
    """Serve the app at ``http://host:port/`` until interrupted (prints the address first)."""
    import uvicorn

    app = create_app()
    address = f"http://{host}:{port}/"
    print(f"mlcost ui: serving on {address} (Ctrl+C to stop)", flush=True)
    if open_browser:
        import threading
        import webbrowser

        threading.Timer(0.5, webbrowser.open, args=(address,)).start()
    uvicorn.run(app, host=host, port=port, log_level="warning")


__all__ = ["Uploads", "create_app", "serve"]
