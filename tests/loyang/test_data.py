"""The data file: its contents, its provenance marks, and rejection of malformed files."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from importlib import resources
from typing import Any

import pytest

from engines import DataError
from engines.loyang.cards import CardKind, Crop, HelperDef, RegularDef
from engines.loyang.data import DATA, parse
from tests.loyang.support import RULES

RAW: dict[str, Any] = json.loads(
    resources.files("engines.loyang").joinpath("cards.json").read_text(encoding="utf-8")
)


def test_the_deck_has_seventy_cards_of_the_proposed_split() -> None:
    kinds = [c.kind for c in DATA.cards.values()]
    assert len(kinds) == 70
    assert {k: kinds.count(k) for k in CardKind} == {
        CardKind.HELPER: 20,
        CardKind.MARKET_STALL: 14,
        CardKind.REGULAR_CUSTOMER: 14,
        CardKind.CASUAL_CUSTOMER: 12,
        CardKind.COMMON_FIELD: 10,
    }
    assert sum(1 for c in DATA.cards.values() if isinstance(c, RegularDef) and c.blue_dot) == 4


def test_the_known_cards_are_sourced_and_guesses_are_provisional() -> None:
    marks = DATA.marks
    assert marks["rules.rounds"].sourced and marks["rules.deck_size"].sourced
    assert not marks["shop.buy"].sourced and not marks["rules.starting_cash"].sourced
    assert marks["cards.CC01.payout"].sourced and marks["cards.RC01.crops"].sourced
    assert not marks["cards.RC01.rows"].sourced  # the row order is a guess
    assert not marks["cards.CC05.payout"].sourced
    for card_id, card in DATA.cards.items():
        if isinstance(card, HelperDef):
            assert not marks[f"cards.{card_id}.effect"].sourced  # no helper effect is known
            if card.printed is None:
                assert not marks[f"cards.{card_id}.printed"].sourced


def test_print_data_marks_every_value() -> None:
    lines = RULES.print_data()
    text = "\n".join(lines)
    assert all(card_id in text for card_id in DATA.cards)
    assert "buy: wheat 3, pumpkin 4" in text and "[PROVISIONAL:L1]" in text
    helper_lines = [line for line in lines if line.strip().startswith("H0")]
    assert helper_lines and all("[" in line for line in helper_lines)
    assert any("printed effect: UNKNOWN" in line for line in lines)
    value_lines = [line for line in lines if " = " in line or ": " in line]
    marked = [line for line in value_lines if "[sourced:" in line or "[PROVISIONAL:" in line]
    assert len(marked) >= 70 + 9 + 15


def _broken(change: Callable[[dict[str, Any]], None]) -> str:
    raw = copy.deepcopy(RAW)
    change(raw)
    return json.dumps(raw)


def _card(raw: dict[str, Any], card_id: str) -> dict[str, Any]:
    return next(c for c in raw["cards"] if c["id"] == card_id)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r["cards"].pop(), "must have 70 cards"),
        (lambda r: r.pop("shop"), "missing key 'shop'"),
        (lambda r: r["rules"]["rounds"].update(mark="sourced:nowhere"), "names no entry"),
        (lambda r: r["rules"]["rounds"].update(mark="guess:L1"), "must be sourced or provisional"),
        (lambda r: r["rules"]["rounds"].update(value="nine"), "rules.rounds: must be an integer"),
        (lambda r: _card(r, "MS01")["goods"][0].update(crop="rice"), "unknown crop 'rice'"),
        (lambda r: _card(r, "MS01")["goods"][0].update(cost=5), "must be in 1..2"),
        (lambda r: _card(r, "RC01").update(rows=[1, 2, 3]), "coins of 4 rows"),
        (lambda r: _card(r, "CC01").update(crops=["wheat"]), "must list 3 crops"),
        (lambda r: _card(r, "H01")["effect"].update(kind="teleport"), "unknown effect"),
        (lambda r: _card(r, "H01").update(lantern=True), "does not fit effect"),
        (lambda r: _card(r, "H01")["marks"].pop("effect"), "no mark for ['effect']"),
        (lambda r: _card(r, "CF01").update(kind="spaceship"), "unknown card kind"),
        (lambda r: _card(r, "CF02").update(id="CF01"), "duplicate id 'CF01'"),
        (lambda r: _card(r, "RC02").update(blue_dot=False), "4 blue-dot"),
        (lambda r: r["fields"]["private"].pop(), "pairs of private fields"),
        (lambda r: r["shop"]["buy"]["value"].pop("leek"), "shop.buy: missing key 'leek'"),
        (lambda r: r.update(format=2), "format: must be 1"),
    ],
)
def test_a_malformed_file_is_rejected_clearly(
    change: Callable[[dict[str, Any]], None], message: str
) -> None:
    with pytest.raises(DataError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse(_broken(change))


def test_text_that_is_not_json_is_rejected() -> None:
    with pytest.raises(DataError, match="not valid JSON"):
        parse("{")


def test_the_packaged_file_parses_to_the_loaded_data() -> None:
    again = parse(json.dumps(RAW))
    assert again == DATA
    assert DATA.buy[Crop.WHEAT] == 3 and DATA.home.size == 9
