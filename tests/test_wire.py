"""The typed per-game protos carry exactly the engines' JSON: views and actions round-trip."""

from __future__ import annotations

import pytest

import engines
from arena.protocol import wire
from engines import HashRng
from engines.driver import MatchDriver


def _seat_counts(game: str) -> list[int]:
    rules = engines.get(game)
    return [min(rules.seat_counts), max(rules.seat_counts)]


@pytest.mark.parametrize("game", engines.names())
def test_views_and_actions_round_trip_through_the_typed_protos(game: str) -> None:
    rules = engines.get(game)
    checked_views = checked_actions = 0
    for seats in _seat_counts(game):
        for seed in range(3):
            # The game's short-cap options: full-length random Crossing games add nothing here.
            driver = MatchDriver(rules, seats, dict(rules.conformance_options), seed)
            state = driver.state
            number = 0
            while True:
                for viewer in [*range(seats), None]:
                    view = driver.view(viewer)  # what a seat is sent, events included
                    back = wire.view_json(wire.view_message(game, view))
                    assert wire.normalized(back) == wire.normalized(view)
                    checked_views += 1
                decision = rules.decision(state)
                if decision is None:
                    break
                rng = HashRng(seed, f"wire:{number}")
                joint = {s: rules.legal_actions(state, s).sample(rng) for s in decision.seats}
                for seat, action in joint.items():
                    dumped = rules.dump_action(action)
                    kind, back = wire.action_json(wire.action_message(game, dumped))
                    assert kind == game and rules.parse_action(seat, back) == action
                    checked_actions += 1
                state = driver.play(joint).after
                number += 1
    assert checked_views > 100 and checked_actions > 50


def test_a_key_the_proto_does_not_know_is_an_error() -> None:
    game = engines.names()[0]
    with pytest.raises(wire.WireError, match="no field 'surprise'"):
        wire.view_message(game, {"surprise": 1})
    with pytest.raises(wire.WireError, match="no action type"):
        wire.action_message(game, {"type": "teleport"})
