"""A heuristic Double Crossing bot: collect the cars that open contracts, trade, hurt the leader.

It decides from the `Turn` alone: the seat's view (`engines.crossing.wire` documents its keys)
and the legal actions in wire form. The board's static data comes with every view of a seat that
must act on the board; a Stop-only decision needs none of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from arena.sdk.bots.base import Strategy, Turn, Wire
from arena.sdk.bots.crossing_reading import Reading, expected_roll, space_value
from engines import Json, Rng

CARD_KEEP = {"railroad_crew": 1, "villain": 2, "engineer": 3, "stop": 3}
"""How much the bot wants to keep each crew card (the lowest is discarded first)."""
CREW_MONEY = 1000
"""Money the bot keeps before it buys crew cards."""


class CrossingHeuristic(Strategy):
    """Collects the cars that open contracts, trades when it can, plays Stop and Villain on the
    leader, and sends the leader to bad spaces from the Control Tower."""

    name: ClassVar[str] = "heuristic"

    def decide(self, turn: Turn, rng: Rng) -> Json:
        """Pick one of the legal wire actions."""
        choices = turn.choices()
        if len(choices) == 1:
            return choices[0]  # type: ignore[no-any-return]
        read = Reading(turn.view)
        label = turn.label
        if label == "declare" and read.board is None:
            return self._stop(read, choices)
        if read.board is None:  # pragma: no cover - every other decision carries the board
            return choices[0]  # type: ignore[no-any-return]
        method = getattr(self, f"_{label}", None)
        if method is None:
            return choices[0]  # type: ignore[no-any-return]
        picked: Json = method(read, choices)
        return picked

    # -- before the roll --------------------------------------------------------------------
    def _stop(self, read: Reading, choices: Sequence[Wire]) -> Json:
        active = read.view["turn"]["active"]
        stop = next((c for c in choices if c["type"] == "stop"), None)
        theirs = len(read.players[active]["contracts"])
        close = theirs >= max(1, read.standing(read.me)[0])
        if stop is not None and active == read.leader() and close:
            return stop  # type: ignore[no-any-return]
        return {"type": "pass"}

    def _declare(self, read: Reading, choices: Sequence[Wire]) -> Json:
        rolls = [c for c in choices if c["type"] == "roll"]
        leader = read.leader()
        villains = {c["villain"] for c in rolls}
        villain = leader if leader in villains else None
        engineer = any(c["engineer"] for c in rolls)
        best, best_value = None, float("-inf")
        for choice in rolls:
            if choice["villain"] != villain or choice["engineer"] != engineer:
                continue
            crew = choice["crew"]
            cost = {"none": 0, "slow": 4, "reverse": 4, "slow_reverse": 8}[crew]
            value = expected_roll(read, crew) - cost
            if value > best_value:
                best, best_value = choice, value
        return best if best is not None else choices[0]  # type: ignore[no-any-return]

    # -- where to go ------------------------------------------------------------------------
    def _route(self, read: Reading, choices: Sequence[Wire]) -> Json:
        passes = set(read.view["decision"]["passes_central"])
        return max(  # type: ignore[no-any-return]
            choices, key=lambda c: space_value(read, c["space"], c["space"] in passes)
        )

    def _roundhouse(self, read: Reading, choices: Sequence[Wire]) -> Json:
        here = read.mine["position"]

        def value(choice: Wire) -> float:
            return space_value(read, choice.get("space", here))

        return max(choices, key=value)  # type: ignore[no-any-return]

    def _train_shop(self, read: Reading, choices: Sequence[Wire]) -> Json:
        # Always roll: on a full rack the least needed car is sold, so the rack only improves.
        return {"type": "accept"}

    def _tower_target(self, read: Reading, choices: Sequence[Wire]) -> Json:
        leader = read.leader()
        return next(  # type: ignore[no-any-return]
            (c for c in choices if c.get("seat") == leader), choices[0]
        )

    def _tower_space(self, read: Reading, choices: Sequence[Wire]) -> Json:
        target = read.players[read.view["decision"]["target"]]
        spaces = read.board["spaces"]

        def harm(choice: Wire) -> float:
            info = spaces[choice["space"]]
            kind = info["kind"]
            if choice["space"] == read.board["central"]:
                return -100.0
            if kind == "dissatisfied_customer" and target["contracts"]:
                return 50.0
            if kind == "pay_taxes":
                return float(info["amount"])
            if kind == "derail" and any(target["cars"].values()):
                return 8.0
            return 1.0 if kind in ("stop", "plain") else 0.0

        return max(choices, key=harm)  # type: ignore[no-any-return]

    # -- trading and buying -----------------------------------------------------------------
    def _trade(self, read: Reading, choices: Sequence[Wire]) -> Json:
        return self._cheapest_contract(read, choices)

    def _connections(self, read: Reading, choices: Sequence[Wire]) -> Json:
        return self._cheapest_contract(read, choices)

    def _cheapest_contract(self, read: Reading, choices: Sequence[Wire]) -> Json:
        table = read.contracts()
        offered = [c for c in choices if c["type"] == "contract"]
        if not offered:
            return {"type": "pass"}
        return min(offered, key=lambda c: table[c["contract"]]["price"])  # type: ignore[no-any-return]

    def _yard(self, read: Reading, choices: Sequence[Wire]) -> Json:
        car = read.board["spaces"][read.mine["position"]]["car"]
        price = read.board["cars"][car]["price"]
        spare = read.mine["money"] - price >= read.reserve()
        wanted = read.car_need()[car] >= 1 and spare
        return {"type": "buy_car"} if wanted else {"type": "pass"}

    def _buy_crew(self, read: Reading, choices: Sequence[Wire]) -> Json:
        cards = read.mine["hand_count"] + read.view["turn"]["engineer"]
        want = 1 if read.mine["money"] >= CREW_MONEY and cards < 2 else 0
        return {"type": "buy", "count": min(want, len(choices) - 1)}

    # -- giving things up -------------------------------------------------------------------
    def _discard(self, read: Reading, choices: Sequence[Wire]) -> Json:
        return min(choices, key=lambda c: CARD_KEEP[c["card"]])  # type: ignore[no-any-return]

    def _least_needed_car(self, read: Reading, choices: Sequence[Wire]) -> Json:
        need = read.car_need()
        cars = [c for c in choices if c["type"] == "car"]
        if not cars:
            table = read.contracts()
            return min(choices, key=lambda c: table[c["contract"]]["price"])  # type: ignore[no-any-return]
        return min(cars, key=lambda c: need[c["car"]])  # type: ignore[no-any-return]

    _villain_car = _least_needed_car
    _derail_car = _least_needed_car
    _rack_limit = _least_needed_car
    _raise_cash = _least_needed_car

    def _double_cross(self, read: Reading, choices: Sequence[Wire]) -> Json:
        leader = set(read.players[read.leader()]["contracts"])
        offered = [c for c in choices if c["type"] == "contract"]
        return next(  # type: ignore[no-any-return]
            (c for c in offered if c["contract"] in leader), offered[0] if offered else choices[0]
        )

    def _dissatisfied(self, read: Reading, choices: Sequence[Wire]) -> Json:
        table = read.contracts()
        return min(choices, key=lambda c: table[c["contract"]]["price"])  # type: ignore[no-any-return]
