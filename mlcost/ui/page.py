"""The page: the input form (every input of :class:`~mlcost.ui.state.UiState`) beside the answer,
server-rendered so the first load needs one request; ``static/page.js`` re-renders the answer on
each input change. Standard library only."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from mlcost.ui.state import (
    ENGINES,
    IMPLEMENTATIONS,
    MODES,
    PRECISIONS,
    QUESTIONS,
    RECOMPUTE,
    WEIGHTS,
    UiState,
)

STATIC = Path(__file__).parent / "static"

#: Upload size limit (bytes): a model's config.json or a spec YAML is a few kilobytes.
MAX_UPLOAD_BYTES = 256 * 1024


def _select(name: str, options: Any, value: Any, label: str, cls: str = "") -> str:
    items = "".join(
        f'<option value="{escape(str(o))}"{" selected" if str(o) == str(value) else ""}>'
        f"{escape(str(o))}</option>"
        for o in options
    )
    return (
        f'<label class="{cls}">{escape(label)}<select name="{name}" id="{name}">{items}'
        "</select></label>"
    )


def _number(
    name: str, value: Any, label: str, cls: str = "", step: str = "1", low: str = "0"
) -> str:
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return (
        f'<label class="{cls}">{escape(label)}<input type="number" name="{name}" id="{name}" '
        f'value="{escape(text)}" step="{step}" min="{low}"></label>'
    )


def _range(name: str, value: int, label: str, low: int, high: int, cls: str = "") -> str:
    """A power-of-two slider (``value`` = 2 ** position) with the number beside it."""
    position = max(low, min(high, value.bit_length() - 1))
    return (
        f'<label class="{cls}">{escape(label)} <output for="{name}-pow">{value}</output>'
        f'<input type="range" class="pow2" data-target="{name}" id="{name}-pow" min="{low}" '
        f'max="{high}" value="{position}"><input type="hidden" name="{name}" id="{name}" '
        f'value="{value}"></label>'
    )


def form(state: UiState, choices: dict[str, list[str]]) -> str:
    """The input form; ``choices`` holds the catalog's names by group (models, accelerators,
    systems, grids)."""
    models, gpus = choices["models"], choices["accelerators"]
    systems, regions = choices["systems"], choices["grids"]
    tabs = "".join(
        f'<label class="tab"><input type="radio" name="q" value="{q}"'
        f"{' checked' if q == state.q else ''}> {q}</label>"
        for q in QUESTIONS
    )
    fields = [
        f'<div class="tabs" role="tablist">{tabs}</div>',
        "<fieldset><legend>Model</legend>",
        _select("model", models, state.model, "catalog model"),
        '<label>or upload config.json / spec YAML<input type="file" id="model-file" '
        'accept=".json,.yaml,.yml"></label>',
        f'<input type="hidden" name="upload" id="upload" value="{escape(state.upload)}">',
        '<p id="upload-status" class="muted"></p>',
        "</fieldset><fieldset><legend>Hardware</legend>",
        _select("gpu", gpus, state.gpu, "GPU"),
        _select("system", ["", *systems], state.system, "or a system (node or cluster)"),
        _range("gpus", state.gpus, "GPUs", 0, 12, "train"),
        '<label>calibrated profile (YAML)<input type="file" id="profile-file" '
        'accept=".yaml,.yml"></label>',
        f'<input type="hidden" name="profile" id="profile" value="{escape(state.profile)}">',
        _select("region", regions, state.region, "region (grid)"),
        _number("price", state.price, "price, USD per GPU-hour (0: catalog)", step="0.01"),
        '</fieldset><fieldset class="train fit"><legend>Training</legend>',
        _select("mode", MODES, state.mode, "pre-training or fine-tuning"),
        _number("rank", state.rank, "LoRA rank", low="1"),
        _select("precision", PRECISIONS, state.precision, "precision"),
        _range("seq", state.seq, "sequence length", 7, 17),
        _number("tokens", state.tokens, "tokens", "train", step="any"),
        _number("gbs", state.gbs, "global batch, sequences (0: default)", "train"),
        _select("impl", IMPLEMENTATIONS, state.impl, "implementation", "train"),
        '</fieldset><fieldset class="train"><legend>Layout</legend>',
        _select("layout", ("search", "manual"), state.layout, "layout"),
        _number("dp", state.dp, "dp", "manual", low="1"),
        _number("tp", state.tp, "tp", "manual", low="1"),
        _number("pp", state.pp, "pp", "manual", low="1"),
        _number("mbs", state.mbs, "micro-batch", "manual", low="1"),
        _number("zero", state.zero, "ZeRO stage", "manual"),
        _select("recompute", RECOMPUTE, state.recompute, "recompute", "manual"),
        '</fieldset><fieldset class="serve"><legend>Serving</legend>',
        _select("engine", ENGINES, state.engine, "engine"),
        _select("weights", WEIGHTS, state.weights, "weights"),
        _number("tpsrv", state.tpsrv, "tensor parallel", low="1"),
        _number("prompt", state.prompt, "prompt tokens", low="1"),
        _number("output", state.output, "output tokens", low="1"),
        _number("batch", state.batch, "batch (0: largest meeting the SLO)"),
        _number("ttft", state.ttft, "SLO: TTFT ms (0: none)", step="any"),
        _number("tpot", state.tpot, "SLO: TPOT ms (0: none)", step="any"),
        "</fieldset>",
    ]
    return (
        f'<form id="inputs" data-q="{state.q}" data-layout="{state.layout}" '
        f'data-max-upload="{MAX_UPLOAD_BYTES}" autocomplete="off">{"".join(fields)}</form>'
    )


def page(state: UiState, answer: str, choices: dict[str, list[str]]) -> str:
    """The whole page, with the answer of ``state`` already in it."""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mlcost</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/style.css"></head>
<body data-rendered="0"><header><h1>mlcost</h1>
<span class="muted">what a run costs, before you rent a GPU</span></header>
<main><aside>{form(state, choices)}</aside>
<section><div id="answer" aria-live="polite">{answer}</div>
<details id="compare-box" class="train fit"><summary>Compare GPU types and counts</summary>
<div id="compare" data-testid="compare"></div></details>
<details id="explain-box"><summary>explain() every figure</summary>
<div id="explain"></div></details>
<div class="share"><h3>Share</h3>
<a id="link" href="?{escape(state.query())}">link to this answer</a> ·
<a id="export-json" href="/export?{escape(state.query())}&amp;format=json">JSON</a> ·
<a id="export-yaml" href="/export?{escape(state.query())}&amp;format=yaml">YAML</a> ·
<a id="export-report" href="/export?{escape(state.query())}&amp;format=html">static report</a>
<pre id="cli" data-testid="cli">{escape(state.command_line())}</pre>
<pre id="python" data-testid="python">{escape(state.python())}</pre></div>
</section></main>
<script src="/static/page.js"></script></body></html>"""


__all__ = ["MAX_UPLOAD_BYTES", "STATIC", "form", "page"]
