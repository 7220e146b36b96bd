"""The server-drawn boards: every game draws every step of a match, escaped, from public views."""

from __future__ import annotations

import json
from html import unescape
from html.parser import HTMLParser

import pytest

import engines
from arena.referee.spectate import public_view
from arena.sdk.bots import strategy
from arena.sdk.local import play_local
from arena.web import boards, charts
from engines.replay import Record, steps

SEATS = {"hart": 4, "crossing": 3, "loyang": 2}


class Balanced(HTMLParser):
    """Fails on a closing tag that does not match the open one."""

    VOID = {"rect", "circle", "line", "polyline", "use", "br", "input"}

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: object) -> None:
        pass

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()


def record_of(game: str, seed: int) -> Record:
    """A whole match of heuristic bots."""
    played = play_local(game, [strategy(game, "heuristic") for _ in range(SEATS[game])], seed)
    return played.record


@pytest.mark.parametrize("game", sorted(SEATS))
def test_every_step_draws_a_balanced_board_naming_every_seat(game: str) -> None:
    rules = engines.get(game)
    names = [f"bot-{game}-{i}" for i in range(SEATS[game])]
    drawn = []
    for step in steps(rules, record_of(game, 3)):
        view = public_view(rules, step.after, step.events)  # what spectators are shown
        html = boards.board(game, view, names)
        parser = Balanced()
        parser.feed(html)
        assert parser.open == [], f"unclosed {parser.open} at decision {step.decision.number}"
        assert all(name in html for name in names)
        drawn.append(html)
    assert len(set(drawn)) > len(drawn) // 2, "the board follows the match"


def test_names_and_values_are_escaped() -> None:
    rules = engines.get("hart")
    state = next(iter(steps(rules, record_of("hart", 4)))).after
    view = rules.dump_observation(rules.observe(state, None))
    html = boards.board("hart", view, ["<script>x()</script>", "a&b", "c", "d"])
    assert "<script>" not in html and "&lt;script&gt;" in html and "a&amp;b" in html


def test_an_unknown_game_shows_its_view_as_escaped_json() -> None:
    html = boards.board("chess", {"fen": "<8/8>"}, [])
    assert html.startswith("<pre class='raw'>") and "&lt;8/8&gt;" in html
    inner = html.removeprefix("<pre class='raw'>").removesuffix("</pre>")
    assert json.loads(unescape(inner)) == {"fen": "<8/8>"}


def test_charts_draw_trends_and_histories() -> None:
    assert charts.sparkline([1500.0]) == "", "one point is no trend"
    up = charts.sparkline([1500.0, 1490.0, 1520.0])
    assert "class='spark up'" in up and up.count(",") == 3
    assert "class='spark down'" in charts.sparkline([1500.0, 1480.0])
    chart = charts.rating_chart([(0, 1500.0), (7, 1516.0), (9, 1490.0)], "hart rating")
    assert "match 7: 1516" in chart and "start: 1500" in chart and "2 rated matches" in chart
    assert "no rated matches" in charts.rating_chart([], "x")
