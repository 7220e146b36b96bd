"""The match driver: the one loop that plays a match, for every caller.

The referee, `arena play`, the golden tests, `replay` and the conformance suite all drive a match
through a `MatchDriver`. It is pure (no I/O, no clock, no threads) and owns what a match needs
beyond the game's state:

- the open decision and each deciding seat's legal actions, computed once per decision;
- the answers given so far, each checked once, when it is given;
- the events of the match and each seat's cursor (the decision it last answered), so that a
  seat's view shows what happened since it last decided and the public view shows the last
  decision's events;
- the move record, in wire form, from which `Record` and exact replays are made.

Chance comes from the seed: the setup stream and one stream per decision (`HashRng`), so that a
record replays exactly without storing any random draw.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final, Generic

from engines.api import (
    A,
    ActionSpace,
    Decision,
    Event,
    Json,
    Outcome,
    Rules,
    S,
    Seat,
    check_answer,
)
from engines.errors import GameOver, IllegalAction, NotYourDecision
from engines.frozen import setters
from engines.move import Move
from engines.record import Record
from engines.rng import HashRng

_MOVE_SETTERS: Final = setters(Move, "before", "decision", "joint", "after", "events", "wire")
"""One `Move` per decision, built through its slots' setters (cheaper, see `engines.frozen`)."""


