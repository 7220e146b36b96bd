"""`LoyangRules`: At the Gates of Loyang on the engine contract, each entry point delegating."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from engines.api import (
    Json,
    ListedSpace,
    Outcome,
    Rules,
    Seat,
    Transition,
)
from engines.frozen import new_listed, new_transition
from engines.loyang import catalog, legal, rounds, setup, view, wire
from engines.loyang.actions import Action
from engines.loyang.options import OPTIONS, config_from
from engines.loyang.state import LoyangState
from engines.rng import Rng


@dataclass(frozen=True, slots=True)
class LoyangSpace(ListedSpace[Action]):
    """The listed legal steps of one seat; too many to list are still given in `describe`."""

    def describe(self) -> Json:
        return {"kind": "mixed", "actions": [wire.dump(a) for a in self.actions], "ranges": []}


class LoyangRules(Rules[LoyangState, Action, dict[str, Json]]):
    """At the Gates of Loyang (Uwe Rosenberg, 2008), 1-4 seats, with its variants as options."""

    name = "loyang"
    title = "At the Gates of Loyang"
    version = 2
    seat_counts = (1, 2, 3, 4)
    options_schema = OPTIONS
    presets: ClassVar[dict[str, dict[str, Json]]] = {
        "beginner": {"beginner": True},
        "two_player_rule": {"two_player_rule": "on"},
        "paired": {"paired": True},
        "solo": {"solo": True},
    }

    def start(self, seats: int, options: Mapping[str, object], rng: Rng) -> Transition[LoyangState]:
        self.check_seats(seats)
        w = setup.setup(config_from(seats, self.resolve_options(options)), rng)
        rounds.advance(w, rng)
        return new_transition(w.freeze(), tuple(w.events))

    # The driver calls these once or more per decision: the rule functions themselves, not a
    # method that delegates to them (one call less each).
    decision = staticmethod(legal.decision)

    def legal_actions(self, state: LoyangState, seat: Seat) -> LoyangSpace:
        return new_listed(LoyangSpace, tuple(legal.actions(state, seat)))

    step = staticmethod(rounds.step)
    """The deciding seats' actions, then every automatic step after them (`rounds.step`)."""

    def observe(self, state: LoyangState, viewer: Seat | None) -> dict[str, Json]:
        return view.observe(state, viewer)

    def outcome(self, state: LoyangState) -> Outcome | None:
        return rounds.outcome(state)

    def scramble(self, state: LoyangState, viewer: Seat | None, rng: Rng) -> LoyangState:
        return view.scramble(state, viewer, rng)

    def parse_action(self, seat: Seat, wire_action: object) -> Action:
        return wire.parse(seat, wire_action)

    dump_action = staticmethod(wire.dump)

    def dump_observation(self, observation: dict[str, Json]) -> Json:
        return observation

    def print_data(self) -> list[str]:
        """The data file's values, each with its sourced / PROVISIONAL mark."""
        return catalog.data_lines()
