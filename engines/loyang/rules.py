"""`LoyangRules`: At the Gates of Loyang on the engine contract (options, decisions, views)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engines.api import (
    Decision,
    Json,
    ListedSpace,
    Option,
    Outcome,
    Rules,
    Seat,
)
from engines.errors import OptionsError
from engines.loyang import cardphase, catalog, flow, turns, view, wire
from engines.loyang.actions import Action, PickOpponent, SetupSow
from engines.loyang.state import Config, LoyangState, Phase, Timing, evolve
from engines.rng import Rng


@dataclass(frozen=True, slots=True)
class LoyangSpace(ListedSpace[Action]):
    """The listed legal steps of one seat; too many to list are still given in `describe`."""

    def describe(self) -> Json:
        return {"kind": "mixed", "actions": [wire.dump(a) for a in self.actions], "ranges": []}


OPTIONS = (
    Option(
        "beginner",
        bool,
        False,
        "beginner variant: each seat starts with a blue-dot regular customer in hand",
    ),
    Option(
        "two_player_rule",
        str,
        "auto",
        "2-player card phase: reveal the deck top instead of playing (auto: on with 2 seats)",
        choices=("auto", "on", "off"),
    ),
    Option(
        "paired",
        bool,
        False,
        "4-player variant: paired action phase, the two start players act at once",
    ),
    Option(
        "solo", bool, False, "solo variant with the 3x4 grid (1 seat only; implied with 1 seat)"
    ),
    Option(
        "scoring_timing",
        str,
        Timing.OWN_TURN.value,
        "when seats store and pay for the Path: end of their own turn, or all at round end (L13)",
        choices=tuple(t.value for t in Timing),
    ),
    Option(
        "shop_stock_mode",
        str,
        "unlimited",
        "unlimited: shop stock is display only; strict: buying needs stock, selling room (L2)",
        choices=("unlimited", "strict"),
    ),
    Option(
        "regular_max_per_round",
        int,
        2,
        "deliveries one regular customer accepts per round (double delivery, L14)",
        minimum=1,
        maximum=4,
    ),
    Option(
        "solo_discard_row",
        int,
        2,
        "solo: the grid row (1 = top) whose leftover cards are discarded each round "
        "(the seed: row 2; research L19 reads row 1)",
        minimum=1,
        maximum=2,
    ),
    Option(
        "voluntary_loans",
        bool,
        False,
        "loans also at any time of your own action turn, not only when money is due (L22)",
    ),
)


def config_from(seats: int, options: Mapping[str, object]) -> Config:
    """Check that the options fit the seat count and build the match `Config`."""
    solo = bool(options["solo"]) or seats == 1
    if solo and seats != 1:
        raise OptionsError("the solo variant is for 1 seat")
    if options["beginner"] and solo:
        raise OptionsError("the beginner variant needs 2-4 seats")
    if options["paired"] and seats != 4:
        raise OptionsError("the paired action phase is a 4-player variant")
    rule = options["two_player_rule"]
    if rule == "on" and seats != 2:
        raise OptionsError("the 2-player card-phase rule needs 2 seats")
    return Config(
        seats=seats,
        solo=solo,
        beginner=bool(options["beginner"]),
        two_player_rule=rule == "on" or (rule == "auto" and seats == 2),
        paired=bool(options["paired"]),
        timing=Timing(options["scoring_timing"]),
        strict_stock=options["shop_stock_mode"] == "strict",
        regular_max=int(options["regular_max_per_round"]),  # type: ignore[call-overload]
        solo_discard_row=int(options["solo_discard_row"]),  # type: ignore[call-overload]
        voluntary_loans=bool(options["voluntary_loans"]),
    )


class LoyangRules(Rules[LoyangState, Action, dict[str, Json]]):
    """At the Gates of Loyang (Uwe Rosenberg, 2008), 1-4 seats, with its variants as options."""

    emits_events = False  # the Loyang package reports no events yet

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

    def setup(self, seats: int, options: Mapping[str, object], rng: Rng) -> LoyangState:
        self.check_seats(seats)
        config = config_from(seats, self.resolve_options(options))
        return flow.advance(flow.setup(config, rng), rng)

    def decision(self, state: LoyangState) -> Decision | None:
        cached = state.memo.get("decision", False)
        if cached is not False:
            return cached  # type: ignore[no-any-return]
        made = self._decision(state)
        state.memo["decision"] = made
        return made

    def _decision(self, state: LoyangState) -> Decision | None:
        phase = state.phase
        if phase is Phase.OVER:
            return None
        if phase is Phase.SETUP:
            return Decision(state.number, frozenset({state.queue[0]}), "setup_sow")
        if phase is Phase.CARD:
            owing = [s for s, p in enumerate(state.players) if p.due]
            if owing:
                return Decision(state.number, frozenset(owing[:1]), "pay")
            if state.config.solo:
                return Decision(state.number, frozenset({0}), "grid")
            return Decision(state.number, frozenset({state.current}), "card")
        if phase is Phase.OPPONENT:
            return Decision(state.number, frozenset({state.start}), "opponent")
        labels = {"pay" if state.players[t.seat].due else t.stage.value for t in state.turns}
        label = labels.pop() if len(labels) == 1 else "action"
        return Decision(state.number, frozenset(t.seat for t in state.turns), label)

    def legal_actions(self, state: LoyangState, seat: Seat) -> LoyangSpace:
        key = ("legal", seat)
        cached = state.memo.get(key)
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        phase = state.phase
        actions: list[Any]
        if phase is Phase.SETUP:
            actions = flow.setup_actions(state, seat)
        elif phase is Phase.CARD:
            actions = cardphase.actions(state, seat)
        elif phase is Phase.OPPONENT:
            actions = flow.opponent_choices(state)
        else:
            actions = turns.actions(state, seat)
        space = LoyangSpace(tuple(actions))
        state.memo[key] = space
        return space

    def _apply(
        self, state: LoyangState, decision: Decision, actions: Mapping[Seat, Action], rng: Rng
    ) -> LoyangState:
        order = [t.seat for t in state.turns if t.seat in actions] or sorted(actions)
        state = evolve(state, number=state.number + 1)
        for seat in order:
            action = actions[seat]
            if state.phase is Phase.SETUP:
                assert isinstance(action, SetupSow)
                state = flow.apply_setup(state, seat, action)
            elif state.phase is Phase.CARD:
                state = self._card(state, seat, action)
            elif state.phase is Phase.OPPONENT:
                assert isinstance(action, PickOpponent)
                state = flow.apply_opponent(state, action)
            else:
                state = turns.apply(state, seat, action, rng)
        return flow.advance(state, rng)

    @staticmethod
    def _card(state: LoyangState, seat: Seat, action: Action) -> LoyangState:
        if state.players[seat].due:
            return turns.apply_pay(state, seat, action)
        return cardphase.apply(state, seat, action)

    def observe(self, state: LoyangState, viewer: Seat | None) -> dict[str, Json]:
        return view.observe(state, viewer)

    def outcome(self, state: LoyangState) -> Outcome | None:
        return flow.outcome(state)

    def scramble(self, state: LoyangState, viewer: Seat | None, rng: Rng) -> LoyangState:
        return view.scramble(state, viewer, rng)

    def parse_action(self, seat: Seat, wire_action: object) -> Action:
        return wire.parse(seat, wire_action)

    def dump_action(self, action: Action) -> Json:
        return wire.dump(action)

    def dump_observation(self, observation: dict[str, Json]) -> Json:
        return observation

    def print_data(self) -> list[str]:
        """The data file's values, each with its sourced / PROVISIONAL mark."""
        return catalog.data_lines()
