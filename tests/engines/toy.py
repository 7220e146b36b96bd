"""A toy game for testing the contract and the conformance suite: "high card".

Each seat is dealt 3 of 12 cards. Three tricks: all seats play a card at once (simultaneous); the
highest card scores a point. Then seat 0 alone says whether to double the last trick.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from engines import (
    Decision,
    InvalidAction,
    Json,
    ListedSpace,
    Outcome,
    Rng,
    Rules,
    Seat,
    Transition,
)


@dataclass(frozen=True, slots=True)
class ToyState:
    number: int
    hands: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    points: tuple[int, ...]
    tricks: int
    doubled: bool | None


class HighCard(Rules[ToyState, int, dict[str, Json]]):
    name = "toy"
    title = "High card"
    version = 1
    seat_counts = (2, 3)

    def start(self, seats: int, options: Mapping[str, object], rng: Rng) -> Transition[ToyState]:
        deck = rng.shuffle(range(1, 13))
        hands = tuple(tuple(sorted(deck[3 * i : 3 * i + 3])) for i in range(seats))
        return Transition(ToyState(0, hands, deck[3 * seats :], (0,) * seats, 0, None))

    def decision(self, state: ToyState) -> Decision | None:
        if state.tricks < 3:
            return Decision(state.number, frozenset(range(len(state.hands))), "play")
        if state.doubled is None:
            return Decision(state.number, frozenset({0}), "double")
        return None

    def legal_actions(self, state: ToyState, seat: Seat) -> ListedSpace[int]:
        if state.tricks < 3:
            return ListedSpace(state.hands[seat])
        return ListedSpace((0, 1))

    def step(
        self, state: ToyState, decision: Decision, actions: Mapping[Seat, int], rng: Rng
    ) -> Transition[ToyState]:
        if state.tricks < 3:
            best = max(actions.values())
            points = tuple(p + (actions[s] == best) for s, p in enumerate(state.points))
            hands = tuple(tuple(c for c in h if c != actions[s]) for s, h in enumerate(state.hands))
            after = replace(
                state, number=state.number + 1, hands=hands, points=points, tricks=state.tricks + 1
            )
            return Transition(after)
        return Transition(replace(state, number=state.number + 1, doubled=bool(actions[0])))

    def observe(self, state: ToyState, viewer: Seat | None) -> dict[str, Json]:
        view: dict[str, Json] = {"points": list(state.points), "tricks": state.tricks}
        if viewer is not None:
            view["hand"] = list(state.hands[viewer])
        return view

    def outcome(self, state: ToyState) -> Outcome | None:
        if self.decision(state) is not None:
            return None
        return Outcome.from_keys(state.points, state.points)

    def scramble(self, state: ToyState, viewer: Seat | None, rng: Rng) -> ToyState:
        hidden = [c for s, h in enumerate(state.hands) if s != viewer for c in h] + list(state.deck)
        hidden = list(rng.shuffle(hidden))
        hands = []
        for s, h in enumerate(state.hands):
            if s == viewer:
                hands.append(h)
            else:
                hands.append(tuple(sorted(hidden[: len(h)])))
                hidden = hidden[len(h) :]
        return replace(state, hands=tuple(hands), deck=tuple(hidden))

    def parse_action(self, seat: Seat, wire: object) -> int:
        if not isinstance(wire, int) or isinstance(wire, bool):
            raise InvalidAction(f"an action is an integer card, not {wire!r}", seat=seat)
        return wire

    def dump_action(self, action: int) -> Json:
        return action

    def dump_observation(self, observation: Any) -> Json:
        return dict(observation)


class LeakyHighCard(HighCard):
    """Shows every hand to everyone: the no-leak check must catch it."""

    def observe(self, state: ToyState, viewer: Seat | None) -> dict[str, Json]:
        view = super().observe(state, viewer)
        view["all_hands"] = [list(h) for h in state.hands]
        return view
