"""The course of a match: setup, the nine rounds (harvest, card phase, action phase) and the end."""

from __future__ import annotations

from dataclasses import replace

from engines.api import Outcome, Seat
from engines.loyang import board, cardphase, turns
from engines.loyang.actions import Action, PickOpponent, SetupSow
from engines.loyang.board import K
from engines.loyang.data import DATA
from engines.loyang.model import CardKind, RegularDef, add
from engines.loyang.state import (
    Casual,
    Config,
    Dummy,
    LoyangState,
    Phase,
    Regular,
    Stage,
    Stall,
    Timing,
    Turn,
    evolve,
    with_player,
)
from engines.rng import Rng


def setup(config: Config, rng: Rng) -> LoyangState:
    """Shuffle the action deck and private fields, pick a start player, deal variant cards."""
    deck = rng.shuffle(tuple(DATA.cards))
    seats = config.seats
    players = tuple(board.starting_player(_private_stack(rng)) for _ in range(seats))
    start = rng.below(seats)
    state = LoyangState(
        number=0,
        config=config,
        round=0,
        phase=Phase.SETUP,
        players=players,
        deck=deck,
        discard=(),
        face_down=0,
        courtyard=(),
        start=start,
        second=(start + 1) % seats,
        queue=tuple((start + i) % seats for i in range(seats)),
    )
    if config.beginner:
        dots = [c for c in deck if _dot(c)]
        dealt = rng.shuffle(dots)[:seats]
        state = evolve(
            state,
            players=tuple(evolve(p, hand=(dealt[i],)) for i, p in enumerate(state.players)),
            deck=tuple(c for c in deck if c not in dealt),
        )
    if config.solo:
        state = cardphase.layout_grid(_solo_opponent(state))
    return state


def _dot(card: str) -> bool:
    definition = DATA.cards[card]
    return isinstance(definition, RegularDef) and definition.blue_dot


def _private_stack(rng: Rng) -> tuple[str, ...]:
    """Two piles, each one field of every size, shuffled face down, one on the other."""
    by_size: dict[int, list[str]] = {}
    for f in DATA.private:
        by_size.setdefault(f.size, []).append(f.id)
    first, second = [], []
    for size in sorted(by_size):
        a, b = by_size[size]
        if rng.below(2):
            a, b = b, a
        first.append(a)
        second.append(b)
    return rng.shuffle(first) + rng.shuffle(second)


def _solo_opponent(state: LoyangState) -> LoyangState:
    """Reveal cards until the imaginary opponent shows its stalls and customers."""
    want = dict(
        zip(
            (CardKind.MARKET_STALL, CardKind.REGULAR_CUSTOMER, CardKind.CASUAL_CUSTOMER),
            K.solo_dummy,
            strict=True,
        )
    )
    taken: dict[CardKind, list[str]] = {k: [] for k in want}
    rest: list[str] = []
    deck = list(state.deck)
    while deck and any(len(taken[k]) < n for k, n in want.items()):
        card = deck.pop(0)
        kind = DATA.cards[card].kind
        if kind in want and len(taken[kind]) < want[kind]:
            taken[kind].append(card)
        else:
            rest.append(card)
    dummy = Dummy(
        stalls=tuple(Stall(c, board.stall_def(c).stock) for c in taken[CardKind.MARKET_STALL]),
        regulars=tuple(Regular(c, start=1) for c in taken[CardKind.REGULAR_CUSTOMER]),
        casuals=tuple(Casual(c) for c in taken[CardKind.CASUAL_CUSTOMER]),
    )
    return evolve(state, dummy=dummy, deck=tuple(deck), discard=tuple(rest), face_down=len(rest))


def setup_actions(state: LoyangState, seat: Seat) -> list[Action]:
    """Home-field crops this seat may buy: allowed, affordable, and sown by fewer than two."""
    sown = [p.fields[0].crop for p in state.players if p.fields and p.fields[0].crop is not None]
    player = state.players[seat]
    return [
        SetupSow(c)
        for c in sorted(DATA.home.allowed)
        if sown.count(c) < K.max_same_home_crop
        and DATA.buy[c] <= player.cash
        and (not state.config.strict_stock or player.shop[c] > 0)
    ]


def apply_setup(state: LoyangState, seat: Seat, action: SetupSow) -> LoyangState:
    """Buy the crop from the seat's own shop and sow the home field with it."""
    player = state.players[seat]
    player = evolve(
        player,
        cash=player.cash - DATA.buy[action.crop],
        shop=add(player.shop, action.crop, -1),
        cart=add(player.cart, action.crop),
    )
    player = board.sow(player, 0, action.crop)
    return with_player(state, seat, player, queue=state.queue[1:])


