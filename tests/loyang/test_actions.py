"""The action phase: research-notes 1.3 edge cases 8-18, the Path and casual-customer cases."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engines import IllegalAction, InvalidAction
from engines.loyang import board, rounds
from engines.loyang.state import (
    DUMMY,
    Casual,
    Dummy,
    Helper,
    Phase,
    Regular,
    Stage,
    Stall,
)
from tests.loyang.support import (
    RULES,
    FixedRng,
    act,
    acting,
    blank,
    crops,
    field,
    is_legal,
    legal,
    run,
)


def test_a_pair_with_two_common_fields_costs_four_plus_the_pair_price() -> None:
    me = blank(cash=10, stalls=(Stall("MS01", crops(pumpkin=1)),))
    state = acting([me, blank()], deck=("CF01", "CF02", "H01"))
    state = act(state, 0, {"type": "buy_pair"})
    assert state.players[0].cash == 9 and state.turns[0].drawn == ("CF01", "CF02")
    state = act(state, 0, {"type": "keep", "cards": ["CF02", "CF01"]})
    me = state.players[0]
    assert me.cash == 5
    assert [(f.id, f.under) for f in me.fields if f.common] == [("CF02", "CF01")]


def test_keeping_fields_beyond_the_cash_makes_money_due_with_nothing_to_sell_a_loan() -> None:
    me = blank(cash=4, stalls=(Stall("MS01", crops(pumpkin=1)),))
    state = act(acting([me, blank()], deck=("CF01", "CF02")), 0, {"type": "buy_pair"})
    options = legal(state, 0)
    assert {"type": "keep", "cards": ["CF01", "CF02"]} in options
    assert {"type": "loan"} not in options
    state = act(state, 0, {"type": "keep", "cards": ["CF01", "CF02"]})
    me = state.players[0]  # 3 coins for 4 due, nothing to sell: the loan is taken at once
    assert (me.cash, me.loans, me.due) == (3 + 5 - 4, 1, 0)


def test_loans_only_when_money_is_due_unless_voluntary_loans_is_on() -> None:
    state = acting([blank(cash=0), blank()])
    assert {"type": "loan"} not in legal(state, 0)
    state = replace(state, config=replace(state.config, voluntary_loans=True))
    assert {"type": "loan"} in legal(state, 0)
    state = act(state, 0, {"type": "loan"})
    assert (state.players[0].cash, state.players[0].loans) == (5, 1)


def test_the_pair_price_counts_uncovered_stalls_and_helpers_and_once_a_round() -> None:
    assert board.pair_price(blank()) == 0
    me = blank(
        cash=3,
        stalls=(Stall("MS01", crops(pumpkin=1), under="MS02"), Stall("MS03", crops(wheat=1))),
        helpers=(Helper("H01"),),
    )
    assert board.pair_price(me) == 2  # MS02 is covered and does not count
    state = acting([me, blank()], deck=("H02", "H03", "H04"))
    state = act(state, 0, {"type": "buy_pair"})
    state = act(state, 0, {"type": "keep", "cards": []})
    assert state.players[0].cash == 1 and state.discard[-2:] == ("H02", "H03")
    assert {"type": "buy_pair"} not in legal(state, 0)
    with pytest.raises(IllegalAction):
        act(state, 0, {"type": "buy_pair"})
    free = act(acting([blank(cash=0), blank()], deck=("H02", "H03")), 0, {"type": "buy_pair"})
    assert free.turns[0].stage is Stage.KEEP and free.players[0].cash == 0


def test_market_stall_trades_two_for_one_retrades_and_empties() -> None:
    stall = Stall("MS01", crops(pumpkin=1, bean=1, leek=1), under="H01")  # costs 1 / 2 / 2
    me = blank(cart=crops(wheat=3), stalls=(stall,))
    state = acting([me, blank()])
    assert not is_legal(
        state, 0, {"type": "trade", "stall": "MS01", "crop": "bean", "give": ["wheat"]}
    )
    state = act(
        state, 0, {"type": "trade", "stall": "MS01", "crop": "bean", "give": ["wheat", "wheat"]}
    )
    assert state.players[0].cart == crops(wheat=1, bean=1)
    state = act(
        state, 0, {"type": "trade", "stall": "MS01", "crop": "leek", "give": ["bean", "wheat"]}
    )
    assert state.players[0].cart == crops(leek=1)  # the bean just taken was traded on at once
    state = act(state, 0, {"type": "trade", "stall": "MS01", "crop": "pumpkin", "give": ["leek"]})
    me = state.players[0]
    assert me.stalls == () and state.discard[-1] == "MS01"
    assert [h.card for h in me.helpers] == ["H01"]  # the card behind comes forward


def _regular_state(rows: int = 0, good: bool = True, start: int = 2, cart: object = None) -> object:
    regular = Regular("RC01", start=start, rows=rows, good=good)  # bean + leek, 7/8/9/10
    me = blank(cash=5, cart=cart or crops(bean=2, leek=2), regulars=(regular,))
    return acting([me, blank()], round_=2)


def test_a_regular_customer_takes_both_crops_at_once() -> None:
    state = _regular_state(cart=crops(bean=1))
    assert {"type": "deliver", "customer": "RC01"} not in legal(state, 0)
    state = _regular_state()
    state = act(state, 0, {"type": "deliver", "customer": "RC01"})  # type: ignore[arg-type]
    me = state.players[0]
    assert me.cash == 5 + 7 and me.cart == crops(bean=1, leek=1) and me.regulars[0].rows == 1


def test_a_double_delivery_is_allowed_once_per_round() -> None:
    state = _regular_state(cart=crops(bean=3, leek=3))
    state = act(state, 0, {"type": "deliver", "customer": "RC01"})  # type: ignore[arg-type]
    state = act(state, 0, {"type": "deliver", "customer": "RC01"})
    assert state.players[0].cash == 5 + 7 + 8
    assert {"type": "deliver", "customer": "RC01"} not in legal(state, 0)


def test_missed_deliveries_flip_the_marker_then_cost_two() -> None:
    state = _regular_state()
    state = act(state, 0, {"type": "end_turn"})  # type: ignore[arg-type]
    me = state.players[0]
    assert not me.regulars[0].good and me.cash == 5
    state = _regular_state(good=False, start=1)
    state = act(state, 0, {"type": "end_turn"})  # type: ignore[arg-type]
    assert state.players[0].cash == 3 and not state.players[0].regulars[0].good


def test_a_double_delivery_covers_the_next_round() -> None:
    state = _regular_state(rows=2, start=1)  # round 2 of its window, already 2 rows
    state = act(state, 0, {"type": "end_turn"})  # type: ignore[arg-type]
    assert state.players[0].regulars[0].good and state.players[0].cash == 5


def test_the_fourth_row_completes_and_discards_the_customer() -> None:
    regular = Regular("RC01", start=1, rows=3, under="CC01")
    me = blank(cash=0, cart=crops(bean=1, leek=1), regulars=(regular,))
    state = act(acting([me, blank()], round_=4), 0, {"type": "deliver", "customer": "RC01"})
    me = state.players[0]
    assert me.cash == 10 and me.regulars == () and state.discard[-1] == "RC01"
    assert [c.card for c in me.casuals] == ["CC01"]


def test_the_window_ends_after_four_rounds_even_when_unfinished() -> None:
    regular = Regular("RC01", start=1, rows=2, good=False)
    state = act(
        acting([blank(cash=5, regulars=(regular,)), blank()], round_=4), 0, {"type": "end_turn"}
    )
    me = state.players[0]
    assert me.regulars == () and me.cash == 3 and state.discard[-1] == "RC01"


@pytest.mark.parametrize(
    ("casuals", "regulars", "expected"),
    [(1, 1, 10), (2, 1, 8), (1, 2, 12), (1, 0, 8), (3, 3, 10)],
)
def test_casual_customer_modifier(casuals: int, regulars: int, expected: int) -> None:
    others = ("CC02", "CC03", "CC04")[: casuals - 1]
    me = blank(
        cash=0,
        cart=crops(pumpkin=1, turnip=1, leek=1),
        casuals=tuple(Casual(c) for c in ("CC01", *others)),  # CC01: pumpkin/turnip/leek, 10
        regulars=tuple(Regular(r, start=9) for r in ("RC02", "RC03", "RC04")[:regulars]),
    )
    state = act(acting([me, blank()]), 0, {"type": "serve", "customer": "CC01"})
    assert state.players[0].cash == expected
    assert state.players[0].cart == crops()


def test_a_casual_customer_needs_its_own_three_crops_and_one_at_a_time() -> None:
    me = blank(cart=crops(pumpkin=1, turnip=1, wheat=1), casuals=(Casual("CC01"), Casual("CC02")))
    state = acting([me, blank()])
    assert not is_legal(state, 0, {"type": "serve", "customer": "CC01"})
    with pytest.raises(InvalidAction, match="card id"):
        RULES.parse_action(0, {"type": "serve", "customer": ["CC01", "CC02"]})


def test_path_cost_from_seven_is_one_then_nine() -> None:
    assert board.path_cost(7, 1) == 1
    assert board.path_cost(7, 2) == 1 + 9
    assert board.path_cost(7, 3) == 1 + 9 + 10
    me = blank(cash=10, position=7)
    state = act(acting([me, blank()], round_=3), 0, {"type": "end_turn"})
    assert state.turns[0].stage is Stage.SCORE
    assert legal(state, 0) == [
        {"type": "finish_scoring"},
        {"type": "advance", "steps": 1},
        {"type": "advance", "steps": 2},
    ]
    state = act(state, 0, {"type": "advance", "steps": 2})
    assert (state.players[0].position, state.players[0].cash) == (9, 0)
    assert [t.seat for t in state.turns] == [1]


def _over(*players: object) -> object:
    return replace(acting(list(players)), phase=Phase.OVER, turns=(), groups=())  # type: ignore[arg-type]


def test_loans_move_back_at_the_end_but_never_below_one() -> None:
    result = RULES.outcome(_over(blank(position=9, loans=3), blank(position=2, loans=3)))  # type: ignore[arg-type]
    assert result is not None and result.scores == (6.0, 1.0) and result.ranks == (1, 2)


def test_ties_break_on_cash_then_crops_then_share() -> None:
    a = blank(position=5, cash=3, cart=crops(wheat=1))
    b = blank(position=5, cash=3, fields=(field("home", "wheat", 2),))
    c = blank(position=5, cash=4)
    d = blank(position=5, cash=3, store=crops(leek=2), shop=crops(leek=9))
    result = RULES.outcome(_over(a, b, c, d))  # type: ignore[arg-type]
    assert result is not None and result.ranks == (4, 2, 1, 2)


def test_a_player_who_has_scored_cannot_use_money_paid_to_them_later() -> None:
    woman = Helper("H04")  # Market woman (provisional): take a stall crop, pay its owner 2
    seat0 = blank(cash=0, stalls=(Stall("MS02", crops(wheat=1, pumpkin=1, turnip=1)),))
    state = acting([seat0, blank(cash=5, helpers=(woman,))], seat=0)
    state = act(state, 0, {"type": "end_turn"})
    assert [t.seat for t in state.turns] == [1] and 0 in state.acted
    wire = {"type": "use_helper", "card": "H04", "target": 0, "stall": "MS02", "crop": "turnip"}
    state = act(state, 1, wire)
    assert state.players[0].cash == 2 and state.players[1].cart == crops(turnip=1)
    state = act(state, 1, {"type": "end_turn"})
    while state.round == 2:  # seat 1 stores and scores; seat 0 is asked nothing more
        decision = RULES.decision(state)
        assert decision is not None and decision.seats == {1}
        state = RULES.apply(state, {1: RULES.legal_actions(state, 1).default()}, FixedRng())
    assert state.players[0].position == 1


def test_paired_lantern_helpers_reach_only_the_opponent() -> None:
    stall = (Stall("MS02", crops(wheat=1, pumpkin=1, turnip=1)),)
    players = [blank(cash=5, helpers=(Helper("H04"),))] + [blank(stalls=stall) for _ in range(3)]
    state = acting(players, seat=0, seats_after=[], partners=(2, 3, 0, 1))
    targets = {a["target"] for a in legal(state, 0) if a["type"] == "use_helper"}
    assert targets == {2}
    open_state = acting(players, seat=0)
    targets = {a["target"] for a in legal(open_state, 0) if a["type"] == "use_helper"}
    assert targets == {1, 2, 3}


def test_paired_start_players_act_at_the_same_time() -> None:
    state = run(replace(acting([blank()] * 4), start=1, second=3), rounds.pick_opponent, _pick(2))
    state = run(state, rounds.advance, FixedRng())
    decision = RULES.decision(state)
    assert decision is not None and decision.seats == {1, 3}
    assert state.partners == (3, 2, 1, 0)
    state = RULES.apply(state, {1: _end(), 3: _end()}, FixedRng())
    decision = RULES.decision(state)
    assert decision is not None and decision.seats == {1, 3} and decision.label == "score"
    stay = RULES.parse_action(0, {"type": "finish_scoring"})
    state = RULES.apply(state, {1: stay, 3: stay}, FixedRng())
    assert RULES.decision(state).seats == {0, 2}  # type: ignore[union-attr]


def _pick(seat: int) -> object:
    return RULES.parse_action(0, {"type": "pick_opponent", "seat": seat})


def _end() -> object:
    return RULES.parse_action(0, {"type": "end_turn"})


def test_solo_lantern_helpers_target_the_imaginary_opponent() -> None:
    dummy = Dummy(
        stalls=(Stall("MS02", crops(wheat=1, pumpkin=1, turnip=1)),),
        regulars=(Regular("RC02", start=1),),
        casuals=(Casual("CC03"),),
    )
    helpers = tuple(Helper(h) for h in ("H04", "H05", "H06", "H07"))
    me = blank(cash=5, cart=crops(wheat=3, pumpkin=2, turnip=1), helpers=helpers)
    state = acting([me], seat=0, seats_after=[], dummy=dummy)
    state = replace(state, config=replace(state.config, solo=True, seats=1))
    uses = [a for a in legal(state, 0) if a["type"] == "use_helper"]
    assert {a["target"] for a in uses} == {DUMMY}
    assert {a["card"] for a in uses} == {"H04", "H05", "H06", "H07"}
    state = act(state, 0, {"type": "use_helper", "card": "H07", "target": -1, "customer": "CC03"})
    assert state.dummy is not None and state.dummy.casuals == ()
    assert state.players[0].cash == 5 + 7  # wheat/pumpkin/turnip pays 7, no modifier
    state = act(state, 0, {"type": "use_helper", "card": "H06", "target": -1, "customer": "RC02"})
    assert state.dummy is not None and state.dummy.regulars[0].rows == 1
    assert state.players[0].cash == 5 + 7 + 2  # wheat/pumpkin bottom row pays 2


def test_the_supply_never_runs_out() -> None:
    fields = tuple(field(f) for f in ("P3a", "P3b", "P4a", "P4b")) + tuple(
        field(f"CF0{i}") for i in range(1, 10)
    )
    me = blank(cash=100, fields=fields, shop=crops())
    state = acting([me, blank()])
    for f in fields:
        state = act(state, 0, {"type": "buy", "crop": "leek"})
        state = act(state, 0, {"type": "sow", "field": f.id, "crop": "leek"})
    leeks = sum(f.count for f in state.players[0].fields if f.crop is not None)
    assert leeks == 3 + 3 + 4 + 4 + 2 + 2 + 3 + 3 + 4 + 4 + 5 + 5 + 6 > 25


def test_shopper_and_haggler_combine_on_one_purchase() -> None:
    me = blank(cash=3, helpers=(Helper("H01"), Helper("H02")))  # -2 and -1 (provisional)
    state = acting([me, blank()])
    assert {"type": "buy", "crop": "bean"} not in legal(state, 0)
    state = act(state, 0, {"type": "use_helper", "card": "H01"})
    state = act(state, 0, {"type": "use_helper", "card": "H02"})
    state = act(state, 0, {"type": "buy", "crop": "bean"})
    assert state.players[0].cash == 0 and state.players[0].cart == crops(bean=1)
    assert state.turns[0].discount == 0 and state.discard[-2:] == ("H01", "H02")


def test_the_saleswoman_adds_two_to_every_casual_customer_this_turn() -> None:
    me = blank(
        cash=0,
        cart=crops(pumpkin=1, turnip=2, leek=1, wheat=1, bean=1),
        helpers=(Helper("H03"),),
        casuals=(Casual("CC01"), Casual("CC02")),
        regulars=(Regular("RC02", start=9), Regular("RC03", start=9)),
    )
    state = act(acting([me, blank()]), 0, {"type": "use_helper", "card": "H03", "bonus": "casual"})
    state = act(state, 0, {"type": "serve", "customer": "CC01"})  # 10, equal counts, +2
    assert state.players[0].cash == 12
    state = act(state, 0, {"type": "serve", "customer": "CC02"})  # 9 +2 (fewer casuals) +2
    assert state.players[0].cash == 12 + 13


def test_an_upgraded_storehouse_keeps_four_crops() -> None:
    me = blank(cash=2, cart=crops(bean=3, leek=2))
    state = act(acting([me, blank()]), 0, {"type": "upgrade"})
    state = act(state, 0, {"type": "end_turn"})
    for crop in ("bean", "bean", "leek", "leek"):
        state = act(state, 0, {"type": "store", "crop": crop})
    me = state.players[0]
    assert me.store == crops(bean=2, leek=2) and me.cart == crops() and me.cash == 2
