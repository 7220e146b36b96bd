"""The compiled request encoders give exactly what `wire` gives, in the forms asked for."""

from __future__ import annotations

from datetime import timedelta

import pytest

import engines
from arena.protocol import wire
from arena.referee import encoding, requests
from arena.v1 import bot_pb2
from engines import HashRng
from engines.driver import MatchDriver


def _states(game: str, seeds: int = 2) -> list[tuple[object, object, dict[object, object]]]:
    """(state, decision, the views the driver shows each deciding seat and the public) of every
    decision of a few random matches at the largest seat count."""
    rules = engines.get(game)
    seats = max(rules.seat_counts)
    out = []
    for seed in range(seeds):
        driver = MatchDriver(rules, seats, rules.conformance_options, seed)
        state = driver.state
        number = 0
        while (decision := rules.decision(state)) is not None and number < 400:
            views = {seat: driver.view(seat) for seat in [*sorted(decision.seats), None]}
            out.append((state, decision, views))
            rng = HashRng(seed, f"encoding:{number}")
            joint = {s: rules.legal_actions(state, s).sample(rng) for s in decision.seats}
            state = driver.play(joint).after
            number += 1
    return out


@pytest.mark.parametrize("game", engines.names())
def test_compiled_encoders_equal_the_descriptor_walk(game: str) -> None:
    rules = engines.get(game)
    enc = encoding.encoder(game)
    views = actions = 0
    for state, decision, shown in _states(game):
        for seat in [*sorted(decision.seats), None]:
            view = shown[seat]
            typed = enc.view(view)
            assert typed == wire.view_message(game, view)
            assert typed.SerializeToString(deterministic=True) == wire.view_message(
                game, view
            ).SerializeToString(deterministic=True)
            views += 1
        for seat in decision.seats:
            for action in rules.legal_actions(state, seat).listing() or []:
                dumped = rules.dump_action(action)
                text, message = enc.action(action, rules.dump_action)
                assert text == wire.compact(dumped)
                assert message == wire.action_message(game, dumped)
                actions += 1
    assert views > 50 and actions > 50


def test_a_value_that_does_not_fit_raises_the_descriptor_walks_error() -> None:
    enc = encoding.encoder("hart")
    with pytest.raises(wire.WireError, match="no field 'surprise'"):
        enc.view({"surprise": 1})
    with pytest.raises(wire.WireError, match="not a HartGood"):
        enc.action_message({"type": "pack", "goods": ["gold"]})
    with pytest.raises(wire.WireError, match="no action type"):
        enc.action_message({"type": "teleport"})


@pytest.mark.parametrize(
    ("form", "typed", "texts"),
    [
        (bot_pb2.PAYLOAD_FORM_UNSPECIFIED, True, True),
        (bot_pb2.PAYLOAD_FORM_BOTH, True, True),
        (bot_pb2.PAYLOAD_FORM_TYPED, True, False),
        (bot_pb2.PAYLOAD_FORM_JSON, False, True),
    ],
)
def test_a_request_carries_the_forms_asked_for(form: int, typed: bool, texts: bool) -> None:
    rules = engines.get("hart")
    for state, decision, views in _states("hart", seeds=1)[:60]:
        seat = min(decision.seats)
        view = views[seat]
        space = rules.legal_actions(state, seat)
        request, listing = requests.decision_request(
            7,
            rules,
            view,
            decision,
            seat,
            timedelta(seconds=1),
            timedelta(0),
            form=form,
            space=space,
        )
        dumped = [rules.dump_action(a) for a in listing]
        assert listing == list(rules.legal_actions(state, seat).listing() or [])
        assert request.default_json == wire.compact(
            rules.dump_action(rules.legal_actions(state, seat).default())
        )
        assert request.view_json == (wire.compact(view) if texts else "")
        assert list(request.legal_json) == ([wire.compact(d) for d in dumped] if texts else [])
        assert request.HasField("view") == typed
        if typed:
            assert request.view == wire.view_message("hart", view)
            assert list(request.legal) == [wire.action_message("hart", d) for d in dumped]
        else:
            assert len(request.legal) == 0


@pytest.mark.parametrize("game", engines.names())
def test_a_cached_listing_is_the_listing_of_its_own_space(game: str) -> None:
    # Twice over the same decisions: the second pass reads every listing from the cache that
    # the first filled (spaces are kept by identity), and must list exactly the same actions.
    rules = engines.get(game)
    samples = _states(game, seeds=1)[:80]
    for _ in range(2):
        for state, decision, views in samples:
            for seat in sorted(decision.seats):
                space = rules.legal_actions(state, seat)
                request, listing = requests.decision_request(
                    7,
                    rules,
                    views[seat],
                    decision,
                    seat,
                    timedelta(seconds=1),
                    timedelta(0),
                    form=bot_pb2.PAYLOAD_FORM_JSON,
                    space=space,
                )
                expected = list(space.listing() or [])
                assert listing == expected
                assert list(request.legal_json) == [
                    wire.compact(rules.dump_action(a)) for a in expected
                ]
