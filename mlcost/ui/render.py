"""HTML fragments of the page and of the static report: the verdict with its bands, memory per
GPU as a stacked bar against capacity, the step's time split, the roofline with the model's
operators, the comparison table and its cost-against-time plot with the Pareto front. Inline SVG
drawn from the API's numbers (no plotting library per request); standard library only."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from mlcost.ui.compute import Row, pareto

#: Colours of the stacked bars (Okabe & Ito 2008, the colour-blind-safe palette), cycled.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999")


def number(value: float, digits: int = 4) -> str:
    """A number to ``digits`` significant digits, with thousands separators."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if value == 0:
        return "0"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    return f"{value:,.{decimals}f}"


def quantity(value: Any, unit: str | None = None) -> str:
    """A pint quantity as text, in ``unit`` if given."""
    if unit is not None:
        value = value.to(unit)
    return f"{number(float(value.magnitude))} {value.units:~P}"


def figure_text(figure: Any, unit: str | None = None) -> str:
    """A figure's value with its band (``low to high``) where it has one."""
    if not hasattr(figure.value, "magnitude"):
        return escape(str(figure.value))
    text = quantity(figure.value, unit)
    if figure.band is not None:
        low, high = figure.band
        text += (
            f' <span class="band">(80% band {quantity(low, unit)} to {quantity(high, unit)})</span>'
        )
    return text


def error(message: str) -> str:
    """The page's one-line error."""
    return f'<p class="error" role="alert">{escape(message.splitlines()[0] if message else "")}</p>'


def headline(rows: Sequence[tuple[str, str, str]]) -> str:
    """Cards of the numbers that matter first: (label, HTML value, test id)."""
    cards = "".join(
        f'<div class="card"><div class="label">{escape(label)}</div>'
        f'<div class="value" data-testid="{key}">{value}</div></div>'
        for label, value, key in rows
    )
    return f'<div class="cards">{cards}</div>'


def stacked_bar(
    parts: Iterable[tuple[str, float]],
    capacity: float | None,
    unit: str,
    test_id: str,
    width: int = 720,
    limit: str = "capacity",
) -> str:
    """One horizontal bar of ``parts`` (label, value) against ``capacity`` (a red line named
    ``limit``)."""
    parts = [(label, value) for label, value in parts if value > 0]
    total = sum(value for _, value in parts)
    scale = max(total, capacity or 0.0) * 1.05 or 1.0
    x, bars, legend = 0.0, [], []
    for index, (label, value) in enumerate(parts):
        colour = PALETTE[index % len(PALETTE)]
        w = value / scale * width
        bars.append(
            f'<rect x="{x:.1f}" y="4" width="{w:.1f}" height="28" fill="{colour}">'
            f"<title>{escape(label)}: {number(value)} {unit}</title></rect>"
        )
        legend.append(
            f'<span class="key"><i style="background:{colour}"></i>{escape(label)} '
            f"{number(value)} {unit}</span>"
        )
        x += w
    line = ""
    if capacity:
        cx = capacity / scale * width
        line = (
            f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="0" y2="36" stroke="#c00" stroke-width="2"/>'
            f'<text x="{cx - 4:.1f}" y="48" text-anchor="end" class="axis">{escape(limit)} '
            f"{number(capacity)} {unit}</text>"
        )
    return (
        f'<svg class="bar" data-testid="{test_id}" data-total="{total:.6g}" '
        f'data-capacity="{(capacity or 0):.6g}" viewBox="0 0 {width} 52" width="{width}" '
        f'height="52" role="img">{"".join(bars)}{line}</svg>'
        f'<div class="legend">{"".join(legend)}</div>'
    )


def _log_axis(value: float, low: float, high: float, size: float) -> float:
    return (math.log10(value) - math.log10(low)) / (math.log10(high) - math.log10(low)) * size


def roofline(
    operators: Sequence[tuple[str, float, float]], peak: float, bandwidth: float, label: str
) -> str:
    """The roofline ``min(peak, bandwidth x intensity)`` (FLOP/s) on log axes, with one dot per
    operator (name, arithmetic intensity in FLOP/B, FLOPs) at its attainable rate."""
    w, h, pad = 720, 300, 48
    points = [(n, i, f) for n, i, f in operators if i > 0 and f > 0]
    ridge = peak / bandwidth
    i_low = min([ridge / 100, *(i / 2 for _, i, _ in points)])
    i_high = max([ridge * 100, *(i * 2 for _, i, _ in points)])
    p_low, p_high = bandwidth * i_low / 2, peak * 2

    def xy(i: float, p: float) -> tuple[float, float]:
        return pad + _log_axis(i, i_low, i_high, w - 2 * pad), h - pad - _log_axis(
            p, p_low, p_high, h - 2 * pad
        )

    x0, y0 = xy(i_low, bandwidth * i_low)
    xr, yr = xy(ridge, peak)
    x1, y1 = xy(i_high, peak)
    dots = []
    for name, intensity, flops in points:
        x, y = xy(intensity, min(peak, bandwidth * intensity))
        r = 3 + min(6.0, math.log10(max(flops, 1.0)) / 3)
        dots.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" class="op">'
            f"<title>{escape(name)}: {number(intensity)} FLOP/B, {flops:.3g} FLOP</title></circle>"
        )
    return (
        f'<svg class="plot" data-testid="roofline" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
        f'role="img"><polyline points="{x0:.1f},{y0:.1f} {xr:.1f},{yr:.1f} {x1:.1f},{y1:.1f}" '
        f'fill="none" stroke="#333" stroke-width="2"/>{"".join(dots)}'
        f'<text x="{xr:.1f}" y="{yr - 8:.1f}" class="axis" text-anchor="middle">ridge '
        f"{number(ridge)} FLOP/B, peak {number(peak / 1e12)} TFLOP/s ({escape(label)})</text>"
        f'<text x="{w / 2}" y="{h - 10}" class="axis" text-anchor="middle">arithmetic '
        "intensity (FLOP/B, log)</text>"
        f'<text x="14" y="{h / 2}" class="axis" transform="rotate(-90 14 {h / 2})" '
        'text-anchor="middle">attainable FLOP/s (log)</text></svg>'
    )


