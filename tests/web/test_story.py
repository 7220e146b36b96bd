"""Every event an engine can emit is told as a sentence naming the bots; the score chart ends on
the engine's final scores."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import engines
from arena.web import story
from engines.driver import MatchDriver
from engines.rng import HashRng

ENGINES = Path(engines.__file__).parent
GAMES = ("hart", "crossing", "loyang")
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank"]


def emitted_kinds(game: str) -> set[str]:
    """Every event kind the engine's source passes to `emit(...)` or `event(number, kind, ...)`."""
    kinds: set[str] = set()
    for path in (ENGINES / game).glob("*.py"):
        tree = ast.parse(path.read_text())
        helpers = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "emit"]
        inside = {id(n) for helper in helpers for n in ast.walk(helper)}  # `emit` passes kinds on
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or id(node) in inside:
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", None))
            position = {"emit": 0, "event": 1}.get(str(name))
            if position is None or len(node.args) <= position:
                continue
            kind = node.args[position]
            assert isinstance(kind, ast.Constant) and isinstance(kind.value, str), (
                f"{path.name}:{node.lineno}: an event kind that is not a literal cannot be "
                "checked for a sentence"
            )
            kinds.add(kind.value)
    return kinds


@pytest.mark.parametrize("game", GAMES)
def test_every_kind_the_engine_emits_has_a_sentence(game: str) -> None:
    kinds = emitted_kinds(game)
    assert len(kinds) >= 20, f"the walk found too few kinds in {game}: {sorted(kinds)}"
    assert kinds - set(story.SENTENCES[game]) == set(), "kinds without a sentence"
    assert set(story.SENTENCES[game]) - kinds == set(), "sentences of kinds no longer emitted"


def play(game: str, seats: int, seed: int) -> tuple[list[dict[str, object]], list[float]]:
    """The public views of a random match, and its final scores."""
    driver: MatchDriver[object, object] = MatchDriver(engines.get(game), seats, {}, seed)
    views = [driver.view(None)]
    while (decision := driver.decision) is not None:
        for seat in sorted(decision.seats):
            rng = HashRng.for_decision(seed * 31 + seat, decision.number)
            driver.answer(seat, decision.number, driver.space(seat).sample(rng))
        driver.advance()
        views.append(driver.view(None))
    outcome = driver.rules.outcome(driver.state)
    assert outcome is not None
    return views, [float(s) for s in outcome.scores]


@pytest.mark.parametrize(("game", "seats"), [("hart", 4), ("crossing", 3), ("loyang", 2)])
def test_sentences_fill_every_field_and_name_the_bots(game: str, seats: int) -> None:
    views, final = play(game, seats, 5)
    told = 0
    for view in views:
        for event in view.get("events") or []:  # type: ignore[attr-defined]
            line = story.sentence(game, event, NAMES[:seats])
            assert "—" not in line and "{" not in line, f"{event} told as {line!r}"
            for key in ("seat", "sheriff", "attacker", "owner"):
                seat = event.get(key)
                if isinstance(seat, int):
                    assert NAMES[seat] in line, f"{event} told as {line!r}"
            told += 1
    assert told > len(views) / 2
    assert story.scores(game, views[-1]) == final, "the chart ends on the final scores"


def test_hart_game_over_names_every_bot_with_their_money() -> None:
    event = {"kind": "game_over", "number": 99, "money": [289, 132, 57]}
    line = story.sentence("hart", event, ["alice", "bob", "carol"])
    assert line == "Game over: alice $289, bob $132, carol $57."


def test_final_sale_names_holdings_and_income() -> None:
    event = {"kind": "final_sale", "good": "jug", "cap": 6, "held": [2, 0], "incomes": [8, 0]}
    line = story.sentence("hart", event, ["alice", "bob"])
    assert line == "Final sale of jug (at most 6): held alice 2, bob 0; income alice $8, bob $0."


def test_a_bot_in_two_seats_is_told_apart_and_unknown_kinds_still_read() -> None:
    assert story.name_of(1, ["alice", "alice"]) == "alice (seat 1)"
    assert story.name_of(7, ["alice"]) == "seat 7"
    line = story.sentence("hart", {"kind": "brand_new", "seat": 0}, ["alice"])
    assert line == "brand new: seat 0"


def test_a_payment_to_nobody_goes_to_the_bank() -> None:
    event = {"kind": "paid", "seat": 0, "amount": 30, "to": None, "why": "crew_cards"}
    assert (
        story.sentence("crossing", event, ["alice"]) == "alice pays $30 to the bank (crew_cards)."
    )


def test_crossing_spaces_are_named_as_the_map_labels_them() -> None:
    views, _ = play("crossing", 3, 5)
    names = NAMES[:3]
    moves = [
        line
        for v in views
        for line in story.sentences("crossing", v, names)
        if " moves to " in line
    ]
    assert moves and not any("space " in line for line in moves), moves[:3]
    labels = story.places(views[0])
    assert "CENTRAL, central station" in labels and "START" in labels
