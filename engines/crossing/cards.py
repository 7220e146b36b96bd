"""The crew cards: the piles, declaring before the roll, Railroad Crew, Villain, Engineer, Stop.

Each card's legal choices and its effect sit together here; `legal` and `turns` dispatch to them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engines.api import Json, ListedSpace, Seat
from engines.crossing.actions import Action, BuyCards, Pass, PickCar, PlayStop, Roll
from engines.crossing.components import CREWS, Board, Crew
from engines.crossing.decisions import listed, pick_cars, unanswered
from engines.crossing.members import (
    BUY_CARDS,
    CREW_STOP,
    CREW_VILLAIN,
    END_TURN,
    NONE,
    OP_VILLAIN,
    RAILROAD_CREW,
    REVERSE,
    ROLL,
    SLOW,
    SLOW_REVERSE,
    VILLAIN_CAR,
)
from engines.crossing.records import new_task
from engines.crossing.state import CrewMode, CrossingState, Player, Prompt, Task
from engines.crossing.work import Work, put

RAILROAD = CREWS.index(Crew.RAILROAD_CREW)
VILLAIN = CREWS.index(Crew.VILLAIN)
ENGINEER = CREWS.index(Crew.ENGINEER)
STOP = CREWS.index(Crew.STOP)


# -- the piles (Setup 1; D7) ----------------------------------------------------------------------
def draw(w: Work, seat: Seat, count: int, why: str) -> int:
    """Draw up to `count` cards, from the fuller pile; refill from the discards when empty."""
    drawn: list[Json] = []
    for _ in range(count):
        if not any(w.piles) and sum(w.discard) > 0:
            reshuffle(w)
        piles = w.piles
        fullest = max(range(len(piles)), key=lambda k: len(piles[k]))  # the first, on a tie
        pile = piles[fullest]
        if not pile:
            break
        card = pile[0]
        w.piles = put(piles, fullest, pile[1:])
        w.add_cards(seat, card, 1)
        drawn.append(CREWS[card].value)
    w.emit("drew", seat=seat, count=len(drawn), why=why)
    if drawn:
        w.emit("drew_cards", audience=seat, seat=seat, cards=drawn)
    return len(drawn)


def reshuffle(w: Work) -> None:
    """Shuffle the face-up discards into new face-down piles."""
    cards = [i for i, n in enumerate(w.discard) for _ in range(n)]
    cards = list(w.rng.shuffle(cards))
    w.discard = (0,) * len(CREWS)
    k = len(w.piles)
    w.piles = tuple([tuple(cards[i::k]) for i in range(k)])
    w.emit("reshuffled", piles=[len(p) for p in w.piles])


def play_card(w: Work, seat: Seat, card: Crew, why: str) -> None:
    """Move a card from `seat`'s hand face up onto the discards."""
    i = CREWS.index(card)
    w.add_cards(seat, i, -1)
    w.discard = put(w.discard, i, w.discard[i] + 1)
    w.emit("card_played", seat=seat, card=card.value, why=why)


def duel(w: Work, attacker: Seat, defender: Seat, why: str) -> Seat:
    """Both roll one die; ties are re-rolled or go to the defender (D8). Returns the winner."""
    while True:
        a, d = w.die(), w.die()
        w.emit("duel", why=why, attacker=attacker, defender=defender, rolls=[a, d])
        if a != d:
            return attacker if a > d else defender
        if w.settings.tie_to_defender:
            return defender


# -- declaring, before each roll -----------------------------------------------------------------
def declare_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """The active seat declares its plan; every other asked seat may play Stop or pass."""
    players, board = state.players, state.board
    me = players[seat]
    if seat != prompt.seat:
        return _STOPPING if me.hand[STOP] else _PASSING
    left = sum(len(p) for p in state.piles) + sum(state.discard)
    # The plan depends on these alone (see `plan_actions`), and they recur turn after turn.
    key = (
        min(me.hand[RAILROAD], 2),
        me.position == board.start,
        tuple(villain_victims(players, seat)),
        me.hand[ENGINEER] > 0,
        me.money >= board.crew_card_price and left > 0,
    )
    space = _PLANS.get(key)
    if space is None:
        space = _PLANS[key] = listed(plan_actions(board, players, seat, left))
    return space


_PLANS: dict[tuple[int, bool, tuple[int | None, ...], bool, bool], ListedSpace[Action]] = {}
"""The declaring seat's spaces, by what they depend on: no state is involved, so they are shared."""


def plan_actions(
    board: Board, players: Sequence[Player], seat: Seat, cards_left: int
) -> list[Roll | BuyCards]:
    """What the active seat may declare before rolling; rolling with no cards comes first."""
    me = players[seat]
    modes = railroad_crew_modes(me, me.position == board.start)
    victims = villain_victims(players, seat)
    engineer = [False, True] if me.hand[ENGINEER] else [False]
    out: list[Roll | BuyCards] = [Roll(m, v, e) for m in modes for v in victims for e in engineer]
    # General rule 1: buy crew cards instead of rolling to move.
    if me.money >= board.crew_card_price and cards_left:
        out += [BuyCards(v) for v in victims]
    return out


