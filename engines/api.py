"""The engine contract: what every game implements and every other layer relies on.

A game is a `Rules` object: pure functions over immutable states. The referee, the storage layer,
the tournament code and the tests only ever use the names defined here, and they drive a match
through one loop, `engines.driver.MatchDriver`.

    start(seats, options, rng) -> Transition        (the initial state and the setup's events)
    decision(state) -> Decision | None              (None exactly when the match is over)
    legal_actions(state, seat) -> ActionSpace
    step(state, decision, {seat: action}, rng) -> Transition
                                                    (a complete joint action the driver checked)
    observe(state, viewer) -> Observation           (viewer None = the public view; no events)
    outcome(state) -> Outcome | None
    parse_action / dump_action / dump_observation   (the JSON wire forms)

Events are not part of a game's state: `step` returns the events it produced, each with its
audience, and the driver keeps them and each seat's cursor (the decision it last answered), so
that a view shows a seat what happened since it last decided.

How a game updates state (the same in every game): a state is a tree of frozen dataclasses and
tuples, never mutated once built. `step` copies the state into a mutable working copy (the
game's `work.py`), lets the rule functions change that copy in place, then freezes it into the
next state. One copy per step is cheaper than a `dataclasses.replace` per change (a decision
changes dozens of fields), and rule functions read as the rulebook does ("pay 2, draw a card")
instead of threading a new state through every line. No state holds a cache: the driver asks
for each seat's legal actions once per decision and hands the space to whoever needs it.
"""

from __future__ import annotations

import enum
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import is_
from typing import Any, ClassVar, Generic, TypeVar

from engines.action_json import load_wire
from engines.errors import GameOver, IllegalAction, NotYourDecision, OptionsError, StaleDecision
from engines.json_value import Json as Json  # the contract's wire type, imported from here
from engines.options import Option
from engines.rng import Rng

Seat = int
"""A position in a match, 0..n-1. Engines know seats only; `arena/` maps seats to bots."""


S = TypeVar("S")
A = TypeVar("A")
O = TypeVar("O")  # noqa: E741 - the observation type, O as in the contract's signature

DEFAULT_LISTING_LIMIT = 256
"""Above this many legal actions a space is described rather than listed."""


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened, with its audience."""

    number: int
    """The decision that produced it; -1 for setup."""
    kind: str
    """What happened: "dealt", "opened", "bribe_paid", ..."""
    data: tuple[tuple[str, Json], ...]
    """The details, as sorted (key, value) pairs so that events stay hashable and immutable."""
    audience: frozenset[Seat] | None = None
    """The seats that may see it; None means everyone, spectators included."""

    @staticmethod
    def make(number: int, kind: str, audience: Iterable[Seat] | None = None, **data: Json) -> Event:
        """Build an event from keyword details."""
        details = tuple(sorted(data.items())) if len(data) > 1 else tuple(data.items())
        return Event(number, kind, details, None if audience is None else frozenset(audience))

    def is_visible_to(self, viewer: Seat | None) -> bool:
        """Whether `viewer` (None = spectator) may see this event."""
        return self.audience is None or (viewer is not None and viewer in self.audience)

    def to_json(self) -> dict[str, Json]:
        """The wire form of the event (its audience is not part of it); lists are copied."""
        out: dict[str, Json] = {"number": self.number, "kind": self.kind}
        for key, value in self.data:
            out[key] = list(value) if isinstance(value, list) else value
        return out


def visible(log: Iterable[Event], viewer: Seat | None, since: int = -1) -> tuple[Event, ...]:
    """The events of `log` that `viewer` may see, produced at decision `since` or later."""
    return tuple(e for e in log if e.number >= since and e.is_visible_to(viewer))


@dataclass(frozen=True, slots=True)
class Transition(Generic[S]):
    """What setting up or one step produced: the new state and the events it emitted."""

    state: S
    events: tuple[Event, ...] = ()


@dataclass(frozen=True, slots=True)
class Decision:
    """Who must answer now."""

    number: int
    """0, 1, 2, ...: the index of this decision in `Record.moves`. Bots echo it (stale check)."""
    seats: frozenset[Seat]
    """Every seat that must answer before `apply`; several for simultaneous choices."""
    label: str
    """What is being decided ("pack", "inspect", "bribe"), for prompts, logs and metrics."""


class Termination(enum.Enum):
    """Why a match ended."""

    COMPLETED = "completed"
    """The rules ended the game."""
    TURN_LIMIT = "turn_limit"
    """A turn cap (an option) ended the game; the rules rank the position."""
    FORFEIT = "forfeit"
    """Set by the referee, never by the rules: a seat forfeited."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished match."""

    ranks: tuple[int, ...]
    """Per seat, 1 = best; tied seats share a rank (1, 1, 3)."""
    scores: tuple[float, ...]
    """Game points per seat, for tie-breaks and statistics."""
    termination: Termination
    rating: str | None = None
    """A game's own verdict on the result, if it has one (Loyang solo: "master")."""

    @staticmethod
    def from_keys(
        keys: Sequence[tuple[float, ...] | float],
        scores: Sequence[float],
        termination: Termination = Termination.COMPLETED,
    ) -> Outcome:
        """Rank seats by `keys`, higher is better; equal keys share the better rank."""
        ordered = sorted(keys, reverse=True)
        ranks = tuple(1 + ordered.index(key) for key in keys)
        return Outcome(ranks=ranks, scores=tuple(float(s) for s in scores), termination=termination)


