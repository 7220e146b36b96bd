"""Version tests for the web: the list, one test as JSON, and its LLR chart against the bounds."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from starlette.requests import Request

from arena.referee.limits import clip
from arena.storage.db import Database
from arena.versiontest import store
from arena.web.door import BadRequest, NotFoundError, query_int

STATUS_WORDS = {
    "running": "running",
    "h0": "H0 accepted: not stronger by elo1",
    "h1": "H1 accepted: stronger",
    "capped": "stopped at its match cap",
    "stopped": "stopped by an operator",
}
WIDTH, HEIGHT = 640, 220
PAD_L, PAD_R, PAD_T, PAD_B = 48, 10, 12, 24


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


async def version_tests(db: Database, request: Request, default_limit: int) -> dict[str, Any]:
    """The newest tests (`?status=` one state, `?limit=` how many), as JSON."""
    limit = query_int(request, "limit", default_limit, 1)
    raw = request.query_params.get("status") or None
    if raw is not None and raw not in STATUS_WORDS:
        raise BadRequest(f"status must be one of {', '.join(STATUS_WORDS)}, got {clip(raw)!r}")
    rows = await store.listing(db, None if raw is None else store.TestStatus(raw), limit)
    return {
        "status": raw,
        "tests": [
            {
                "test_id": r.id,
                "game": r.game,
                "candidate": r.candidate,
                "baseline": r.baseline,
                "seats": r.seats,
                "elo0": r.elo0,
                "elo1": r.elo1,
                "status": r.status.value,
                "llr": r.llr,
                "sets_counted": r.sets_counted,
                "owner": r.owner,
                "created_at": r.created_at.isoformat(),
                "finished_at": r.finished_at.isoformat() if r.finished_at else None,
            }
            for r in rows
        ],
    }


async def version_test(db: Database, test_id: int) -> dict[str, Any]:
    """The test, its sets (each with its matches) and its estimate, as JSON."""
    try:
        report = await store.report(db, test_id)
    except LookupError as exc:
        raise NotFoundError(str(exc.args[0])) from None
    test, hyp, est = report.test, report.test.hypotheses, report.estimate
    return {
        "test_id": test.id,
        "game": test.game,
        "candidate": test.candidate,
        "baseline": test.baseline,
        "fillers": list(test.fillers),
        "seats": test.seats,
        "elo0": hyp.elo0,
        "elo1": hyp.elo1,
        "alpha": hyp.alpha,
        "beta": hyp.beta,
        "max_matches": test.max_matches,
        "owner": test.owner,
        "status": test.status,
        "llr": test.llr,
        "lower_bound": hyp.lower,
        "upper_bound": hyp.upper,
        "matches_counted": report.matches_counted,
        "estimate": {
            "sets": est.sets,
            "score": est.score,
            "elo": est.elo,
            "low": _finite(est.low),
            "high": _finite(est.high),
        },
        "created_at": test.created_at.isoformat(),
        "finished_at": test.finished_at.isoformat() if test.finished_at else None,
        "sets": [
            {
                "set_no": s.set_no,
                "attempt": s.attempt,
                "status": s.status,
                "score": s.score,
                "llr": s.llr,
                "counted_at": s.counted_at.isoformat() if s.counted_at else None,
                "match_ids": list(s.match_ids),
            }
            for s in report.sets
        ],
    }


def llr_chart(points: Sequence[float], lower: float, upper: float) -> str:
    """The LLR after each counted set, with the two bounds as lines (server-drawn SVG)."""
    if not points:
        return "<p class='muted'>no sets counted yet</p>"
    low = min(lower, *points) - 0.2
    high = max(upper, *points) + 0.2
    span = high - low

    def y(value: float) -> float:
        return PAD_T + (high - value) / span * (HEIGHT - PAD_T - PAD_B)

    step = (WIDTH - PAD_L - PAD_R) / max(1, len(points))
    xs = [PAD_L + (k + 1) * step for k in range(len(points))]
    line = " ".join(
        f"{x:.1f},{y(v):.1f}" for x, v in zip([PAD_L, *xs], [0.0, *points], strict=True)
    )
    bounds = "".join(
        f"<line class='bound {name}' x1='{PAD_L}' y1='{y(v):.1f}' x2='{WIDTH - PAD_R}' "
        f"y2='{y(v):.1f}'/><text x='4' y='{y(v) + 4:.1f}'>{label} {v:+.2f}</text>"
        for name, label, v in (("h1", "H1", upper), ("h0", "H0", lower))
    )
    zero = f"<line class='axis' x1='{PAD_L}' y1='{y(0):.1f}' x2='{WIDTH - PAD_R}' y2='{y(0):.1f}'/>"
    return (
        f"<svg class='chart llr' viewBox='0 0 {WIDTH} {HEIGHT}' role='img' "
        f"aria-label='LLR after each set, from 0 to {points[-1]:+.2f}'>{bounds}{zero}"
        f"<polyline points='{line}'/>"
        f"<text x='{PAD_L}' y='{HEIGHT - 6}'>{len(points)} sets counted</text></svg>"
    )


def page_context(info: dict[str, Any]) -> dict[str, Any]:
    """What the test's page template reads: the test, its LLR chart and the status words."""
    points = [s["llr"] for s in info["sets"] if s["status"] == "counted"]
    chart = llr_chart(points, info["lower_bound"], info["upper_bound"])
    return {"t": info, "chart": chart, "status_words": STATUS_WORDS}
