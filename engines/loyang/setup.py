"""Setup: the shuffled decks, each seat's board and private fields, the start player, the
variants' extra cards (beginner hands, the solo opponent and grid) and sowing the home fields."""

from __future__ import annotations

from engines.api import Seat
from engines.loyang import board, card_phase
from engines.loyang.actions import SetupSow
from engines.loyang.board import K
from engines.loyang.cards import CardKind, RegularDef
from engines.loyang.counts import add
from engines.loyang.data import DATA
from engines.loyang.state import Casual, Config, Dummy, LoyangState, Phase, Regular, Stall
from engines.loyang.work import Work
from engines.rng import Rng


def setup(config: Config, rng: Rng) -> Work:
    """Shuffle the action deck and private fields, pick a start player, deal variant cards."""
    deck = rng.shuffle(tuple(DATA.cards))
    seats = config.seats
    players = tuple(board.starting_player(private_stack(rng)) for _ in range(seats))
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
    w = Work(state, -1)
    w.emit("setup", start_player=w.start, second_player=w.second)
    if config.beginner:
        beginner_hands(w, rng)
    if config.solo:
        solo_opponent(w)
        card_phase.layout_grid(w)
    return w


def beginner_hands(w: Work, rng: Rng) -> None:
    """Beginner variant: each seat starts with a blue-dot regular customer in hand."""
    dots = [c for c in w.deck if _dot(c)]
    dealt = rng.shuffle(dots)[: len(w.players)]
    for seat in range(len(w.players)):
        w.edit(seat).hand = (dealt[seat],)
        w.emit("hand", (seat,), seat=seat, cards=[dealt[seat]])
    w.deck = tuple(c for c in w.deck if c not in dealt)


def _dot(card: str) -> bool:
    definition = DATA.cards[card]
    return isinstance(definition, RegularDef) and definition.blue_dot


def private_stack(rng: Rng) -> tuple[str, ...]:
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


def solo_opponent(w: Work) -> None:
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
    deck = list(w.deck)
    while deck and any(len(taken[k]) < n for k, n in want.items()):
        card = deck.pop(0)
        kind = DATA.cards[card].kind
        if kind in want and len(taken[kind]) < want[kind]:
            taken[kind].append(card)
        else:
            rest.append(card)
    w.dummy = Dummy(
        stalls=tuple(Stall(c, board.stall_def(c).stock) for c in taken[CardKind.MARKET_STALL]),
        regulars=tuple(Regular(c, start=1) for c in taken[CardKind.REGULAR_CUSTOMER]),
        casuals=tuple(Casual(c) for c in taken[CardKind.CASUAL_CUSTOMER]),
    )
    w.deck, w.discard, w.face_down = tuple(deck), tuple(rest), len(rest)


def sow_home(w: Work, seat: Seat, action: SetupSow) -> None:
    """Buy the crop from the seat's own shop and sow the home field with it."""
    player = w.edit(seat)
    price = DATA.buy[action.crop]
    player.cash -= price
    player.shop = add(player.shop, action.crop, -1)
    player.cart = add(player.cart, action.crop)
    board.sow(player, 0, action.crop)
    w.queue = w.queue[1:]
    w.emit("sow", seat=seat, field=DATA.home.id, crop=action.crop.wire, amount=price)
