"""The answer of each question as an HTML fragment, from the public API's objects
(:mod:`mlcost.ui.compute`) drawn by :mod:`mlcost.ui.render`. Standard library and mlcost only:
the static report (``mlcost plan --html``) uses these without a web server."""

from __future__ import annotations

from html import escape
from typing import Any

import mlcost
from mlcost.ui import compute, render
from mlcost.ui.state import COMPARED_GPUS, UiState

#: The plan's figures the headline shows first: (figure name, unit, label, test id).
TRAIN_HEADLINE = (
    ("wall clock", "day", "time to train", "wall"),
    ("GPU-hours", "hour", "GPU-hours", "gpu-hours"),
    ("rental cost", "USD", "cost (rental)", "cost"),
    ("total CO2e", "tCO2e", "CO2e (operational + embodied)", "co2"),
    ("MFU", "percent", "MFU", "mfu"),
)


def _figures(result: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for figure in result.figures():
        found.setdefault(figure.name, figure)
    return found


def verdict(fits: bool, text: str) -> str:
    cls = "fits" if fits else "nofit"
    word = "Fits" if fits else "Does not fit"
    return (
        f'<div class="verdict {cls}" data-testid="verdict" data-fits="{str(fits).lower()}">'
        f"<strong>{word}</strong> <span>{escape(text)}</span></div>"
    )


def memory_bar(breakdown: Any) -> str:
    """Memory per GPU, term by term (GiB), against the GPU's usable memory."""
    parts = [(t.name, float(t.value.to("GiB").magnitude)) for t in breakdown.terms]
    capacity = float(breakdown.capacity.to("GiB").magnitude) if breakdown.capacity else None
    return render.stacked_bar(parts, capacity, "GiB", "memory")


def train(state: UiState, model: Any) -> str:
    """Pre-training or fine-tuning: verdict, headline numbers with bands, memory, step split,
    roofline; the comparison and explain() load on demand."""
    return plan_fragment(compute.plan(state, model))


def plan_fragment(plan: mlcost.Plan) -> str:
    """A plan's verdict, headline numbers with bands, memory, step split and roofline (or, when
    it does not fit, the nearest layouts that do)."""
    figures = _figures(plan)
    out = [verdict(plan.fits, str(figures["fits"].value))]
    out.append(f'<p class="muted" data-testid="layout">{escape(plan.description)}</p>')
    memory = plan.memory()
    if not plan.fits:
        tips = "".join(f"<li>{escape(s.text())}</li>" for s in plan.suggestions())
        out.append(f"<h3>Nearest layouts that fit</h3><ul>{tips or '<li>none found</li>'}</ul>")
        out.append("<h3>Memory per GPU</h3>" + memory_bar(memory))
        return "".join(out)
    cost = plan.cost()
    figures = _figures(plan)
    cards = [
        (label, render.figure_text(figures[name], unit), key)
        for name, unit, label, key in TRAIN_HEADLINE
        if name in figures
    ]
    usd = float(cost["rental cost"].to("USD").magnitude)
    cards[2] = (cards[2][0], f'<span data-usd="{usd:.8g}">{cards[2][1]}</span>', cards[2][2])
    out.append(render.headline(cards))
    out.append("<h3>Memory per GPU</h3>" + memory_bar(memory))
    step = _figures(plan.step_time())
    split = [
        (name, float(step[name].value.to("ms").magnitude))
        for name in ("compute", "exposed communication", "pipeline bubble", "input pipeline")
        if name in step
    ]
    out.append(
        "<h3>Step time split</h3>"
        + render.stacked_bar(
            split, float(step["step"].value.to("ms").magnitude), "ms", "step", limit="step time"
        )
    )
    out.append("<h3>Roofline</h3>" + roofline(plan))
    return "".join(out)


def roofline(plan: Any) -> str:
    """The plan's GPU roofline with the model's operators (forward FLOPs over bytes moved)."""
    run = plan.run
    table = mlcost.operators(run.model, run.config, run.layout).to_frame()
    fmt = run.config.policy.compute_format
    gpu = plan.accelerator
    peak = float(gpu.peak(fmt).to("FLOP/s").magnitude)
    bandwidth = float(gpu.memory_bandwidth.to("B/s").magnitude)
    ops = []
    columns = ("name", "kind", "count", "forward_flops", "bytes_read", "bytes_written")
    for name, kind, count, flops, read, written in zip(
        *(table[c].tolist() for c in columns), strict=True
    ):
        moved = float(read) + float(written)
        if moved > 0 and float(flops) > 0:
            ops.append((f"{name} ({kind})", float(flops) / moved, float(flops) * float(count)))
    return render.roofline(ops, peak, bandwidth, f"{gpu.name}, {fmt}")


def comparison(state: UiState, model: Any) -> str:
    """Train: the run on other GPU types and counts, a table and cost against time."""
    rows = compute.comparison(state, model)
    return render.cost_time_plot(rows) + render.comparison_table(rows)


def serve(state: UiState, model: Any) -> str:
    """Serve: fits, latency against the SLO, throughput, cost per token, memory."""
    plan = compute.serve_plan(state, model)
    figures = _figures(plan)
    out = [verdict(plan.fits, str(figures["fit"].value))]
    out.append(f'<p class="muted">{escape(plan.description)}</p>')
    if not plan.fits:
        return "".join(out)
    row = plan.row()
    slo = ""
    if state.ttft or state.tpot:
        met = (not state.ttft or row["ttft_ms"] <= state.ttft) and (
            not state.tpot or row["tpot_ms"] <= state.tpot
        )
        slo = (
            f'<div class="verdict {"fits" if met else "nofit"}" data-testid="slo">'
            f"<strong>SLO {'met' if met else 'missed'}</strong> TTFT <= {state.ttft:g} ms, "
            f"TPOT <= {state.tpot:g} ms</div>"
        )
    out.append(slo)
    names = (
        ("time to first token", "ms", "TTFT", "ttft"),
        ("time per output token", "ms", "TPOT", "tpot"),
        ("output throughput per replica", "token/s", "output tokens/s", "throughput"),
        ("USD per million output tokens", "USD", "USD per 1M output tokens", "cost"),
        ("CO2e per million output tokens", "gCO2e", "CO2e per 1M output tokens", "co2"),
        ("batch", None, "batch", "batch"),
    )
    out.append(
        render.headline([(label, render.figure_text(figures[n], u), k) for n, u, label, k in names])
    )
    memory = plan.memory
    kv = float(row["batch"]) * memory["sequence"]
    parts = [("weights", memory["weights"] / 1e9), ("KV cache (batch)", kv / 1e9)]
    out.append(
        "<h3>Memory per GPU</h3>"
        + render.stacked_bar(parts, memory["capacity"] / 1e9, "GB", "memory")
    )
    return "".join(out)


def fit(state: UiState, model: Any) -> str:
    """Fit: which of full, LoRA and QLoRA fit the chosen GPU, at which batch and sequence."""
    result = compute.fit(state, model)
    frame = result.to_frame()
    fits = bool(frame["fits"].any())
    first = frame[frame["fits"]]["method"].tolist()
    text = f"{', '.join(first) or 'nothing'} on one {state.gpu} at {state.seq} tokens"
    out = [verdict(fits, text)]
    rows = [
        [
            r.method,
            f"{int(r[1]):,}",
            render.number(float(r[2])),
            "yes" if r.fits else "no",
            r[4],
            r[5],
        ]
        for r in frame.itertuples(index=False)
    ]
    out.append(render.table(list(frame.columns), rows, "fit-table"))
    return "".join(out)


def fit_comparison(state: UiState, model: Any) -> str:
    """Fit on every compared GPU: GiB per GPU of each method, and whether it fits."""
    rows = []
    for gpu in dict.fromkeys([state.gpu, *COMPARED_GPUS]):
        try:
            frame = compute.fit(state, model, gpu=gpu).to_frame()
        except mlcost.MlcostError as problem:
            rows.append([gpu, str(problem), "", ""])
            continue
        cells = [
            f"{render.number(float(r[2]))} GiB {'✓' if r.fits else '✗'}"
            for r in frame.itertuples(index=False)
        ]
        rows.append([gpu, *cells])
    return render.table(["GPU", "full", "LoRA", "QLoRA"], rows, "fit-compare")


ANSWERS = {"train": train, "serve": serve, "fit": fit}


def answer(state: UiState, model: Any) -> str:
    """The fragment of the state's question; a user error becomes one line on the page."""
    try:
        return ANSWERS[state.q](state, model)
    except mlcost.MlcostError as problem:
        return render.error(str(problem))


def explain(state: UiState, model: Any) -> str:
    """``explain()`` of the question's result: every figure, formula, numbers and source."""
    try:
        if state.q == "serve":
            text = compute.serve_plan(state, model).explain()
        elif state.q == "fit":
            text = compute.fit(state, model).explain()
        else:
            text = compute.plan(state, model).explain()
    except mlcost.MlcostError as problem:
        return render.error(str(problem))
    return f'<pre class="explain" data-testid="explain">{escape(text)}</pre>'


__all__ = [
    "answer",
    "comparison",
    "explain",
    "fit",
    "fit_comparison",
    "plan_fragment",
    "serve",
    "train",
]