def opponent_choices(state: LoyangState) -> list[Action]:
    """Paired variant: the seats without a start marker."""
    return [
        PickOpponent(s) for s in range(len(state.players)) if s not in (state.start, state.second)
    ]


def apply_opponent(state: LoyangState, action: PickOpponent) -> LoyangState:
    """Pair the first start player with the pick, the second with the remaining seat."""
    other = next(
        s for s in range(len(state.players)) if s not in (state.start, state.second, action.seat)
    )
    partners = [0] * len(state.players)
    for a, b in ((state.start, action.seat), (state.second, other)):
        partners[a], partners[b] = b, a
    groups = ((state.start, state.second), (action.seat, other))
    return _begin_groups(evolve(state, partners=tuple(partners)), groups)


def action_order(state: LoyangState) -> tuple[Seat, ...]:
    """Start player, second start player, then the rest clockwise from the start player."""
    seats = len(state.players)
    order = [state.start]
    if state.second not in order:
        order.append(state.second)
    order += [s for s in ((state.start + i) % seats for i in range(seats)) if s not in order]
    return tuple(order)


def _begin_groups(state: LoyangState, groups: tuple[tuple[Seat, ...], ...]) -> LoyangState:
    return evolve(state, phase=Phase.ACTION, groups=groups, turns=(), acted=frozenset())


def _after_cards(state: LoyangState) -> LoyangState:
    state = cardphase.finish_grid(state) if state.config.solo else cardphase.finish(state)
    if state.config.paired:
        return evolve(state, phase=Phase.OPPONENT)
    return _begin_groups(state, tuple((s,) for s in action_order(state)))


def begin_round(state: LoyangState, rng: Rng) -> LoyangState:
    """Harvest (with the private-field draw) and start the card phase of the next round."""
    round_ = state.round + 1
    state = evolve(state, round=round_, turns=(), groups=(), acted=frozenset(), partners=())
    players = []
    discards: tuple[str, ...] = ()
    emptied = 0
    for player in state.players:
        if round_ < K.rounds and player.stack:
            field = board.private_field(player.stack[0])
            player = evolve(player, fields=(*player.fields, field), stack=player.stack[1:])
        player, gone, count = board.harvest(player, round_)
        players.append(player)
        discards += gone
        emptied += count
    state = evolve(state, players=tuple(players), discard=state.discard + discards)
    if state.config.solo and emptied and not state.reshuffled:
        deck = rng.shuffle(state.deck + state.discard)
        state = evolve(state, deck=deck, discard=(), face_down=0, reshuffled=True)
    return cardphase.begin(state, rng)


def advance(state: LoyangState, rng: Rng) -> LoyangState:
    """Run every automatic step until some seat must decide or the match is over."""
    while True:
        phase = state.phase
        if phase is Phase.SETUP:
            if state.queue:
                return state
            state = begin_round(state, rng)
        elif phase is Phase.CARD:
            if any(p.due for p in state.players) or not cardphase.is_over(state):
                return state
            state = _after_cards(state)
        elif phase in (Phase.ACTION, Phase.CLOSING):
            if state.turns:
                return state
            if state.groups:
                stage = Stage.ACT if phase is Phase.ACTION else Stage.STORE
                group, rest = state.groups[0], state.groups[1:]
                state = evolve(state, groups=rest, turns=tuple(Turn(s, stage) for s in group))
                for seat in group:
                    state = turns.normalize(state, seat)
            elif phase is Phase.ACTION and state.config.timing is Timing.ROUND:
                closing = tuple((s,) for s in action_order(state))
                state = evolve(state, phase=Phase.CLOSING, groups=closing)
            elif state.round >= K.rounds:
                return evolve(state, phase=Phase.OVER)
            else:
                state = begin_round(state, rng)
        else:
            return state


def outcome(state: LoyangState) -> Outcome | None:
    """Highest final position wins; ties by cash, then crops on fields, cart and storehouse."""
    if state.phase is not Phase.OVER:
        return None
    finals = [board.final_position(p) for p in state.players]
    keys = [
        (float(f), float(p.cash), float(board.crops_held(p)))
        for f, p in zip(finals, state.players, strict=True)
    ]
    result = Outcome.from_keys(keys, finals)
    if state.config.solo:  # the seed rates the final score: 17, 18, 19
        result = replace(result, rating=solo_rating(finals[0]))
    return result


def solo_rating(position: int) -> str:
    """The solo game's verdict on a final Path position ("none" below the lowest rating)."""
    earned = [name for floor, name in K.solo_ratings if position >= floor]
    return earned[-1] if earned else "none"
