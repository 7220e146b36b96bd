"""Setup, harvest and the card phase: research-notes 1.3 edge cases 1-8 and the solo grid."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from engines import IllegalAction
from engines.loyang import board, card_phase, rounds
from engines.loyang.data import DATA
from engines.loyang.state import LoyangState, Phase, Stage, Turn
from engines.loyang.work import PlayerWork
from tests.loyang.support import (
    RULES,
    FixedRng,
    act,
    acting,
    blank,
    crops,
    field,
    fresh,
    legal,
    run,
)


def test_a_third_player_cannot_sow_a_crop_two_have_sown() -> None:
    state = fresh(3)
    order = state.queue
    state = act(state, order[0], {"type": "setup_sow", "crop": "turnip"})
    state = act(state, order[1], {"type": "setup_sow", "crop": "turnip"})
    assert state.players[order[1]].cash == 10 - 5
    assert {"type": "setup_sow", "crop": "turnip"} not in legal(state, order[2])
    assert {"type": "setup_sow", "crop": "wheat"} in legal(state, order[2])
    with pytest.raises(IllegalAction):
        act(state, order[2], {"type": "setup_sow", "crop": "turnip"})


def test_private_fields_come_in_two_piles_and_none_is_drawn_in_round_nine() -> None:
    for seed in range(5):
        state = fresh(2, seed=seed)
        sizes = [board.private_field(f).size for f in state.players[0].stack]
        assert sorted(sizes[:4]) == [3, 4, 5, 6] == sorted(sizes[4:])
        seen_rounds = set()
        while (decision := RULES.decision(state)) is not None:
            if state.phase is not Phase.SETUP:
                seen_rounds.add(state.round)
                for player in state.players:
                    assert len(player.stack) == 8 - min(state.round, 8)
            joint = {s: RULES.legal_actions(state, s).default() for s in decision.seats}
            state = RULES.apply(state, joint, FixedRng())
        assert seen_rounds == set(range(1, 10))
        revealed = [f.size for f in state.players[0].fields if f.id.startswith("P")]
        assert sorted(revealed[:4]) == [3, 4, 5, 6] == sorted(revealed[4:])


def test_harvest_discards_emptied_fields_and_leaves_unsown_ones() -> None:
    player = blank(
        fields=(
            field("home", "wheat", 5),
            field("P3a", "bean", 1),
            field("CF03", "leek", 1, under="H01"),
            field("P4a"),
        ),
        store=crops(cabbage=1),
    )
    work = PlayerWork(player)
    discards, emptied = board.harvest(work, 3)
    harvested = work.freeze()
    assert [(f.id, f.count) for f in harvested.fields] == [("home", 4), ("P4a", 0)]
    assert discards == ("CF03",) and len(emptied) == 2
    assert [h.card for h in harvested.helpers] == ["H01"]  # the card behind the field
    assert harvested.cart == crops(wheat=1, bean=1, leek=1, cabbage=1)
    assert harvested.store == crops()


def test_the_storehouse_limit_applies_only_at_the_end_of_the_turn() -> None:
    player = blank(cash=0, cart=crops(bean=3, wheat=2))
    state = acting([player, blank()], seat=0)
    state = act(state, 0, {"type": "end_turn"})
    assert state.turns[0].stage is Stage.STORE
    state = act(state, 0, {"type": "store", "crop": "bean"})
    # the storehouse (1 space) is full and an upgrade is unaffordable: the rest is sold
    me = state.players[0]
    assert me.store == crops(bean=1) and me.cart == crops()
    assert me.cash == 2 * 2 + 2 * 1


def test_a_short_deck_is_dealt_evenly_and_the_rest_stays() -> None:
    state = replace(fresh(4), deck=tuple(list(DATA.cards)[:13]), discard=())
    dealt = run(state, card_phase.begin, FixedRng())
    assert [len(p.hand) for p in dealt.players] == [3, 3, 3, 3]
    assert len(dealt.deck) == 1


def _card_state(hands: list[tuple[str, ...]], start: int = 0, **changes: Any) -> LoyangState:
    base = fresh(len(hands))
    players = tuple(replace(blank(), hand=h) for h in hands)
    return replace(
        base,
        phase=Phase.CARD,
        round=1,
        queue=(),
        players=players,
        start=start,
        current=start,
        opened=False,
        courtyard=(),
        deck=tuple(c for c in DATA.cards if not any(c in h for h in hands)),
        **changes,
    )


def test_forced_option_b_and_the_finishing_order_sets_the_start_markers() -> None:
    state = _card_state([("H01", "H02"), ("H03", "H04"), ("H05", "H06")])
    assert {a["type"] for a in legal(state, 0)} == {"play"}  # no reveal with 3 players
    state = act(state, 0, {"type": "play", "card": "H01"})
    state = act(state, 1, {"type": "take", "courtyard": "H01", "hand": "H03"})
    assert state.courtyard == ("H04",) and state.out == (1,)
    state = act(state, 2, {"type": "play", "card": "H05"})
    assert {a["type"] for a in legal(state, 0)} == {"take"}  # one card left: only B
    state = act(state, 0, {"type": "take", "courtyard": "H04", "hand": "H02"})
    assert {a["type"] for a in legal(state, 2)} == {"take"}  # the last player: only B
    state = act(state, 2, {"type": "take", "courtyard": "H05", "hand": "H06"})
    assert state.phase is Phase.ACTION
    assert (state.start, state.second) == (2, 0)
    assert [t.seat for t in state.turns] == [2] and state.groups == ((0,), (1,))
    assert "H04" not in state.discard and state.players[0].helpers[-1].card == "H02"


def test_the_last_player_with_several_cards_may_only_take() -> None:
    state = replace(
        _card_state([(), ("H03", "H04", "H05")]), opened=True, courtyard=("H01",), current=1
    )
    assert {a["type"] for a in legal(state, 1)} == {"take"}
    state = act(state, 1, {"type": "take", "courtyard": "H01", "hand": "H03"})
    assert state.phase is Phase.ACTION


def test_an_empty_courtyard_with_one_card_left_means_playing_it() -> None:
    state = replace(_card_state([("H01",), ("H02", "H03")]), opened=True, current=0)
    assert legal(state, 0) == [{"type": "play", "card": "H01"}]


def test_two_player_rule_reveals_instead_of_playing() -> None:
    state = _card_state([("H01", "H02", "H03"), ("H04", "H05", "H06")])
    state = replace(state, config=replace(state.config, two_player_rule=True))
    assert {"type": "reveal"} in legal(state, 0)
    top = state.deck[0]
    state = act(state, 0, {"type": "reveal"})
    assert state.courtyard == (top,) and len(state.players[0].hand) == 3
    assert {"type": "reveal"} in legal(state, 1)  # option A may reveal as well
    state = act(state, 1, {"type": "reveal"})
    assert len(state.courtyard) == 2 and len(state.players[1].hand) == 3
    two_player = fresh(2)
    assert two_player.config.two_player_rule and not fresh(3).config.two_player_rule


def test_a_common_field_with_one_coin_must_be_paid_by_selling_or_a_loan() -> None:
    state = _card_state([("CF01", "H01"), ("H02", "H03")])
    players = list(state.players)
    players[0] = replace(players[0], cash=1, cart=crops(wheat=2))
    state = replace(state, players=tuple(players), opened=True, courtyard=("MS01",))
    state = act(state, 0, {"type": "take", "courtyard": "MS01", "hand": "CF01"})
    decision = RULES.decision(state)
    assert decision is not None and decision.label == "pay" and decision.seats == {0}
    assert legal(state, 0) == [{"type": "sell", "crop": "wheat"}, {"type": "loan"}]
    state = act(state, 0, {"type": "sell", "crop": "wheat"})
    me = state.players[0]
    assert (me.cash, me.due, me.cart) == (0, 0, crops(wheat=1))
    assert RULES.decision(state).seats == {1}  # type: ignore[union-attr]


def test_with_nothing_to_sell_a_loan_is_taken_at_once() -> None:
    state = _card_state([("CF01", "H01"), ("H02", "H03")])
    players = list(state.players)
    players[0] = replace(players[0], cash=1)
    state = replace(state, players=tuple(players), opened=True, courtyard=("MS01",))
    state = act(state, 0, {"type": "take", "courtyard": "MS01", "hand": "CF01"})
    me = state.players[0]
    assert (me.cash, me.loans, me.due) == (1 + 5 - 2, 1, 0)


def test_solo_grid_prices_rows_and_refills() -> None:
    state = fresh(1, solo_discard_row=1)
    state = act(state, 0, {"type": "setup_sow", "crop": "wheat"})
    assert state.phase is Phase.CARD and len(state.grid) == 12
    assert RULES.decision(state).label == "grid"  # type: ignore[union-attr]
    grid = (
        "H01",
        "H02",
        "H03",
        "H04",
        "H05",
        "H06",
        "MS01",
        "MS02",
        "MS03",
        "MS04",
        "MS05",
        "MS06",
    )
    deck = ("CC01", "CC02", "CC03", "CC04", "CC05", "CC06")
    state = replace(state, grid=grid, deck=deck, discard=(), face_down=0)
    state = replace(state, players=(replace(state.players[0], cash=1),))
    assert {(a["row"], a["col"]) for a in legal(state, 0)} == {
        (r, c) for r in (0, 1) for c in range(3)
    }
    state = replace(state, players=(replace(state.players[0], cash=3),))
    assert len(legal(state, 0)) == 12
    state = act(state, 0, {"type": "grid_buy", "row": 1, "col": 0})
    assert state.players[0].cash == 2
    state = act(state, 0, {"type": "grid_buy", "row": 2, "col": 0})
    assert state.players[0].cash == 0
    assert [h.card for h in state.players[0].helpers] == ["H04"]
    assert [s.card for s in state.players[0].stalls] == ["MS01"]
    assert state.discard == ("H01", "H02", "H03")  # the rest of the top row (option, L19)
    assert state.grid == (
        "MS04", "H05", "H06",
        "CC01", "MS02", "MS03",
        "CC02", "MS05", "MS06",
        "CC03", "CC04", "CC05",
    )  # fmt: skip
    assert state.deck == ("CC06",) and state.phase is Phase.ACTION


def test_solo_reshuffles_the_discard_pile_once_on_the_first_field_discard() -> None:
    state = fresh(1)
    state = act(state, 0, {"type": "setup_sow", "crop": "wheat"})
    assert state.face_down > 0 and not state.reshuffled
    me = replace(state.players[0], fields=(field("home", "wheat", 5), field("P3a", "bean", 2)))
    state = replace(state, players=(me,), round=1)
    discard = state.discard
    after = run(state, rounds.begin_round, FixedRng())
    assert after.discard == discard and not after.reshuffled  # nothing emptied
    me = replace(state.players[0], fields=(field("home", "wheat", 5), field("P3a", "bean", 1)))
    after = run(replace(state, players=(me,)), rounds.begin_round, FixedRng())
    assert after.reshuffled and after.discard == () and after.face_down == 0
    assert len(after.deck) == len(state.deck) + len(discard)
    me = replace(after.players[0], fields=(field("P4a", "bean", 1),))
    again = run(replace(after, players=(me,), discard=("H01",)), rounds.begin_round, FixedRng())
    assert again.discard == ("H01",)  # never a second time


def test_four_player_turn_order_after_the_card_phase() -> None:
    state = replace(fresh(4), start=2, second=3)
    assert rounds.action_order(state.start, state.second, 4) == (2, 3, 0, 1)
    turn = Turn(0)
    assert turn.stage is Stage.ACT
