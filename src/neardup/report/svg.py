"""Small inline SVG bar charts (no plotting library: the report must be tiny, fast, offline)."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 28, 48


@dataclass(frozen=True)
class Series:
    """One bar series: a label, one count per bin, a fill colour."""

    label: str
    counts: Sequence[int]
    color: str


@dataclass(frozen=True)
class Mark:
    """A vertical line at ``position`` (0 = left edge of the first bin, 1 = right edge of the
    last) with a label, e.g. a threshold."""

    position: float
    label: str


def bar_chart(
    *,
    title: str,
    bins: Sequence[str],
    series: Sequence[Series],
    x_label: str,
    y_label: str,
    log_y: bool = False,
    marks: Sequence[Mark] = (),
    bin_starts: bool = False,
) -> str:
    """An SVG bar chart: one group of bars per bin, one bar per series. ``bin_starts``: the bin
    labels are the bins' lower edges, written under the edge (under the bin's middle, a
    threshold line on an edge looked half a bin off its value)."""
    n = max(len(bins), 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top = max((c for s in series for c in s.counts), default=0)

    def height(count: int) -> float:
        if count <= 0 or top <= 0:
            return 0.0
        if log_y:
            return plot_h * math.log10(count + 1) / math.log10(top + 1)
        return plot_h * count / top

    group_w = plot_w / n
    bar_w = max(group_w * 0.8 / max(len(series), 1), 0.5)
    out = [
        f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{html.escape(title)}">',
        f'<text x="{WIDTH / 2}" y="16" text-anchor="middle" class="title">{html.escape(title)}</text>',
        f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" class="axis"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" class="axis"/>',
    ]
    for value in _y_ticks(top, log_y=log_y):
        y = TOP + plot_h - height(value)
        out.append(f'<text x="{LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">{value:,}</text>')
    for si, s in enumerate(series):
        for i, count in enumerate(s.counts):
            h = height(int(count))
            if h <= 0:
                continue
            x = LEFT + i * group_w + group_w * 0.1 + si * bar_w
            out.append(
                f'<rect x="{x:.1f}" y="{TOP + plot_h - h:.1f}" width="{bar_w:.1f}" '
                f'height="{h:.1f}" fill="{s.color}"><title>{html.escape(s.label)} '
                f"{html.escape(bins[i])}: {int(count):,}</title></rect>"
            )
    step = max(1, math.ceil(n / 10))
    for i in range(0, len(bins), step):
        x = LEFT + (i if bin_starts else i + 0.5) * group_w
        out.append(
            f'<text x="{x:.1f}" y="{TOP + plot_h + 14}" text-anchor="middle">'
            f"{html.escape(bins[i])}</text>"
        )
    out.append(
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 8}" text-anchor="middle">'
        f"{html.escape(x_label)}</text>"
    )
    out.append(
        f'<text x="12" y="{TOP + plot_h / 2}" text-anchor="middle" '
        f'transform="rotate(-90 12 {TOP + plot_h / 2})">{html.escape(y_label)}'
        f"{' (log scale)' if log_y else ''}</text>"
    )
    out.extend(_marks(marks, plot_w, plot_h))
    if len(series) > 1:
        out.extend(_legend(series, plot_w))
    out.append("</svg>")
    return "".join(out)


def _marks(marks: Sequence[Mark], plot_w: float, plot_h: float) -> list[str]:
    """A vertical line and label per mark (e.g. a threshold), labels on the side with room."""
    out = []
    for k, mark in enumerate(marks):
        x = LEFT + min(max(mark.position, 0.0), 1.0) * plot_w
        right_half = x > LEFT + plot_w / 2
        out.append(
            f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + plot_h}" class="mark"/>'
            f'<text x="{x - 3 if right_half else x + 3:.1f}" y="{TOP + 12 + 12 * k}" '
            f'text-anchor="{"end" if right_half else "start"}" class="mark-label">'
            f"{html.escape(mark.label)}</text>"
        )
    return out


def _legend(series: Sequence[Series], plot_w: float) -> list[str]:
    """A colour swatch and label per series, top right."""
    out = []
    for si, s in enumerate(series):
        x = LEFT + plot_w - 150
        y = TOP + 6 + 16 * si
        out.append(
            f'<rect x="{x}" y="{y}" width="10" height="10" fill="{s.color}"/>'
            f'<text x="{x + 14}" y="{y + 9}">{html.escape(s.label)}</text>'
        )
    return out


def _y_ticks(top: int, *, log_y: bool) -> list[int]:
    if top <= 0:
        return []
    if log_y:  # 1, 2, 5, 10, ... over few decades (under 10: not "1" alone), powers over many
        decades = int(math.log10(top)) + 1
        steps = (1, 2, 5) if decades <= 2 else (1,)
        return [m * 10**e for e in range(decades) for m in steps if m * 10**e <= top]
    step = 10 ** max(int(math.log10(top)) - (1 if top < 3 * 10 ** int(math.log10(top)) else 0), 0)
    return list(range(0, top + 1, step))[:12]
