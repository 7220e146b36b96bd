"""Small server-drawn SVG charts: a leaderboard sparkline and a bot's rating history."""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import escape


def _scale(values: Sequence[float], low: float, high: float) -> list[float]:
    lo, hi = min(values), max(values)
    span = hi - lo or 1.0
    return [high - (v - lo) / span * (high - low) for v in values]


def sparkline(values: Sequence[float], width: int = 100, height: int = 24) -> str:
    """A rating trend as a tiny line; an empty string for fewer than two points."""
    if len(values) < 2:
        return ""
    ys = _scale(values, 2, height - 2)
    step = (width - 4) / (len(values) - 1)
    points = " ".join(f"{2 + i * step:.1f},{y:.1f}" for i, y in enumerate(ys))
    trend = "up" if values[-1] >= values[0] else "down"
    return (
        f"<svg class='spark {trend}' width='{width}' height='{height}' viewBox='0 0 {width} "
        f"{height}' role='img' aria-label='trend {values[0]:.0f} to {values[-1]:.0f}'>"
        f"<polyline points='{points}'/></svg>"
    )


def rating_chart(
    points: Sequence[tuple[int, float]], title: str, width: int = 640, height: int = 200
) -> str:
    """A rating history: (match id, rating after it) per point, oldest first; match 0 = start."""
    if not points:
        return "<p class='muted'>no rated matches yet</p>"
    values = [r for _, r in points]
    pad_l, pad_r, pad_t, pad_b = 44, 8, 10, 22
    ys = _scale(values, pad_t, height - pad_b)
    step = (width - pad_l - pad_r) / max(1, len(values) - 1)
    xs = [pad_l + i * step for i in range(len(values))]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))
    dots = "".join(
        f"<circle cx='{x:.1f}' cy='{y:.1f}' r='3'><title>"
        f"{f'match {m}' if m else 'start'}: {r:.0f}</title></circle>"
        for x, y, (m, r) in zip(xs, ys, points, strict=True)
    )
    lo, hi = min(values), max(values)
    return (
        f"<svg class='chart' viewBox='0 0 {width} {height}' role='img' "
        f"aria-label='{escape(title)}'><text x='4' y='{pad_t + 8}'>{hi:.0f}</text>"
        f"<text x='4' y='{height - pad_b}'>{lo:.0f}</text>"
        f"<line class='axis' x1='{pad_l}' y1='{height - pad_b}' x2='{width - pad_r}' "
        f"y2='{height - pad_b}'/><polyline points='{line}'/>{dots}"
        f"<text x='{pad_l}' y='{height - 6}'>{sum(1 for m, _ in points if m)} rated matches"
        "</text></svg>"
    )