def comparison_table(rows: Sequence[Row]) -> str:
    """The compared configurations: memory against capacity, wall clock and rental cost."""
    front = {(r.gpu, r.gpus) for r in pareto(rows)}
    body = []
    for r in rows:
        if r.problem:
            body.append(
                f"<tr><td>{escape(r.gpu)}</td><td>{r.gpus}</td>"
                f'<td colspan="4" class="muted">{escape(r.problem)}</td></tr>'
            )
            continue
        mark = " ★" if (r.gpu, r.gpus) in front else ""
        body.append(
            f"<tr><td>{escape(r.gpu)}{mark}</td><td>{r.gpus}</td>"
            f"<td>{'yes' if r.fits else 'no'}</td>"
            f"<td>{number(r.memory_gib)} / {number(r.capacity_gib)}</td>"
            f"<td>{number(r.hours) if r.hours is not None else '-'}</td>"
            f"<td>{number(r.usd) if r.usd is not None else '-'}</td></tr>"
        )
    return (
        '<table class="compare" data-testid="comparison"><thead><tr><th>GPU</th><th>GPUs</th>'
        "<th>fits</th><th>GiB per GPU / capacity</th><th>wall clock (h)</th>"
        "<th>rental (USD)</th></tr></thead><tbody>" + "".join(body) + "</tbody></table>"
        '<p class="muted">★ the Pareto front: no other configuration is both faster and cheaper. '
        "Rental cost is blank where the catalog has no price for that GPU (set a price).</p>"
    )


def cost_time_plot(rows: Sequence[Row]) -> str:
    """Rental cost against wall clock (log-log), the Pareto front joined by a line."""
    priced = [r for r in rows if r.hours and r.usd and math.isfinite(r.usd)]
    if not priced:
        return '<p class="muted">No priced configuration to plot.</p>'
    w, h, pad = 720, 300, 56
    hours = [r.hours for r in priced if r.hours]
    usd = [r.usd for r in priced if r.usd]
    h_low, h_high = min(hours) / 1.5, max(hours) * 1.5
    u_low, u_high = min(usd) / 1.5, max(usd) * 1.5

    def xy(r: Row) -> tuple[float, float]:
        return pad + _log_axis(r.hours or 1, h_low, h_high, w - 2 * pad), h - pad - _log_axis(
            r.usd or 1, u_low, u_high, h - 2 * pad
        )

    dots = []
    for r in priced:
        x, y = xy(r)
        dots.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" class="cfg"><title>{escape(r.gpu)} x '
            f"{r.gpus}: {number(r.hours or 0)} h, {number(r.usd or 0)} USD</title></circle>"
            f'<text x="{x + 7:.1f}" y="{y - 6:.1f}" class="tiny">{escape(r.gpu)}×{r.gpus}</text>'
        )
    front = " ".join("{:.1f},{:.1f}".format(*xy(r)) for r in pareto(priced))
    return (
        f'<svg class="plot" data-testid="pareto" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
        f'role="img"><polyline points="{front}" fill="none" stroke="#D55E00" '
        f'stroke-width="2"/>{"".join(dots)}<text x="{w / 2}" y="{h - 12}" class="axis" '
        f'text-anchor="middle">wall clock (hours, log) from {number(h_low)} to {number(h_high)}'
        f'</text><text x="14" y="{h / 2}" class="axis" transform="rotate(-90 14 {h / 2})" '
        f'text-anchor="middle">rental cost (USD, log)</text></svg>'
    )


def table(header: Sequence[str], rows: Iterable[Sequence[Any]], test_id: str = "") -> str:
    """A plain HTML table."""
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    tid = f' data-testid="{test_id}"' if test_id else ""
    return f"<table{tid}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


__all__ = [
    "comparison_table",
    "cost_time_plot",
    "error",
    "figure_text",
    "headline",
    "number",
    "quantity",
    "roofline",
    "stacked_bar",
    "table",
]