class MatchDriver(Generic[S, A]):
    """One match in progress: ask, check, apply, record. Not thread-safe; one owner at a time."""

    def __init__(
        self,
        rules: Rules[S, A, Any],
        seats: int,
        options: Mapping[str, object] | None,
        seed: int,
    ) -> None:
        rules.check_seats(seats)
        self.rules = rules
        self.seats = seats
        self.seed = seed
        self.options: dict[str, Json] = rules.resolve_options(options or {})
        start = rules.start(seats, self.options, HashRng.for_setup(seed))
        self.state: S = start.state
        self.moves: list[Mapping[Seat, Json]] = []
        self._events: list[Event] = list(start.events)
        self._cursors = [-1] * seats
        self._oldest = -1
        """The bound `_events` was last filtered by: none older than it is kept."""
        self._decision: Decision | None = None
        self._spaces: dict[Seat, ActionSpace[A]] = {}
        self._answers: dict[Seat, A] = {}
        self._open()

    # -- what is asked ------------------------------------------------------------------------
    @property
    def decision(self) -> Decision | None:
        """The open decision, or None when the match is over."""
        return self._decision

    @property
    def number(self) -> int:
        """How many decisions have been applied (the number of the next one)."""
        return len(self.moves)

    def space(self, seat: Seat) -> ActionSpace[A]:
        """The legal actions of a deciding `seat` now (computed once per decision)."""
        space = self._spaces.get(seat)
        if space is None:
            if self._decision is None or seat not in self._decision.seats:
                raise NotYourDecision(f"seat {seat} is not deciding now", seat=seat)
            space = self._spaces[seat] = self.rules.legal_actions(self.state, seat)
        return space

    def view(self, viewer: Seat | None) -> dict[str, Json]:
        """What `viewer` may know now in wire form, with the events it has not seen yet.

        A seat sees the events since the decision it last answered (from setup on, before its
        first); the public view (viewer None) sees those of the last decision.
        """
        dumped = self.rules.dump_observation(self.rules.observe(self.state, viewer))
        assert isinstance(dumped, dict), f"{self.rules.name} views must be JSON objects"
        if self.rules.emits_events:
            since = self._cursors[viewer] if viewer is not None else self.number - 1
            dumped["events"] = [
                e.to_json() for e in self._events if e.number >= since and e.is_visible_to(viewer)
            ]
        return dumped

    def pending(self) -> frozenset[Seat]:
        """The deciding seats that have not answered yet."""
        if self._decision is None:
            return frozenset()
        return self._decision.seats.difference(self._answers)

    # -- answers ------------------------------------------------------------------------------
    def check(self, seat: Seat, number: int, action: object) -> None:
        """Raise the right `ActionError` unless `seat` may play `action` at decision `number`."""
        check_answer(self.rules, self._decision, seat, number, action, lambda: self.space(seat))

    def answer(self, seat: Seat, number: int, action: A) -> None:
        """Take `seat`'s answer to decision `number`, checked here and only here."""
        decision = self._decision
        if decision is None or number != decision.number or seat not in decision.seats:
            self.check(seat, number, action)  # raises the error that says what is wrong
        elif action not in self.space(seat):
            self.check(seat, number, action)  # raises IllegalAction, described
        self._answers[seat] = action

    def default(self, seat: Seat) -> A:
        """The action played for `seat` on a timeout or a bad answer."""
        return self.space(seat).default()

    def advance(self) -> Move[S, A]:
        """Apply the open decision once every deciding seat has answered."""
        decision = self._decision
        if decision is None:
            raise GameOver("the match is over")
        answers = self._answers
        if len(answers) < len(decision.seats):  # only deciding seats' answers are taken
            missing = sorted(self.pending())
            raise IllegalAction(
                f"decision {decision.number} needs an action from seat(s) {missing}",
                seat=missing[0],
                decision=decision.number,
            )
        joint = dict(sorted(answers.items())) if len(answers) > 1 else answers
        before = self.state
        number = decision.number
        rules = self.rules
        transition = rules.step(before, decision, joint, HashRng.for_decision(self.seed, number))
        dump = rules.dump_action
        if len(joint) == 1:  # most decisions: no comprehension frame for one seat
            [(seat, action)] = joint.items()
            wire = {seat: dump(action)}
        else:
            wire = {seat: dump(action) for seat, action in joint.items()}
        after = self.state = transition.state
        self.moves.append(wire)
        cursors = self._cursors
        for seat in decision.seats:
            cursors[seat] = number
        # Drop the events nobody may still be shown: older than every seat's since-cursor and
        # the public view's (no cursor is past `number`: the deciding seats' now equal it). Only
        # a raised bound can drop any, and events arrive in decision order, so the dropped ones
        # are a prefix: each event is looked at once on its way out, not at every raise. (Were
        # one out of order, it would stay, unseen: `view` shows only events since a cursor.)
        oldest = min(cursors)
        if oldest > self._oldest:
            self._oldest = oldest
            events = self._events
            drop = 0
            for e in events:
                if e.number >= oldest:
                    break
                drop += 1
            if drop:
                del events[:drop]
        self._events.extend(transition.events)
        # `_open()`, inlined: once per decision
        following = self._decision = rules.decision(after)
        self._spaces = {}
        self._answers = {}
        if following is not None and following.number != number + 1:
            raise AssertionError(
                f"{rules.name} numbered decision {number + 1} as {following.number}"
            )
        move = object.__new__(Move)
        set_before, set_decision, set_joint, set_after, set_events, set_wire = _MOVE_SETTERS
        set_before(move, before)
        set_decision(move, decision)
        set_joint(move, joint)
        set_after(move, after)
        set_events(move, transition.events)
        set_wire(move, wire)
        return move

    def play(self, joint: Mapping[Seat, A]) -> Move[S, A]:
        """Answer for every deciding seat at once and apply (tests, replays, local play)."""
        decision = self._decision
        if decision is None:
            raise GameOver("the match is over")
        spaces, answers = self._spaces, self._answers
        for seat, action in joint.items():
            # A space listed for this decision means the seat is deciding now: only legality is
            # left to check (`answer` does every check, and raises the right error).
            space = spaces.get(seat)
            if space is not None and action in space:
                answers[seat] = action
            else:
                self.answer(seat, decision.number, action)
        return self.advance()

    def play_wire(self, joint: Mapping[Seat, Json]) -> Move[S, A]:
        """`play` for a joint action in wire form (a stored or recorded move)."""
        return self.play({seat: self.rules.parse_action(seat, a) for seat, a in joint.items()})

    # -- results ------------------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        """The result, or None while the match runs."""
        return self.rules.outcome(self.state)

    def record(self) -> Record:
        """The `Record` of the moves so far (enough to replay the match exactly)."""
        return Record(
            self.rules.name,
            self.rules.version,
            dict(self.options),
            self.seats,
            self.seed,
            tuple(self.moves),
        )

    def run(self) -> Iterator[Decision]:
        """Yield each open decision until the match ends (the caller answers, then advances)."""
        while self._decision is not None:
            yield self._decision

    def _open(self) -> None:
        self._decision = self.rules.decision(self.state)
        self._spaces = {}
        self._answers = {}
        if self._decision is not None and self._decision.number != self.number:
            raise AssertionError(
                f"{self.rules.name} numbered decision {self.number} as {self._decision.number}"
            )
