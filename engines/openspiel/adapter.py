"""One OpenSpiel game as a `Rules` of the engine contract: state, decisions, views, wire forms.

A state holds OpenSpiel's own state object, which is never changed once the state is built:
`step` clones it, applies the joint action and resolves every chance node that follows from the
match's seeded stream (`chance.sample_outcome`), so no stored state is ever a chance node. The
moves applied so far (one tuple of action ids per node: one id for a turn or a chance outcome,
one per seat at a simultaneous node) are the state's identity: equality, hashing and pickling
use them alone, and a pickled state is rebuilt by replaying them.

Views: a seat sees OpenSpiel's information-state string and tensor for its player (the
observation ones where the game has no information state), never more, with OpenSpiel's name of
the game (parameters included) and, where the game is of perfect information, the history of
action ids, from which a bot rebuilds the exact state (the MCTS reference bot does). The public
view is the observation string where OpenSpiel declares the game (with these options) of perfect
information, and otherwise nothing until the end, when every view shows the final state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pyspiel  # type: ignore[import-not-found, unused-ignore]

from engines.api import Decision, ListedSpace, Outcome, Rules, Seat, Transition
from engines.errors import InvalidAction, OptionsError
from engines.json_value import Json
from engines.openspiel.chance import sample_outcome
from engines.openspiel.scramble import rescramble
from engines.options import Option
from engines.rng import Rng

Move = tuple[int, ...]
"""The action ids applied at one node: one for a turn or a chance outcome, one per seat at a
simultaneous node."""

MAX_ACTION_CHARS = 200
"""The longest action string a bot may send (OpenSpiel's are a few dozen characters)."""

_GAMES: dict[str, Any] = {}
"""Loaded OpenSpiel games by their full name: immutable once loaded, shared by every match."""


def load_game(full_name: str) -> Any:
    """The OpenSpiel game named `full_name` ("leduc_poker(players=2)"), loaded once."""
    game = _GAMES.get(full_name)
    if game is None:
        game = _GAMES[full_name] = pyspiel.load_game(full_name)
    return game


@dataclass(frozen=True, slots=True)
class SpielState:
    """A match of an OpenSpiel game: the game, the decision number and the moves applied."""

    game: str
    """OpenSpiel's full name of the game with its parameters."""
    number: int
    """The index of the current decision."""
    moves: tuple[Move, ...]
    """Every node's applied action ids, chance outcomes included, from the initial state."""
    live: Any = field(compare=False, repr=False)
    """OpenSpiel's state after `moves`; never changed after construction (steps clone it)."""

    def __reduce__(self) -> tuple[Any, tuple[str, int, tuple[Move, ...]]]:
        return rebuild, (self.game, self.number, self.moves)


def rebuild(game: str, number: int, moves: tuple[Move, ...]) -> SpielState:
    """The state reached by replaying `moves` (for unpickling)."""
    live = load_game(game).new_initial_state()
    for move in moves:
        apply_move(live, move)
    return SpielState(game, number, moves, live)


def apply_move(live: Any, move: Move) -> None:
    """Apply one node's action ids to OpenSpiel's state in place."""
    if live.is_simultaneous_node():
        live.apply_actions(list(move))
    else:
        live.apply_action(move[0])


def is_perfect(live: Any) -> bool:
    """Whether OpenSpiel declares this game (with its parameters) of perfect information."""
    return bool(
        live.get_game().get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    )


def view(live: Any, viewer: Seat | None, *, whole: bool = True) -> dict[str, Json]:
    """What `viewer` may know of OpenSpiel's state `live` (see the module docstring); when not
    `whole`, only the strings OpenSpiel derives from the state (no tensor, game or history)."""
    out: dict[str, Json] = {}
    kind = live.get_game().get_type()
    if live.is_terminal():
        out["final"] = str(live)
        out["returns"] = [float(r) for r in live.returns()]
    if viewer is None:
        if is_perfect(live):
            out["observation"] = live.observation_string(0)
        return out
    out["seat"] = viewer
    if whole:
        out["game"] = str(live.get_game())
        if is_perfect(live):  # everyone knows every move: bots may rebuild the exact state
            out["history"] = live.history()
    if kind.provides_information_state_string:
        out["information_state"] = live.information_state_string(viewer)
    elif kind.provides_observation_string:
        out["observation"] = live.observation_string(viewer)
    if whole:  # pybind gives a fresh list of Python floats: no copy (hearts' has 5,088)
        if kind.provides_information_state_tensor:
            out["tensor"] = live.information_state_tensor(viewer)
        elif kind.provides_observation_tensor:
            out["tensor"] = live.observation_tensor(viewer)
    return out


def view_without_tensor(live: Any, viewer: Seat | None) -> dict[str, Json]:
    """A view's strings only: what the no-leak re-deal matches node by node, since building a
    large tensor (5,088 floats in hearts) at every node of every re-deal dominates its cost; the
    conformance check then compares the whole views, tensors included."""
    return view(live, viewer, whole=False)


def resolve_chance(live: Any, rng: Rng) -> tuple[Move, ...]:
    """Resolve every chance node from `rng`, in place; return the outcomes as moves."""
    moves: list[Move] = []
    while live.is_chance_node():
        outcome = sample_outcome(live.chance_outcomes(), rng)
        live.apply_action(outcome)
        moves.append((outcome,))
    return tuple(moves)


def labels(live: Any, seat: Seat) -> dict[str, int]:
    """The legal actions of `seat` as OpenSpiel's action strings, mapped to their ids."""
    return {live.action_to_string(seat, a): a for a in live.legal_actions(seat)}


@dataclass(frozen=True, slots=True)
class SpielSpace(ListedSpace[str]):
    """A seat's legal action strings. Above the listing limit (go on 19x19 offers 362) the
    description names them all, so a bot still gets every one (in `space.actions_json`)."""

    ids: tuple[int, ...] = ()
    """OpenSpiel's ids of the actions, in the same order (the typed `OpenSpielView` sends them)."""

    def describe(self) -> Json:
        return {"kind": "mixed", "actions": list(self.actions), "ranges": []}


class OpenSpielRules(Rules[SpielState, str, dict[str, Json]]):
    """The rules of one OpenSpiel game; `engines.openspiel.rules_for` makes one per game."""

    game_name: str = ""
    """OpenSpiel's short name ("leduc_poker")."""
    checked: bool = True
    """Whether the game is on the curated list (passes the conformance suite)."""
    emits_events = False
    version = 1

    def _full_name(self, seats: int, options: Mapping[str, object]) -> str:
        spec = pyspiel.load_game(self.game_name).get_type().parameter_specification
        # A parameter at its default is left out, as OpenSpiel's own callers do: some defaults
        # are placeholders that mean "derive it" only when absent (go's max_game_length=0).
        params: dict[str, object] = {
            k: v for k, v in options.items() if k != "unchecked" and not _same(v, spec.get(k))
        }
        if "players" in spec:
            params["players"] = seats
        return str(pyspiel.load_game(self.game_name, params))

    def start(self, seats: int, options: Mapping[str, object], rng: Rng) -> Transition[SpielState]:
        if not self.checked and not options.get("unchecked"):
            raise OptionsError(
                f"{self.name} has not passed Arena's conformance suite; "
                "pass the option unchecked=true to play it anyway"
            )
        self.check_seats(seats)
        try:
            game = load_game(self._full_name(seats, options))
        except pyspiel.SpielError as exc:
            raise OptionsError(f"{self.name} refused these options: {exc}") from None
        if game.num_players() != seats:
            raise OptionsError(f"{self.name} is played by {game.num_players()} seats, not {seats}")
        live = game.new_initial_state()
        moves = resolve_chance(live, rng)
        return Transition(SpielState(str(game), 0, moves, live))

    def decision(self, state: SpielState) -> Decision | None:
        live = state.live
        if live.is_terminal():
            return None
        if live.is_simultaneous_node():
            seats = frozenset(p for p in range(live.num_players()) if live.legal_actions(p))
            return Decision(state.number, seats, "simultaneous")
        return Decision(state.number, frozenset({live.current_player()}), "turn")

    def legal_actions(self, state: SpielState, seat: Seat) -> ListedSpace[str]:
        live = state.live
        name = live.action_to_string
        ids = tuple(live.legal_actions(seat))
        return SpielSpace(tuple([name(seat, a) for a in ids]), ids=ids)

    def step(
        self, state: SpielState, decision: Decision, actions: Mapping[Seat, str], rng: Rng
    ) -> Transition[SpielState]:
        live = state.live.clone()
        if live.is_simultaneous_node():
            move = tuple(
                labels(live, p)[actions[p]] if p in actions else pyspiel.INVALID_ACTION
                for p in range(live.num_players())
            )
        else:
            seat = live.current_player()
            # OpenSpiel's own lookup, in C++ (its simultaneous-node one reads joint actions)
            move = (live.string_to_action(seat, actions[seat]),)
        apply_move(live, move)
        moves = (*state.moves, move, *resolve_chance(live, rng))
        return Transition(SpielState(state.game, state.number + 1, moves, live))

    def observe(self, state: SpielState, viewer: Seat | None) -> dict[str, Json]:
        return view(state.live, viewer)

    def outcome(self, state: SpielState) -> Outcome | None:
        if not state.live.is_terminal():
            return None
        returns = [float(r) for r in state.live.returns()]
        return Outcome.from_keys(returns, returns)

    def scramble(self, state: SpielState, viewer: Seat | None, rng: Rng) -> SpielState:
        if is_perfect(state.live):
            return state  # OpenSpiel declares nothing hidden from anyone
        game = load_game(state.game)
        moves, live = rescramble(game, state.moves, viewer, rng, view_without_tensor)
        if live is None:
            return state
        return SpielState(state.game, state.number, moves, live)

    def parse_action(self, seat: Seat, wire: object) -> str:
        if not isinstance(wire, str) or not wire or len(wire) > MAX_ACTION_CHARS:
            raise InvalidAction(
                f"an action is one of OpenSpiel's action strings (1-{MAX_ACTION_CHARS} "
                f"characters), not {str(wire)[:40]!r}",
                seat=seat,
            )
        return wire

    def dump_action(self, action: str) -> Json:
        return action

    def dump_observation(self, observation: dict[str, Json]) -> Json:
        return dict(observation)


def _same(value: object, default: object) -> bool:
    """Whether an option's value is OpenSpiel's default (of the same type: True is not 1)."""
    return type(value) is type(default) and value == default


def options_of(game_name: str) -> tuple[Option, ...]:
    """OpenSpiel's parameters of a game (all but the seat count) as an options schema."""
    spec = pyspiel.load_game(game_name).get_type().parameter_specification
    out = []
    for key, default in sorted(spec.items()):
        if key == "players":
            continue
        kind = type(default) if type(default) in (bool, int, float, str) else str
        out.append(Option(key, kind, default, f"OpenSpiel's {key!r} parameter"))
    return tuple(out)


def seat_range(game_name: str) -> tuple[int, ...]:
    """The seat counts OpenSpiel allows for a game."""
    kind = pyspiel.load_game(game_name).get_type()
    return tuple(range(max(1, kind.min_num_players), kind.max_num_players + 1))


def registered_names() -> tuple[str, ...]:
    """Every game OpenSpiel registers (curated or not)."""
    return tuple(pyspiel.registered_names())