class ActionSpace(ABC, Generic[A]):
    """The legal actions of one seat at one decision."""

    @abstractmethod
    def __contains__(self, action: object) -> bool:
        """Whether `action` is legal."""

    @abstractmethod
    def sample(self, rng: Rng) -> A:
        """A uniformly random legal action (as uniform as the space allows)."""

    @abstractmethod
    def default(self) -> A:
        """The action played on timeout or on a bad answer; always legal."""

    @abstractmethod
    def listing(self, limit: int = DEFAULT_LISTING_LIMIT) -> Sequence[A] | None:
        """Every legal action in a stable order, or None when there are more than `limit`."""

    def describe(self) -> Json:
        """A JSON description of the space, for bots when it is too large to list."""
        return {"kind": "listed"}


@dataclass(frozen=True, slots=True)
class ListedSpace(ActionSpace[A]):
    """A space small enough to hold as a tuple. The first action is the default unless told."""

    actions: tuple[A, ...]
    default_index: int = 0
    _members: frozenset[A] | None = field(init=False, repr=False, compare=False)
    """The actions as a set, made at the second check: the one check of a fresh space scans
    (cheaper than hashing every action); a space checked again (a cached one) looks up."""
    _scanned: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.actions:
            raise ValueError("a decision must offer at least one legal action")
        object.__setattr__(self, "_members", None)
        object.__setattr__(self, "_scanned", False)

    def __contains__(self, action: object) -> bool:
        try:
            members = self._members
            if members is None:
                if not self._scanned:
                    object.__setattr__(self, "_scanned", True)
                    # One of the listed objects itself (a local player picks from the listing)
                    # is found by identity in C; equality calls each action's Python __eq__.
                    return any(map(is_, self.actions, repeat(action))) or action in self.actions
                members = frozenset(self.actions)
                object.__setattr__(self, "_members", members)
            return action in members
        except TypeError:  # unhashable junk is simply not a legal action
            return False

    def sample(self, rng: Rng) -> A:
        return self.actions[rng.below(len(self.actions))]

    def default(self) -> A:
        return self.actions[self.default_index]

    def listing(self, limit: int = DEFAULT_LISTING_LIMIT) -> Sequence[A] | None:
        return self.actions if len(self.actions) <= limit else None