def answer_declare(w: Work, prompt: Prompt, actions: Mapping[Seat, Action]) -> None:
    """Resolve the Stops first; a turn that survives them carries out the active seat's plan."""
    stop(w, prompt, actions)
    if w.turn.lost:
        w.then(new_task(END_TURN))
        return
    seat, action = prompt.seat, actions[prompt.seat]
    villain = action.villain if isinstance(action, (Roll, BuyCards)) else None
    if isinstance(action, Roll):
        play_railroad_crew(w, seat, action.crew)
        if action.engineer:
            declare_engineer(w, seat)
        main = new_task(ROLL, seat)
    else:
        w.emit("buys_instead", seat=seat)
        main = new_task(BUY_CARDS, seat)
    tasks = [main, new_task(END_TURN)]
    if villain is not None:
        tasks.insert(0, play_villain(w, seat, villain))
    w.then(*tasks)


# -- Railroad Crew ------------------------------------------------------------------------------
def railroad_crew_modes(me: Player, at_start: bool) -> list[CrewMode]:
    """One card slows (one die) or reverses the move, two do both; nothing reverses from START."""
    rr = me.hand[RAILROAD]
    modes = [NONE]
    if rr >= 1:
        modes.append(SLOW)
    if rr >= 1 and not at_start:
        modes.append(REVERSE)
    if rr >= 2 and not at_start:
        modes.append(SLOW_REVERSE)
    return modes


def play_railroad_crew(w: Work, seat: Seat, crew: CrewMode) -> None:
    """Discard the Railroad Crew cards of `crew`; the roll and the move read it this turn."""
    if crew is NONE:  # none played: the turn began without Railroad Crew
        return
    for _ in range(crew.cards):
        play_card(w, seat, RAILROAD_CREW, crew.value)
    w.set_turn(crew=crew)


# -- Villain ------------------------------------------------------------------------------------
def villain_victims(players: Sequence[Player], seat: Seat) -> list[int | None]:
    """No Villain, or any other seat holding a car (「其他任一玩家」: on START or not)."""
    victims: list[int | None] = [None]
    if players[seat].hand[VILLAIN]:
        victims += [s for s, p in enumerate(players) if s != seat and sum(p.rack) > 0]
    return victims


def play_villain(w: Work, seat: Seat, victim: Seat) -> Task:
    """Discard the Villain; the task that makes `victim` drop a car (picked as D13 says)."""
    play_card(w, seat, CREW_VILLAIN, "villain")
    chooser = seat if w.settings.villain_chooses else victim
    return new_task(OP_VILLAIN, victim, other=chooser)


def villain(w: Work, task: Task) -> None:
    """The victim drops a car onto its space; with several types the chooser picks which."""
    victim = task.seat
    types = w.car_types(victim)
    if len(types) == 1:
        w.drop_car(victim, types[0], "villain")
    elif types:
        w.ask_seats(VILLAIN_CAR, (task.other,), victim)


def villain_car_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """The car types of the victim's rack."""
    return listed(pick_cars(state.players[prompt.seat].rack))


def answer_villain_car(w: Work, prompt: Prompt, action: Action) -> None:
    """Drop the chosen car where the victim's locomotive stands."""
    if isinstance(action, PickCar):
        w.drop_car(prompt.seat, action.car, "villain")
    else:
        unanswered(prompt, action)


# -- Engineer -----------------------------------------------------------------------------------
def declare_engineer(w: Work, seat: Seat) -> None:
    """Hold the Engineer aside until the turn ends: then it is used or handed back."""
    w.add_cards(seat, ENGINEER, -1)
    w.set_turn(engineer=True)
    w.emit("engineer_declared", seat=seat)


def settle_engineer(w: Work, room: bool, earned: bool) -> bool:
    """At the turn's end a declared Engineer gives the extra turn, unless refused; True if used.

    Refused when the turn already earned one, when STOP, DERAIL, a failed ROUNDHOUSE or
    DISSATISFIED CUSTOMER ended it, or at the chain cap (`room` False): it goes back to the hand.
    """
    turn = w.turn
    if not turn.engineer:
        return False
    used = room and not earned and not turn.no_engineer
    if used:
        w.discard = put(w.discard, ENGINEER, w.discard[ENGINEER] + 1)
    else:
        w.add_cards(turn.active, ENGINEER, 1)
    w.emit("engineer", seat=turn.active, used=used)
    return used


# -- Stop ---------------------------------------------------------------------------------------
def stop_options(me: Player) -> list[Action]:
    """A seat other than the active one passes, or plays a Stop it holds."""
    return [Pass(), PlayStop()] if me.hand[STOP] else [Pass()]


_STOPPING = listed([Pass(), PlayStop()])
"""`stop_options` of a seat holding a Stop, built once."""
_PASSING = listed([Pass()])
"""`stop_options` of a seat without one."""


def stop(w: Work, prompt: Prompt, actions: Mapping[Seat, Action]) -> None:
    """Stops resolve clockwise from the active seat's left, up to the cap (D9); each is a duel."""
    active = w.turn.active
    callers = [s for s in prompt.seats[1:] if isinstance(actions[s], PlayStop)]
    room = w.settings.stops_per_turn - w.turn.stops
    for caller in callers[:room]:
        play_card(w, caller, CREW_STOP, "stop")
        w.set_turn(stops=w.turn.stops + 1)
        if duel(w, caller, active, "stop") == caller:
            w.set_turn(lost=True)
            w.emit("turn_lost", seat=active, by=caller)
            return
