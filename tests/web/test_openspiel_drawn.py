"""The hand-drawn OpenSpiel boards, without a browser: chess from its FEN, and the card table of
kuhn and leduc poker from their final state (never from a running match's view)."""

from __future__ import annotations

import re
from typing import Any

import pytest

import engines
from arena.web import boards
from arena.web.boards import openspiel_cards, openspiel_chess
from arena.web.boards.openspiel import drawing
from arena.web.boards.openspiel_cards import Card, Table
from engines.driver import MatchDriver
from tests.web.test_openspiel_board import played

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
NAMES = ["ada", "<b>bob</b>", "cy"]


def test_the_chess_start_is_drawn_square_by_square_with_each_piece_on_its_square() -> None:
    drawn = boards.board("openspiel/chess", {"observation": START}, NAMES)
    assert drawn.count("<rect") == 64 and drawn.count("class='piece white'") == 16
    assert drawn.count("class='piece black'") == 16
    assert "aria-label='chess board, white to move'" in drawn
    # a8 is light, b8 dark; the white king on e1 (column 4, row 7) as the outlined glyph
    assert "<rect x='0' y='0' width='40' height='40' fill='#f0d9b5'/>" in drawn
    assert "<rect x='40' y='0' width='40' height='40' fill='#b58863'/>" in drawn
    assert "<text x='180' y='311.2' " in drawn and "<title>white king e1</title>\u2654" in drawn
    assert "<title>black queen d8</title>\u265b" in drawn
    assert f"<pre class='observation'>{START}</pre>" in drawn


def test_a_fen_is_read_rank_by_rank_and_anything_else_is_refused() -> None:
    fen = "r3k2r/8/8/3pP3/8/8/8/R3K2R b KQkq d6 0 12"
    rows = openspiel_chess.placement(fen)
    assert rows == ["r...k..r", "........", "........", "...pP...", *["........"] * 3, "R...K..R"]
    assert openspiel_chess.to_move(fen) == "black"
    for junk in ("8/8/8/8/8/8/8 w", "9/8/8/8/8/8/8/8 w", "rnbqkbnx/8/8/8/8/8/8/8 w", "x.o"):
        assert openspiel_chess.placement(junk) is None, junk
    drawn = boards.board("openspiel/chess", {"observation": "<b>not a fen</b>"}, NAMES)
    assert "<svg" not in drawn and "&lt;b&gt;not a fen&lt;/b&gt;" in drawn


def test_a_played_chess_match_draws_every_piece_of_its_final_position() -> None:
    driver = played("openspiel/chess", seed=2)
    view = driver.view(None)
    pieces = sum(c.isalpha() for c in view["final"].split(" ")[0])
    drawn = boards.board("openspiel/chess", view, NAMES)
    assert drawn.count("class='piece ") == pieces >= 2 and "final state" in drawn


def test_kuhn_and_leduc_final_states_are_read_as_each_seats_cards() -> None:
    assert openspiel_cards.kuhn("2 1 bb", 2) == Table(((Card("K"),), (Card("Q"),)))
    assert openspiel_cards.kuhn("3 0 2 ppbpb", 3) == Table(
        ((Card("A"),), (Card("J"),), (Card("K"),))
    )
    leduc = "Round: 2\nPot: 0\nCards (public player_0 player_1): 4 2 5 \nRound 1 sequence: Call\n"
    spade, heart = openspiel_cards.SUITS
    assert openspiel_cards.leduc(leduc, 2) == Table(
        ((Card("Q", spade),), (Card("K", heart),)), (Card("K", spade),)
    )
    folded = "Cards (public player_0 player_1 [...]): -10000 3 0 7 \n"
    assert openspiel_cards.leduc(folded, 3) == Table(
        ((Card("Q", heart),), (Card("J", spade),), (Card("A", heart),))
    )
    for text, seats in (("2 bb", 2), ("5 1 bb", 2), ("x y", 2), ("", 2)):
        assert openspiel_cards.kuhn(text, seats) is None, text
    for text in ("Cards (public player_0 player_1): 4 2\n", "Cards: 1 2 3", "Pot: 2"):
        assert openspiel_cards.leduc(text, 2) is None, text


def test_the_card_table_is_drawn_at_the_end_only_and_escapes_the_names() -> None:
    final = {"final": "Cards (public player_0 player_1): 4 2 5 \n", "returns": [3.0, -3.0]}
    drawn = boards.board("openspiel/leduc_poker", final, NAMES)
    assert drawn.count("class='hand'") == 2 and drawn.count("class='public'") == 1
    assert re.findall(r"aria-label='([^']*)'", drawn) == ["K\u2660", "Q\u2660", "K\u2665"]
    assert "&lt;b&gt;bob&lt;/b&gt;" in drawn and "<b>bob" not in drawn
    assert "<pre class='observation'>Cards (public" in drawn  # the text stays under the table
    # the same text as a running view (which a hidden-information game never has) draws no card
    running = boards.board("openspiel/leduc_poker", {"observation": final["final"]}, NAMES)
    assert "playing-card" not in running and "card-table" not in running
    # a final state that does not parse: the text alone
    garbled = boards.board("openspiel/kuhn_poker", {"final": "<i>9 9</i>", "returns": [1, -1]}, [])
    assert "playing-card" not in garbled and "&lt;i&gt;9 9&lt;/i&gt;" in garbled


@pytest.mark.parametrize(
    ("game", "seats"), [("openspiel/kuhn_poker", 3), ("openspiel/leduc_poker", 2)]
)
def test_a_played_poker_match_ends_with_every_seats_card_on_the_table(
    game: str, seats: int
) -> None:
    rules = engines.get(game)
    driver: MatchDriver[Any, Any] = MatchDriver(rules, seats, rules.resolve_options({}), 6)
    while (decision := driver.decision) is not None:  # always the last action: raise, call
        driver.play({s: driver.space(s).listing()[-1] for s in decision.seats})
    drawn = boards.board(game, driver.view(None), NAMES)
    board_cards = drawn.count("class='public'")
    assert drawn.count("class='hand'") == seats
    assert drawn.count("playing-card") == seats + board_cards
    assert board_cards == (game == "openspiel/leduc_poker")  # nobody folds: the board card is out


def test_the_games_page_says_how_each_game_is_drawn() -> None:
    assert drawing("go") == "drawn grid" and drawing("chess") == "drawn chessboard"
    assert drawing("leduc_poker") == drawing("kuhn_poker") == "card table at the end"
    assert drawing("hearts") == "observation text"