class Rules(ABC, Generic[S, A, O]):
    """One game's rules: pure, deterministic, no I/O, no clock, no global random generator."""

    name: ClassVar[str]
    """The registry name, e.g. "hart"."""
    title: ClassVar[str]
    """The human name, e.g. "Hart an der Grenze"."""
    version: ClassVar[int]
    """Bumped whenever a recorded replay would change."""
    seat_counts: ClassVar[tuple[int, ...]]
    """The seat counts this game supports."""
    options_schema: ClassVar[tuple[Option, ...]] = ()
    """Every option with its type, default and a one-line description."""
    presets: ClassVar[Mapping[str, Mapping[str, Json]]] = {}
    """Named option sets (variants) that the conformance suite plays besides the defaults."""
    emits_events: ClassVar[bool] = True
    """Whether `step` reports events, so that views carry an "events" list (the driver adds it)."""
    conformance_options: ClassVar[Mapping[str, Json]] = {}
    """Options that shorten random matches for the conformance suite, e.g. a lower turn cap;
    a few seeds per seat count still play without them."""

    # -- options ----------------------------------------------------------------------------
    def resolve_options(self, options: Mapping[str, object] | None = None) -> dict[str, Json]:
        """Validate `options` and fill in defaults; unknown names raise `OptionsError`."""
        given = dict(options or {})
        known = {opt.name: opt for opt in self.options_schema}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise OptionsError(
                f"{self.name} has no option(s) {unknown}; known: {sorted(known) or 'none'}"
            )
        return {
            name: opt.check(given[name]) if name in given else opt.default
            for name, opt in known.items()
        }

    def check_seats(self, seats: int) -> None:
        """Raise `OptionsError` unless the game supports `seats` seats."""
        if seats not in self.seat_counts:
            raise OptionsError(
                f"{self.name} is played by {min(self.seat_counts)}-{max(self.seat_counts)} "
                f"seats, not {seats}"
            )

    # -- the rules ---------------------------------------------------------------------------
    @abstractmethod
    def start(self, seats: int, options: Mapping[str, object], rng: Rng) -> Transition[S]:
        """The initial state and the setup's events; options are validated `resolve_options`."""

    def setup(self, seats: int, options: Mapping[str, object], rng: Rng) -> S:
        """The initial state alone (a convenience for tests and scenarios)."""
        return self.start(seats, options, rng).state

    @abstractmethod
    def decision(self, state: S) -> Decision | None:
        """Who must answer now, or None exactly when the match is over."""

    @abstractmethod
    def legal_actions(self, state: S, seat: Seat) -> ActionSpace[A]:
        """The legal actions of `seat` at the current decision (the seat must be in it)."""

    def apply(self, state: S, actions: Mapping[Seat, A], rng: Rng) -> S:
        """Check and apply the complete joint action of the current decision (for tests and
        tools; matches are played through `engines.driver.MatchDriver`); illegal input raises."""
        current = self.decision(state)
        if current is None:
            raise GameOver("the match is over")
        extra = sorted(set(actions) - current.seats)
        if extra:
            raise NotYourDecision(
                f"seat {extra[0]} is not deciding now (decision {current.number} "
                f"is for seats {sorted(current.seats)})",
                seat=extra[0],
                decision=current.number,
            )
        missing = sorted(current.seats - set(actions))
        if missing:
            raise IllegalAction(
                f"decision {current.number} needs an action from seat(s) {missing}",
                seat=missing[0],
                decision=current.number,
            )
        for seat, action in actions.items():
            if action not in self.legal_actions(state, seat):
                raise IllegalAction(
                    f"{self.describe_action(action)} is not legal for seat {seat} now "
                    f"({current.label})",
                    seat=seat,
                    decision=current.number,
                )
        return self.step(state, current, actions, rng).state

    @abstractmethod
    def step(
        self, state: S, decision: Decision, actions: Mapping[Seat, A], rng: Rng
    ) -> Transition[S]:
        """Apply the joint action of `decision`, already checked complete and legal."""

    def check_answer(self, state: S, seat: Seat, number: int, action: A) -> None:
        """Raise the right `ActionError` if `seat` may not play `action` at decision `number`."""
        check_answer(
            self,
            self.decision(state),
            seat,
            number,
            action,
            lambda: self.legal_actions(state, seat),
        )

    @abstractmethod
    def observe(self, state: S, viewer: Seat | None) -> O:
        """What `viewer` may know; `viewer=None` gives the public (spectator) view."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The result, or None while the match runs."""

    @abstractmethod
    def scramble(self, state: S, viewer: Seat | None, rng: Rng) -> S:
        """Re-deal at random everything `viewer` may not know, keeping everything it may.

        Used by the no-leak test: `observe(scramble(s, v, rng), v)` must equal `observe(s, v)`.
        """

    # -- wire forms --------------------------------------------------------------------------
    @abstractmethod
    def parse_action(self, seat: Seat, wire: object) -> A:
        """Parse the JSON form of an action; junk raises `InvalidAction` naming what is wrong."""

    @abstractmethod
    def dump_action(self, action: A) -> Json:
        """The JSON form of an action."""

    @abstractmethod
    def dump_observation(self, observation: O) -> Json:
        """The JSON form of an observation."""

    def describe_action(self, action: object) -> str:
        """A short human-readable form of an action, for logs and error messages."""
        try:
            return json.dumps(self.dump_action(action), sort_keys=True)  # type: ignore[arg-type]
        except Exception:  # junk that is not even an action
            return repr(action)

    def parse_wire(self, seat: Seat, text: str) -> A:
        """Parse a JSON text; a text that is not bounded, valid JSON raises `InvalidAction`."""
        return self.parse_action(seat, load_wire(text, seat))


def check_answer(
    rules: Rules[Any, Any, Any],
    current: Decision | None,
    seat: Seat,
    number: int,
    action: object,
    space: Callable[[], ActionSpace[Any]],
) -> None:
    """Raise the right `ActionError` unless `seat` may play `action` at decision `number`.

    `space` gives the seat's legal actions only once the cheaper checks have passed (the driver
    passes its per-decision space, `Rules.check_answer` a fresh listing).
    """
    if current is None:
        raise GameOver("the match is over", seat=seat, decision=number)
    if number != current.number:
        raise StaleDecision(
            f"answer for decision {number}, but the current decision is {current.number}",
            seat=seat,
            decision=number,
        )
    if seat not in current.seats:
        raise NotYourDecision(
            f"seat {seat} is not deciding now (decision {current.number} is for seats "
            f"{sorted(current.seats)})",
            seat=seat,
            decision=current.number,
        )
    if action not in space():
        raise IllegalAction(
            f"{rules.describe_action(action)} is not legal for seat {seat} now ({current.label})",
            seat=seat,
            decision=current.number,
        )
