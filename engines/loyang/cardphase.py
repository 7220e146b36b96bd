"""The card phase: dealing, the courtyard (options A and B), the 2-player reveal, the solo grid."""

from __future__ import annotations

from engines.api import Seat
from engines.loyang import board
from engines.loyang.actions import Action, GridBuy, Play, Reveal, Take
from engines.loyang.board import K
from engines.loyang.state import LoyangState, Phase, evolve, with_discards, with_player
from engines.loyang.turns import pay_actions
from engines.rng import Rng


def begin(state: LoyangState, rng: Rng) -> LoyangState:
    """Shuffle the discard pile into the deck and deal equal hands (the solo game: the grid)."""
    state = evolve(state, phase=Phase.CARD, courtyard=(), out=(), opened=False, picks=0)
    if state.config.solo:
        return state
    deck = rng.shuffle(state.deck + state.discard)
    seats = len(state.players)
    per = min(K.hand_size, len(deck) // seats)
    players = []
    for seat, player in enumerate(state.players):
        dealt = deck[seat * per : (seat + 1) * per]
        players.append(evolve(player, hand=player.hand + dealt))
    return evolve(
        state,
        players=tuple(players),
        deck=deck[seats * per :],
        discard=(),
        face_down=0,
        current=state.start,
    )


def is_over(state: LoyangState) -> bool:
    """Whether the card phase has nothing left to decide (dues aside)."""
    if state.config.solo:
        return state.picks >= 2 or not grid_buys(state)
    return not any(p.hand for p in state.players)


def actions(state: LoyangState, seat: Seat) -> list[Action]:
    """The legal card-phase actions of `seat` (raising owed money comes first)."""
    player = state.players[seat]
    if player.due > 0:
        return pay_actions(player, state.config.strict_stock)
    if state.config.solo:
        return list(grid_buys(state))
    hand = player.hand
    may_reveal = state.config.two_player_rule and bool(state.deck)
    if not state.opened:
        return [*(Play(c) for c in hand), *([Reveal()] if may_reveal else [])]
    last = sum(1 for p in state.players if p.hand) == 1
    out: list[Action] = []
    if len(hand) >= 2 and not last:
        out += [Play(c) for c in hand]
        if may_reveal:
            out.append(Reveal())
    out += [Take(c, h) for c in state.courtyard for h in hand]
    return out or [Play(c) for c in hand]  # an empty courtyard leaves only playing (research L18)


def apply(state: LoyangState, seat: Seat, action: Action) -> LoyangState:
    """Apply one card-phase action of `seat` and pass the turn on."""
    player = state.players[seat]
    if isinstance(action, GridBuy):
        return _grid_buy(state, action)
    if isinstance(action, Reveal):
        state = evolve(state, courtyard=(*state.courtyard, state.deck[0]), deck=state.deck[1:])
    elif isinstance(action, Play):
        hand = tuple(c for c in player.hand if c != action.card)
        state = with_player(
            state, seat, evolve(player, hand=hand), courtyard=(*state.courtyard, action.card)
        )
    else:
        assert isinstance(action, Take), action
        rest = tuple(c for c in player.hand if c != action.hand)
        courtyard = tuple(c for c in state.courtyard if c != action.courtyard) + rest
        player = evolve(player, hand=())
        cost = 0
        for card in (action.courtyard, action.hand):
            player = board.place(player, card, None, state.round)
            cost += K.common_field_cost if board.is_field(card) else 0
        if cost:
            player = board.pay_or_owe(player, cost, state.config.strict_stock)
        state = with_player(state, seat, player, courtyard=courtyard)
    if not state.players[seat].hand and seat not in state.out:
        state = evolve(state, out=(*state.out, seat))
    return evolve(state, opened=True, current=_next(state, seat))


def _next(state: LoyangState, seat: Seat) -> Seat:
    """The next seat clockwise that still holds cards (or `seat` when none does)."""
    seats = len(state.players)
    for step in range(1, seats + 1):
        other = (seat + step) % seats
        if state.players[other].hand:
            return other
    return seat


def finish(state: LoyangState) -> LoyangState:
    """Courtyard to the discard pile; the last to run out starts, the second-to-last is second."""
    state = with_discards(evolve(state, courtyard=()), state.courtyard)
    if len(state.out) >= 2:
        return evolve(state, start=state.out[-1], second=state.out[-2])
    if state.out:
        return evolve(state, start=state.out[-1])
    return state


# -- the solo grid ---------------------------------------------------------------------------


def grid_buys(state: LoyangState) -> tuple[GridBuy, ...]:
    """The grid cards the solo player can afford (row 0 is free)."""
    cash = state.players[0].cash
    cols = K.solo_grid_columns
    return tuple(
        GridBuy(i // cols, i % cols)
        for i, card in enumerate(state.grid)
        if card is not None and K.solo_row_costs[i // cols] <= cash
    )


def _grid_buy(state: LoyangState, action: GridBuy) -> LoyangState:
    index = action.row * K.solo_grid_columns + action.col
    card = state.grid[index]
    assert card is not None
    player = state.players[0]
    player = evolve(player, cash=player.cash - K.solo_row_costs[action.row])
    player = board.place(player, card, None, state.round)
    if board.is_field(card):
        player = board.pay_or_owe(player, K.common_field_cost, state.config.strict_stock)
    grid = list(state.grid)
    grid[index] = None
    return with_player(state, 0, player, grid=tuple(grid), picks=state.picks + 1)


def finish_grid(state: LoyangState) -> LoyangState:
    """Discard the rest of the chosen row, slide cards up, refill the grid from the deck."""
    cols = K.solo_grid_columns
    rows = len(K.solo_row_costs)
    grid = list(state.grid)
    row = state.config.solo_discard_row - 1
    discards = tuple(c for c in grid[row * cols : (row + 1) * cols] if c is not None)
    for i in range(row * cols, (row + 1) * cols):
        grid[i] = None
    for col in range(cols):
        column = [grid[r * cols + col] for r in range(rows)]
        cards = [c for c in column if c is not None]
        for r in range(rows):
            grid[r * cols + col] = cards[r] if r < len(cards) else None
    deck = state.deck
    for i in range(len(grid)):
        if grid[i] is None and deck:
            grid[i], deck = deck[0], deck[1:]
    return with_discards(evolve(state, grid=tuple(grid), deck=deck), discards)


def layout_grid(state: LoyangState) -> LoyangState:
    """Solo setup: lay out the grid from the top of the deck."""
    size = K.solo_grid_columns * len(K.solo_row_costs)
    return evolve(state, grid=state.deck[:size], deck=state.deck[size:])
