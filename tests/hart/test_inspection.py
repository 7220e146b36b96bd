"""Inspections, bribes, extra control and seizure: worked examples 1, 5, 6 and edge cases 1-7."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engines import Event, IllegalAction
from engines.hart.actions import Accept, Inspect, Offer, Open, Pass, Seize
from engines.hart.state import Bag, Phase
from tests.hart.build import (
    RULES,
    C,
    J,
    M,
    S,
    T,
    X,
    act,
    at_pack,
    pack_and_declare,
    solo,
    solo_played,
)

SEATS = 4
SHERIFF = 0
TRADER = 1


def inspected(
    suitcase: list, declared: tuple, money: int = 30, seats: int = SEATS, **options: object
):
    """Seat 1 packs `suitcase`, declares `declared`, and the sheriff (seat 0) inspects it."""
    hand = suitcase + [J] * (5 - len(suitcase))
    state = at_pack(seats, SHERIFF, {TRADER: hand}, {TRADER: money}, options)
    state = pack_and_declare(state, {TRADER: suitcase}, {TRADER: declared})
    assert state.phase is Phase.INSPECT
    return solo(state, Inspect(TRADER))


def opened(suitcase: list, declared: tuple, money: int = 30, **options: object):
    """Inspect seat 1 and let it open at once: (state before opening, state after, its events)."""
    state = inspected(suitcase, declared, money, **options)
    assert state.phase is Phase.BRIBE
    step = solo_played(state, Open())
    return state, step.state, step.events


def open_event(events: Sequence[Event]) -> dict:
    (event,) = [dict(e.data) for e in events if e.kind == "open"]
    return event


def test_honest_exact_bag_is_compensated() -> None:  # edge case 1
    _, after, events = opened([J, J, J], (3, J))
    assert after.players[TRADER].money == 33
    assert after.players[TRADER].behind == Bag.of([J, J, J])
    event = open_event(events)
    assert event["compensation"] == 3 and event["penalty_paid"] == 0 and event["discarded"] == []


def test_over_count_pays_for_the_excess_card() -> None:  # edge case 2, the rulebook's hint
    before, after, _ = opened([J, J, J, J], (3, J))
    trader = after.players[TRADER]
    assert trader.money == 29
    assert trader.behind == Bag.of([J, J, J])
    assert after.discard == before.discard + Bag.of([J])


@pytest.mark.parametrize(("strict", "money"), [(False, 32), (True, 30)])
def test_under_count(strict: bool, money: int) -> None:  # edge case 3, H2 and its option
    _, after, _ = opened([J, J], (3, J), strict_count=strict)
    assert after.players[TRADER].money == money
    assert after.players[TRADER].behind == Bag.of([J, J])


def test_mixed_legal_bag_pays_for_the_undeclared_kind() -> None:  # H3
    _, after, _ = opened([J, J, M], (3, J))
    assert after.players[TRADER].money == 28
    assert after.players[TRADER].behind == Bag.of([J, J])


def test_worked_example_1_no_agreement() -> None:  # "3 sombreros" = 1 sombrero + 2 cigars
    state = inspected([S, C, C], (3, S))
    state = solo(state, Offer(3))
    state = solo(state, Offer(8))  # the sheriff demands 8
    state = solo(state, Offer(6))  # the trader counters 6
    before = state
    step = solo_played(state, Open())  # the sheriff refuses: open up
    after = step.state
    trader = after.players[TRADER]
    assert trader.money == 20  # pays 10 to the bank
    assert trader.behind == Bag.of([S])  # keeps the sombrero
    assert after.discard == before.discard + Bag.of([C, C])
    assert after.players[SHERIFF].money == 30  # the penalty goes to the bank, not the sheriff
    event = open_event(step.events)
    assert event["penalty_due"] == 10 and event["compensation"] == 0


def test_worked_example_1_agreement_keeps_the_suitcase_shut() -> None:
    state = inspected([S, C, C], (3, S))
    for amount in (3, 8, 6):
        state = solo(state, Offer(amount))
    step = solo_played(state, Accept())  # the sheriff accepts 6
    after = step.state
    assert after.players[TRADER].money == 24
    assert after.players[SHERIFF].money == 36
    kinds = [e.kind for e in step.events]
    assert "bribe" in kinds and "open" not in kinds


def test_worked_example_5_bribe_of_15_for_4_jugs() -> None:
    state = inspected([T, T, T, T], (4, J))
    state = solo(state, Offer(10))
    state = solo(state, Offer(15))  # the sheriff demands 15
    step = solo_played(state, Accept())  # the trader pays willingly
    state = step.state
    assert state.players[SHERIFF].money == 45
    assert state.players[TRADER].money == 15
    assert "open" not in [e.kind for e in step.events]
    # the suitcase is never shown: no one but the trader sees tequila in any event or view
    while state.phase is not Phase.PACK:
        state = solo(state, RULES.legal_actions(state, state.sheriff).default())
    assert state.players[TRADER].behind.count(T) == 4
    for viewer in (None, 0, 2, 3):
        assert "tequila" not in str(RULES.dump_observation(RULES.observe(state, viewer))["me"])


def test_worked_example_6_seizure_takes_the_statue() -> None:
    state = at_pack(4, SHERIFF, {TRADER: [X, J, J, J, J]})
    state = pack_and_declare(state, {TRADER: [X]}, {TRADER: (1, S)})
    state = solo(state, Pass())  # no normal inspection (H7: the seizure is still allowed)
    assert state.phase is Phase.SEIZE
    step = solo_played(state, Seize(TRADER))
    state = step.state
    assert state.players[SHERIFF].behind.count(X) == 1
    assert state.players[TRADER].behind == Bag()
    assert not state.players[SHERIFF].seizure_token
    assert state.players[TRADER].money == 30 and state.players[SHERIFF].money == 30
    private = [e for e in step.events if e.kind == "seized"]
    assert private and private[0].audience == frozenset({SHERIFF, TRADER})
    public = [dict(e.data) for e in step.events if e.kind == "seize"]
    assert public == [{"sheriff": 0, "seat": 1, "taken_count": 1, "returned_count": 0}]


def test_seizure_returns_matching_cards_without_compensation() -> None:
    state = at_pack(4, SHERIFF, {TRADER: [J, J, C, M, M]})
    state = pack_and_declare(state, {TRADER: [J, J, C]}, {TRADER: (3, J)})
    state = solo(state, Pass())
    state = solo(state, Seize(TRADER))
    assert state.players[TRADER].behind == Bag.of([J, J])
    assert state.players[TRADER].money == 30
    assert state.players[SHERIFF].behind == Bag.of([C])


def test_honest_seizure_pays_nothing() -> None:
    state = at_pack(4, SHERIFF, {TRADER: [J, J, J, M, M]})
    state = pack_and_declare(state, {TRADER: [J, J, J]}, {TRADER: (3, J)})
    state = solo(state, Pass())
    state = solo(state, Seize(TRADER))
    assert state.players[TRADER].money == 30  # no compensation for a seizure
    assert state.players[TRADER].behind == Bag.of([J, J, J])


def test_a_bribe_above_cash_is_illegal() -> None:  # edge case 5
    state = inspected([C], (1, J), money=7)
    space = RULES.legal_actions(state, TRADER)
    assert Offer(7) in space and Offer(8) not in space and Offer(0) not in space
    with pytest.raises(IllegalAction):
        solo(state, Offer(8))
    state = solo(state, Offer(2))
    assert Offer(8) not in RULES.legal_actions(state, SHERIFF)  # a demand cannot exceed cash


def test_rejected_bribe_forces_the_opening() -> None:  # edge case 5, H6
    state = inspected([C], (1, J))
    state = solo(state, Offer(4))
    after = solo(state, Open())
    assert after.phase is not Phase.BRIBE
    assert after.players[TRADER].money == 25 and after.players[SHERIFF].money == 30


def test_negotiation_allows_three_offers_per_side() -> None:
    state = inspected([C], (1, J))
    for amount in (1, 20, 2, 19, 3, 18):
        state = solo(state, Offer(amount))
    space = RULES.legal_actions(state, TRADER)
    assert space.listing() == (Open(), Accept())  # the trader's offers are used up
    state = solo(state, Accept())
    assert state.players[TRADER].money == 12


@pytest.mark.parametrize("max_offers", [1, 2])
def test_max_offers_option(max_offers: int) -> None:
    state = inspected([C], (1, J), max_offers=max_offers)
    state = solo(state, Offer(5))
    for _ in range(max_offers - 1):
        state = solo(state, Offer(9))
        state = solo(state, Offer(6))
    sheriff_space = RULES.legal_actions(state, SHERIFF)
    assert Offer(10) in sheriff_space  # the sheriff still has offers
    state = solo(state, Offer(10))
    assert RULES.legal_actions(state, TRADER).listing() == (Open(), Accept())


def test_counter_offers_must_beat_accepting() -> None:
    state = inspected([C], (1, J))
    state = solo(state, Offer(10))
    sheriff = RULES.legal_actions(state, SHERIFF)
    assert Offer(10) not in sheriff and Offer(11) in sheriff
    state = solo(state, Offer(14))
    trader = RULES.legal_actions(state, TRADER)
    assert Offer(14) not in trader and Offer(13) in trader and Offer(1) in trader


def test_honest_trader_may_bribe_too() -> None:  # H5: an offer must not reveal honesty
    state = inspected([J, J], (2, J))
    assert Offer(1) in RULES.legal_actions(state, TRADER)


def test_insolvent_trader_pays_what_it_has() -> None:  # edge case 6, H4
    _, after, _ = opened([X, C], (2, J), money=4)  # penalty 8 + 5 = 13
    assert after.players[TRADER].money == 0
    assert after.discard.count(X) >= 1 and after.discard.count(C) >= 1


def test_trader_without_money_opens_at_once() -> None:
    state = inspected([C], (1, J), money=0)
    assert state.phase is not Phase.BRIBE
    assert state.players[TRADER].money == 0 and state.players[TRADER].behind == Bag()


def test_no_extra_control_below_five_seats() -> None:  # edge case 7
    state = at_pack(4, SHERIFF)
    assert not any(p.extra_control_token for p in state.players)
    state = pack_and_declare(state, {}, {})
    state = solo(state, Inspect(1))
    state = solo(state, Open())
    assert state.phase is Phase.SEIZE


def five_seat_turn(sheriff: int = 0):
    state = at_pack(5, sheriff)
    assert all(p.extra_control_token for p in state.players)
    return pack_and_declare(state, {}, {})


def test_extra_control_excludes_the_inspected_seat_and_is_spent() -> None:  # edge case 7
    state = five_seat_turn()
    state = solo(state, Inspect(1))
    state = solo(state, Offer(3))
    state = solo(state, Accept())
    assert state.phase is Phase.EXTRA_CONTROL
    space = RULES.legal_actions(state, SHERIFF)
    assert Inspect(1) not in space and Inspect(2) in space
    state = solo(state, Inspect(2))
    assert not state.players[SHERIFF].extra_control_token
    state = solo(state, Open())
    assert state.phase is Phase.SEIZE
    seizable = RULES.legal_actions(state, SHERIFF)
    assert Seize(1) not in seizable and Seize(2) not in seizable  # bribed and opened
    assert Seize(3) in seizable and Seize(4) in seizable
    state = solo(state, Seize(3))
    assert not state.players[SHERIFF].seizure_token
    assert state.phase is Phase.PACK and state.sheriff == 1  # no bribe step for a seizure


def test_extra_control_after_declined_inspection() -> None:  # H7
    state = five_seat_turn()
    state = solo(state, Pass())
    assert state.phase is Phase.EXTRA_CONTROL
    assert Inspect(1) in RULES.legal_actions(state, SHERIFF)


def test_tokens_are_once_per_game() -> None:  # edge case 7
    state = five_seat_turn(sheriff=0)
    state = solo(state, Pass())
    state = solo(state, Inspect(1))
    state = solo(state, Open())
    state = solo(state, Seize(2))
    while not (state.phase is Phase.INSPECT and state.sheriff == 0):
        decision = RULES.decision(state)
        assert decision is not None
        state = act(state, {s: RULES.legal_actions(state, s).default() for s in decision.seats})
    assert state.round == 1  # sheriff 0 again, in round 2
    state = solo(state, Pass())
    assert (state.phase, state.sheriff) == (Phase.PACK, 1)  # neither token is offered again


def test_large_bribe_ranges_are_described_not_listed() -> None:
    state = inspected([C], (1, J), money=400)
    space = RULES.legal_actions(state, TRADER)
    assert space.listing() is None
    assert space.describe() == {
        "kind": "mixed",
        "actions": [{"type": "open"}],
        "ranges": [
            {"template": {"type": "offer", "amount": 1}, "field": "amount", "min": 1, "max": 400}
        ],
    }
    assert Offer(400) in space and Offer(401) not in space
    assert space.default() == Open()
