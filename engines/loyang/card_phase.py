"""The card phase: dealing, the courtyard (options A and B), the 2-player reveal, the solo grid."""

from __future__ import annotations

from engines.api import Seat
from engines.loyang import board
from engines.loyang.actions import Action, GridBuy, Play, Reveal, Take
from engines.loyang.board import K
from engines.loyang.legal import grid_buys
from engines.loyang.members import CARD
from engines.loyang.work import Work
from engines.rng import Rng


def begin(w: Work, rng: Rng) -> None:
    """Shuffle the discard pile into the deck and deal equal hands (the solo game: the grid)."""
    w.phase, w.courtyard, w.out, w.opened, w.picks = CARD, (), (), False, 0
    if w.config.solo:
        return
    deck = rng.shuffle(w.deck + w.discard)
    seats = len(w.players)
    per = min(K.hand_size, len(deck) // seats)
    for seat in range(seats):
        dealt = deck[seat * per : (seat + 1) * per]
        player = w.edit(seat)
        player.hand += dealt
        w.emit("hand", (seat,), seat=seat, cards=list(dealt))
    w.deck, w.discard, w.face_down, w.current = deck[seats * per :], (), 0, w.start
    w.emit("deal", count=per, start_player=w.start)


def is_over(w: Work) -> bool:
    """Whether the card phase has nothing left to decide (dues aside)."""
    if w.config.solo:
        return w.picks >= 2 or not grid_buys(w.grid, w.players[0].cash)
    return not any(p.hand for p in w.players)


def apply(w: Work, seat: Seat, action: Action) -> None:
    """Apply one card-phase action of `seat` and pass the turn on."""
    if isinstance(action, GridBuy):
        grid_buy(w, action)
        return
    if isinstance(action, Reveal):
        reveal(w, seat)
    elif isinstance(action, Play):
        play(w, seat, action)
    else:
        assert isinstance(action, Take), action
        take(w, seat, action)
    if not w.players[seat].hand and seat not in w.out:
        w.out = (*w.out, seat)
    w.opened = True
    w.current = _next(w, seat)


def reveal(w: Work, seat: Seat) -> None:
    """2-player rule: turn the deck's top card into the courtyard instead of playing."""
    card, w.deck = w.deck[0], w.deck[1:]
    w.courtyard = (*w.courtyard, card)
    w.emit("reveal", seat=seat, card=card)


def play(w: Work, seat: Seat, action: Play) -> None:
    """Option A: play a hand card face up into the courtyard."""
    player = w.edit(seat)
    player.hand = tuple(c for c in player.hand if c != action.card)
    w.courtyard = (*w.courtyard, action.card)
    w.emit("play", seat=seat, card=action.card)


def take(w: Work, seat: Seat, action: Take) -> None:
    """Option B: keep one courtyard card and one hand card; the rest of the hand goes out."""
    player = w.edit(seat)
    rest = tuple(c for c in player.hand if c != action.hand)
    w.courtyard = tuple(c for c in w.courtyard if c != action.courtyard) + rest
    player.hand = ()
    cost = 0
    for card in (action.courtyard, action.hand):
        board.place(player, card, None, w.round)
        cost += K.common_field_cost if board.is_field(card) else 0
    if cost:
        board.pay_or_owe(player, cost, w.config.strict_stock)
    w.emit(
        "take",
        seat=seat,
        cards=[action.courtyard, action.hand],
        returned=list(rest),
        amount=cost,
    )


def _next(w: Work, seat: Seat) -> Seat:
    """The next seat clockwise that still holds cards (or `seat` when none does)."""
    seats = len(w.players)
    for step in range(1, seats + 1):
        other = (seat + step) % seats
        if w.players[other].hand:
            return other
    return seat


def finish(w: Work) -> None:
    """Courtyard to the discard pile; the last to run out starts, the second-to-last is second."""
    courtyard, w.courtyard = w.courtyard, ()
    w.discard_cards(courtyard)
    if len(w.out) >= 2:
        w.start, w.second = w.out[-1], w.out[-2]
    elif w.out:
        w.start = w.out[-1]
    w.emit("card_phase_end", start_player=w.start, second_player=w.second)


# -- the solo grid ---------------------------------------------------------------------------


def grid_buy(w: Work, action: GridBuy) -> None:
    """Solo: buy the grid card at (row, col) for its row's price and place it."""
    index = action.row * K.solo_grid_columns + action.col
    card = w.grid[index]
    assert card is not None
    price = K.solo_row_costs[action.row]
    player = w.edit(0)
    player.cash -= price
    board.place(player, card, None, w.round)
    if board.is_field(card):
        board.pay_or_owe(player, K.common_field_cost, w.config.strict_stock)
    grid = list(w.grid)
    grid[index] = None
    w.grid = tuple(grid)
    w.picks += 1
    w.emit("grid_buy", seat=0, card=card, row=action.row, col=action.col, amount=price)


def finish_grid(w: Work) -> None:
    """Discard the rest of the chosen row, slide cards up, refill the grid from the deck."""
    cols = K.solo_grid_columns
    rows = len(K.solo_row_costs)
    grid = list(w.grid)
    row = w.config.solo_discard_row - 1
    discards = tuple(c for c in grid[row * cols : (row + 1) * cols] if c is not None)
    for i in range(row * cols, (row + 1) * cols):
        grid[i] = None
    for col in range(cols):
        column = [grid[r * cols + col] for r in range(rows)]
        cards = [c for c in column if c is not None]
        for r in range(rows):
            grid[r * cols + col] = cards[r] if r < len(cards) else None
    deck = w.deck
    for i in range(len(grid)):
        if grid[i] is None and deck:
            grid[i], deck = deck[0], deck[1:]
    w.grid, w.deck = tuple(grid), deck
    w.discard_cards(discards)
    w.emit("grid_refilled", cards=list(discards))


def layout_grid(w: Work) -> None:
    """Solo setup: lay out the grid from the top of the deck."""
    size = K.solo_grid_columns * len(K.solo_row_costs)
    w.grid, w.deck = w.deck[:size], w.deck[size:]
