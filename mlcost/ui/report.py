"""A static HTML report of one plan: the same fragments as the page, with the style inlined and
no script, so it opens from disk without a server (``mlcost plan ... --html report.html``).
Standard library and mlcost only."""

from __future__ import annotations

from html import escape
from typing import Any

from mlcost.ui import views
from mlcost.ui.page import STATIC
from mlcost.ui.state import UiState


def report(state: UiState, model: Any) -> str:
    """The report of ``state``: its answer, explain() and the equivalent command line."""
    style = (STATIC / "style.css").read_text()
    title = f"mlcost {state.q}: {state.model_argument()} on {state.gpus} x {state.gpu}"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>
<style>{style}</style></head><body><header><h1>{escape(title)}</h1></header>
<main class="report"><section>{views.answer(state, model)}
<h3>Equivalent command line</h3><pre>{escape(state.command_line())}</pre>
<h3>Python</h3><pre>{escape(state.python())}</pre>
<details open><summary>explain() every figure</summary>{views.explain(state, model)}</details>
</section></main></body></html>"""


def plan_report(plan: Any) -> str:
    """The report of a :class:`mlcost.Plan` built elsewhere (the CLI's ``plan --html``)."""
    style = (STATIC / "style.css").read_text()
    title = f"mlcost plan: {plan.description}"
    body = views.plan_fragment(plan)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>
<style>{style}</style></head><body><header><h1>mlcost plan</h1>
<p>{escape(plan.description)}</p></header><main class="report"><section>{body}
<details open><summary>explain() every figure</summary>
<pre class="explain">{escape(plan.explain())}</pre></details></section></main></body></html>"""


__all__ = ["plan_report", "report"]
