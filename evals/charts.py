"""Server-rendered SVG charts for the report pages (no JavaScript, no CDN).

Each function returns markup built only from numbers and escaped labels, marked safe for
templates. The y axis of the pass^k chart starts at the floor of the lowest bound shown (to a
tenth), never higher, and says so on the axis: small differences near 1.0 are what a go-live
decision turns on, and an axis from 0 would hide them.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

PALETTE = ("#2454d6", "#1c7c48", "#a86200", "#b3261e", "#6b3fa6", "#00838f", "#5f6b7a")


def _fmt(value: float) -> str:
    return f"{value:.1f}"


def _link(href: str | None, inner: str, label: str = "") -> str:
    """`inner` wrapped in an SVG link to the trials behind it (unchanged without `href`)."""
    if not href:
        return inner
    title = f' aria-label="{escape(label)}"' if label else ""
    return f'<a href="{escape(href)}" class="chart-link"{title}>{inner}</a>'


@dataclasses.dataclass(frozen=True)
class _PassKScale:
    """Where pass^k values land on the chart: k along x, the value along y from `y_min`."""

    ks: list[int]
    y_min: float
    width: int
    height: int
    left: int = 48
    right: int = 150
    top: int = 16
    bottom: int = 36

    @property
    def plot_w(self) -> int:
        return self.width - self.left - self.right

    @property
    def plot_h(self) -> int:
        return self.height - self.top - self.bottom

    def x(self, k: int) -> float:
        if len(self.ks) == 1:
            return self.left + self.plot_w / 2
        return self.left + (k - self.ks[0]) / (self.ks[-1] - self.ks[0]) * self.plot_w

    def y(self, v: float) -> float:
        return self.top + (1.0 - (v - self.y_min) / (1.0 - self.y_min)) * self.plot_h


def _pass_k_frame(scale: _PassKScale) -> list[str]:
    """The value grid with its labels, the k labels and the axis caption."""
    x, y, left, height = scale.x, scale.y, scale.left, scale.height
    out = []
    steps = 5
    for i in range(steps + 1):
        v = scale.y_min + (1.0 - scale.y_min) * i / steps
        out.append(
            f'<line x1="{left}" x2="{left + scale.plot_w}" y1="{_fmt(y(v))}" y2="{_fmt(y(v))}" '
            'stroke="#dde2e8" stroke-width="1"/>'
            f'<text x="{left - 6}" y="{_fmt(y(v) + 4)}" font-size="11" text-anchor="end" '
            f'fill="#5f6b7a">{v:.2f}</text>'
        )
    for k in scale.ks:
        out.append(
            f'<text x="{_fmt(x(k))}" y="{height - scale.bottom + 16}" font-size="11" '
            f'text-anchor="middle" fill="#5f6b7a">k={k}</text>'
        )
    axis = escape(gettext("pass^k (y axis from %(floor).1f)") % {"floor": scale.y_min})
    out.append(f'<text x="{left}" y="{height - 4}" font-size="11" fill="#5f6b7a">{axis}</text>')
    return out


def _pass_k_series(
    scale: _PassKScale, index: int, label: str, pts: list[tuple[int, Mapping[str, Any]]]
) -> str:
    """One series: its 95 % band, its line, each k's point with its interval, and its
    legend entry, in one group."""
    x, y = scale.x, scale.y
    color = PALETTE[index % len(PALETTE)]
    out: list[str] = []
    upper = [f"{_fmt(x(k))},{_fmt(y(e['high']))}" for k, e in pts]
    lower = [f"{_fmt(x(k))},{_fmt(y(e['low']))}" for k, e in reversed(pts)]
    if len(pts) > 1:
        out.append(
            f'<polygon points="{" ".join(upper + lower)}" fill="{color}" fill-opacity="0.12"/>'
        )
    line = " ".join(f"{_fmt(x(k))},{_fmt(y(e['value']))}" for k, e in pts)
    out.append(f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="2"/>')
    for k, e in pts:
        out.append(
            f'<line x1="{_fmt(x(k))}" x2="{_fmt(x(k))}" y1="{_fmt(y(e["low"]))}" '
            f'y2="{_fmt(y(e["high"]))}" stroke="{color}" stroke-width="1"/>'
            f'<circle cx="{_fmt(x(k))}" cy="{_fmt(y(e["value"]))}" r="3" fill="{color}">'
            f"<title>{escape(label)} pass^{k} = {e['value']:.3f} "
            f"[{e['low']:.3f}, {e['high']:.3f}]</title></circle>"
        )
    legend_x, legend_y = scale.width - scale.right, scale.top + 14 + index * 18
    out.append(
        f'<rect x="{legend_x + 12}" y="{legend_y - 9}" width="10" height="10" fill="{color}"/>'
        f'<text x="{legend_x + 28}" y="{legend_y}" font-size="12" fill="#1d2330">'
        f"{escape(label)}</text>"
    )
    return f'<g data-series="{escape(label)}">{"".join(out)}</g>'


def pass_k_chart(
    series: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    width: int = 640,
    height: int = 300,
    links: Mapping[str, str] | None = None,
) -> SafeString:
    """`series`: (label, {"1": {"value", "low", "high"}, "2": ...}) — pass^k with its 95 %
    band for k = 1..n, one line and one shaded band per series. `links`: per label, the URL
    of the trials behind that series; its band, points and legend entry link there."""
    links = links or {}
    points = [(label, sorted((int(k), e) for k, e in est.items())) for label, est in series if est]
    if not points:
        return mark_safe('<p class="muted">No pass^k to chart yet.</p>')
    ks = sorted({k for _, pts in points for k, _ in pts})
    lows = [e["low"] for _, pts in points for _, e in pts]
    y_min = max(0.0, math.floor(min(lows) * 10) / 10)
    if y_min >= 1.0:
        y_min = 0.9
    scale = _PassKScale(ks=ks, y_min=y_min, width=width, height=height)
    out = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="100%" '
        f'aria-label="pass^k for k = {ks[0]}..{ks[-1]} with 95% confidence bands" '
        'xmlns="http://www.w3.org/2000/svg">',
        *_pass_k_frame(scale),
    ]
    for index, (label, pts) in enumerate(points):
        out.append(
            _link(
                links.get(label),
                _pass_k_series(scale, index, label, pts),
                gettext("The trials behind %(label)s") % {"label": label},
            )
        )
    out.append("</svg>")
    return mark_safe("".join(out))  # noqa: S308 - numbers and escaped labels only


def _cell_color(value: float | None, floor: float | None = None) -> str:
    if value is None:
        return "#eceff3"
    if floor is not None:
        # Distance to the floor: below it red (deeper the further), at it yellow, green from
        # 0.1 above it: what the gate asks of the cell, not the cell's bare value.
        margin = value - floor
        if margin < 0:
            return f"hsl(0, 75%, {86 - round(min(-margin, 0.3) / 0.3 * 16)}%)"
        return f"hsl({55 + round(65 * min(margin / 0.1, 1.0))}, 60%, 82%)"
    # 0.5 or below is full red, 1.0 full green: go-live decisions live in the top half.
    t = max(0.0, min(1.0, (value - 0.5) / 0.5))
    hue = round(120 * t)
    return f"hsl({hue}, 60%, {88 - round(18 * (1 - t))}%)"


def heatmap(
    data: Mapping[str, Any],
    *,
    cell_w: int = 120,
    cell_h: int = 40,
    link: Callable[[str, str], str] | None = None,
    floor: Callable[[str, str], float | None] | None = None,
) -> SafeString:
    """domain x persona grid: pass^k per cell (pass^1 beneath), coloured red → green. With
    `link(domain, persona)` each cell links to the trials behind it; with `floor(domain,
    persona)` a cell held to a gate floor is coloured by its distance to that floor and shows
    it beneath the value."""
    domains: list[str] = list(data.get("domains", []))
    personas: list[str] = list(data.get("personas", []))
    if not domains or not personas:
        return mark_safe('<p class="muted">No trials yet.</p>')
    k = data.get("k", 1)
    left, top = 110, 28
    width, height = left + cell_w * len(personas) + 4, top + cell_h * len(domains) + 4
    out = [
        f'<svg class="chart heatmap" role="img" viewBox="0 0 {width} {height}" width="{width}" '
        f'aria-label="pass^{k} by domain and persona" xmlns="http://www.w3.org/2000/svg">'
    ]
    for j, persona in enumerate(personas):
        out.append(
            f'<text x="{left + j * cell_w + cell_w / 2}" y="{top - 10}" font-size="12" '
            f'text-anchor="middle" fill="#5f6b7a">{escape(persona[:18])}</text>'
        )
    for i, domain in enumerate(domains):
        yy = top + i * cell_h
        out.append(
            f'<text x="{left - 8}" y="{yy + cell_h / 2 + 4}" font-size="12" text-anchor="end" '
            f'fill="#1d2330">{escape(domain[:16])}</text>'
        )
        for j, persona in enumerate(personas):
            cell = data.get("cells", {}).get(f"{domain}|{persona}")
            passk = cell.get("passk") if cell else None
            pass1 = cell.get("pass1") if cell else None
            xx = left + j * cell_w
            label = "-" if passk is None else f"{passk:.2f}"
            sub = "" if pass1 is None else f"pass^1 {pass1:.2f}"
            cell_floor = floor(domain, persona) if floor else None
            if cell_floor is not None:
                margin = "" if passk is None else f" ({passk - cell_floor:+.2f})"
                sub = gettext("floor %(floor).2f%(margin)s") % {
                    "floor": cell_floor,
                    "margin": margin,
                }
            floor_attrs = ""
            if cell_floor is not None:
                below = passk is None or passk < cell_floor
                floor_attrs = f' data-floor="{cell_floor}" data-below="{str(below).lower()}"'
            cell_svg = (
                f'<g data-cell="{escape(domain)}|{escape(persona)}"{floor_attrs}>'
                f'<rect x="{xx + 1}" y="{yy + 1}" width="{cell_w - 2}" height="{cell_h - 2}" '
                f'rx="3" fill="{_cell_color(passk, cell_floor)}"/>'
                f'<text x="{xx + cell_w / 2}" y="{yy + 18}" font-size="13" font-weight="600" '
                f'text-anchor="middle" fill="#1d2330">{label}</text>'
                f'<text x="{xx + cell_w / 2}" y="{yy + 32}" font-size="10" text-anchor="middle" '
                f'fill="#5f6b7a">{escape(sub)}</text>'
                f"<title>{escape(domain)} x {escape(persona)}: pass^{k} {label}, {escape(sub)}"
                "</title></g>"
            )
            out.append(
                _link(
                    link(domain, persona) if link else None,
                    cell_svg,
                    f"{domain} x {persona}: pass^{k} {label}",
                )
            )
    out.append("</svg>")
    return mark_safe("".join(out))  # noqa: S308 - numbers and escaped labels only


def bars(
    items: Sequence[tuple[str, float]],
    *,
    width: int = 420,
    unit: str = "",
    links: Mapping[str, str] | None = None,
) -> SafeString:
    """Horizontal bars (failure classes, cost per role); `links`: per label, the URL of the
    trials behind that bar."""
    links = links or {}
    if not items:
        none = escape(gettext("None."))
        return mark_safe(f'<p class="muted">{none}</p>')  # noqa: S308
    peak = max(v for _, v in items) or 1.0
    row, label_w = 22, 150
    height = row * len(items) + 4
    out = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" '
        'xmlns="http://www.w3.org/2000/svg">'
    ]
    for i, (label, value) in enumerate(items):
        yy = i * row + 2
        w = (width - label_w - 70) * value / peak
        bar = (
            f'<g data-bar="{escape(label)}">'
            f'<text x="{label_w - 6}" y="{yy + 14}" font-size="12" text-anchor="end" '
            f'fill="#1d2330">{escape(label)}</text>'
            f'<rect x="{label_w}" y="{yy + 3}" width="{_fmt(max(w, 1))}" height="14" rx="2" '
            f'fill="#b3261e" fill-opacity="0.75"/>'
            f'<text x="{_fmt(label_w + max(w, 1) + 6)}" y="{yy + 14}" font-size="12" '
            f'fill="#5f6b7a">{value:g}{escape(unit)}</text></g>'
        )
        out.append(_link(links.get(label), bar, f"{label}: {value:g}{unit}"))
    out.append("</svg>")
    return mark_safe("".join(out))  # noqa: S308 - numbers and escaped labels only


def history_chart(
    runs: Sequence[tuple[str, Mapping[str, Mapping[str, float] | None]]],
    *,
    width: int = 640,
    height: int = 260,
) -> SafeString:
    """pass^k per domain over a suite's runs, oldest first: `runs` is (label, {domain:
    {"value", "low", "high"} or None}); one line per domain, its band as a whisker."""
    domains = sorted({d for _, per in runs for d, e in per.items() if e})
    if len(runs) < 2 or not domains:
        none = escape(gettext("Fewer than two finished runs of this suite: no history yet."))
        return mark_safe(f'<p class="muted">{none}</p>')  # noqa: S308
    lows = [e["low"] for _, per in runs for e in per.values() if e]
    y_min = max(0.0, math.floor(min(lows) * 10) / 10)
    if y_min >= 1.0:
        y_min = 0.9
    left, right, top, bottom = 48, 130, 16, 36
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(i: int) -> float:
        return left + i / (len(runs) - 1) * plot_w

    def y(v: float) -> float:
        return top + (1.0 - (v - y_min) / (1.0 - y_min)) * plot_h

    label = escape(gettext("pass^k per domain over the last runs"))
    out = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="100%" '
        f'aria-label="{label}" '
        'xmlns="http://www.w3.org/2000/svg">'
    ]
    for i in range(6):
        v = y_min + (1.0 - y_min) * i / 5
        out.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{_fmt(y(v))}" y2="{_fmt(y(v))}" '
            f'stroke="#dde2e8"/><text x="{left - 6}" y="{_fmt(y(v) + 4)}" font-size="11" '
            f'text-anchor="end" fill="#5f6b7a">{v:.2f}</text>'
        )
    for i, (label, _) in enumerate(runs):
        out.append(
            f'<text x="{_fmt(x(i))}" y="{height - bottom + 16}" font-size="11" '
            f'text-anchor="middle" fill="#5f6b7a">{escape(label)}</text>'
        )
    for index, domain in enumerate(domains):
        color = PALETTE[index % len(PALETTE)]
        points = [(i, per.get(domain)) for i, (_, per) in enumerate(runs)]
        shown = [(i, e) for i, e in points if e]
        line = " ".join(f"{_fmt(x(i))},{_fmt(y(e['value']))}" for i, e in shown)
        out.append(
            f'<g data-domain="{escape(domain)}"><polyline points="{line}" fill="none" '
            f'stroke="{color}" stroke-width="2"/>'
        )
        for i, e in shown:
            out.append(
                f'<line x1="{_fmt(x(i))}" x2="{_fmt(x(i))}" y1="{_fmt(y(e["low"]))}" '
                f'y2="{_fmt(y(e["high"]))}" stroke="{color}"/><circle cx="{_fmt(x(i))}" '
                f'cy="{_fmt(y(e["value"]))}" r="3" fill="{color}"><title>{escape(domain)} '
                f"{runs[i][0]}: {e['value']:.3f} [{e['low']:.3f}, {e['high']:.3f}]</title>"
                "</circle>"
            )
        ly = top + 14 + index * 18
        out.append(
            f'<rect x="{width - right + 12}" y="{ly - 9}" width="10" height="10" '
            f'fill="{color}"/><text x="{width - right + 28}" y="{ly}" font-size="12" '
            f'fill="#1d2330">{escape(domain)}</text></g>'
        )
    out.append("</svg>")
    return mark_safe("".join(out))  # noqa: S308 - numbers and escaped labels only
