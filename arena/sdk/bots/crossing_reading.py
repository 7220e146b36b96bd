"""What the Double Crossing heuristic reads from one view: standings, car needs, goals, and
what a space or a roll is worth to it."""

from __future__ import annotations

from typing import Any

TARGETS = 4
"""How many of the cheapest contracts the bot collects cars for at once."""
PASSENGERS = 0
"""Passenger cars kept for the income at Corner Stations."""
SCARCE = 3
"""How much more a car counts in a contract's cost when its yard is empty."""
GOAL_PULL = 0.8
"""What each step between a space and the nearest goal costs."""
CONNECTIONS = 40
"""What stopping at CONNECTIONS is worth when a contract there is affordable."""
TWO_DICE = {s: (6 - abs(s - 7)) / 36 for s in range(2, 13)}
ONE_DIE = {s: 1 / 6 for s in range(1, 7)}


class Reading:
    """Reads of one view, each worked out once per decision."""

    def __init__(self, view: Any) -> None:
        self.view = view
        self.me: int = view["seat"]
        self.players: list[Any] = view["players"]
        self.board: Any = view["board"]
        self.mine = self.players[self.me]
        self._table: dict[str, Any] | None = None
        self._targets: list[tuple[int, str]] | None = None
        self._need: dict[str, float] | None = None
        self._fulfil: dict[int, int] = {}
        self._goals: list[int] | None = None

    def standing(self, seat: int) -> tuple[int, int]:
        """(contracts, money) of `seat`: how close it is to winning."""
        player = self.players[seat]
        return len(player["contracts"]), player["money"]

    def leader(self) -> int:
        """The other seat closest to winning: most contracts, then most money."""
        others: list[int] = [p["seat"] for p in self.players if p["seat"] != self.me]
        return max(others, key=lambda s: (*self.standing(s), -s))

    def contracts(self) -> dict[str, Any]:
        """The contract table by id."""
        if self._table is None:
            self._table = {c["id"]: c for c in self.board["contracts"]}
        return self._table

    def targets(self) -> list[tuple[int, str]]:
        """Contracts still lying at TRADE spaces, by what completing them would cost now."""
        if self._targets is None:
            have, prices, yards = self.mine["cars"], self.board["cars"], self.view["yards"]
            table = self.contracts()
            out = []
            for stack in self.view["stacks"].values():
                for cid in stack:
                    cars = table[cid]["cars"]
                    missing = sum(
                        max(0, n - have[c]) * prices[c]["price"] * (1 if yards[c] else SCARCE)
                        for c, n in cars.items()
                    )
                    out.append((table[cid]["price"] + missing, cid))
            self._targets = sorted(out)
        return self._targets

    def car_need(self) -> dict[str, float]:
        """Cars still missing for the few cheapest contracts, plus passengers for income."""
        if self._need is None:
            have = self.mine["cars"]
            need = {car: 0.0 for car in have}
            table = self.contracts()
            for _, cid in self.targets()[:TARGETS]:
                for car, n in table[cid]["cars"].items():
                    need[car] += max(0, n - have[car])
            need["passenger"] = float(max(0, PASSENGERS - have["passenger"]))
            self._need = need
        return self._need

    def reserve(self) -> int:
        """Money to keep for the cheapest target contract's own price."""
        cheapest = self.targets()[:1]
        return int(self.contracts()[cheapest[0][1]]["price"]) if cheapest else 0

    def cheapest_half(self) -> int:
        """Half the price of the cheapest contract lying at a TRADE space (CONNECTIONS)."""
        table = self.contracts()
        prices = [table[c]["price"] for stack in self.view["stacks"].values() for c in stack]
        step = self.board["money"]["step"]
        return min(prices) // 2 // step * step if prices else 1 << 30

    def can_fulfil(self, space: int) -> int:
        """How many contracts the bot could take at a TRADE space now."""
        if space not in self._fulfil:
            info = self.board["spaces"][space]
            table = self.contracts()
            money, have = self.mine["money"], dict(self.mine["cars"])
            count = 0
            for company in info.get("companies", []):
                for cid in sorted(self.view["stacks"][company], key=lambda c: table[c]["price"]):
                    cars, price = table[cid]["cars"], table[cid]["price"]
                    if price <= money and all(have[c] >= n for c, n in cars.items()):
                        money -= price
                        for c, n in cars.items():
                            have[c] -= n
                        count += 1
            self._fulfil[space] = min(count, int(self.board["contracts_per_visit"]))
        return self._fulfil[space]

    def goals(self) -> list[int]:
        """The spaces that move the bot forward now: home, trades it can make, cars it needs."""
        if self._goals is None:
            board = self.board
            if len(self.mine["contracts"]) >= board["win_contracts"]:
                self._goals = [board["central"]]
            else:
                need = self.car_need()
                full = sum(self.mine["cars"].values()) >= board["rack_limit"]
                spaces = list(enumerate(board["spaces"]))
                trades = [i for i, info in spaces if info["kind"] == "trade" and self.can_fulfil(i)]
                # A full rack that opens no contract still gains: a new car pushes out the
                # least needed one, so car sources stay goals until a trade is possible.
                sources = [
                    i
                    for i, info in spaces
                    if info["kind"] == "train_shop"
                    or (info["kind"] == "yard" and need[info["car"]] >= 1)
                ]
                self._goals = trades + (sources if not (full and trades) else [])
        return self._goals


def expected_roll(read: Reading, crew: str) -> float:
    """What a roll with `crew` played is worth on average: the best reachable space per outcome."""
    dice = ONE_DIE if crew in ("slow", "slow_reverse") else TWO_DICE
    reverse = crew in ("reverse", "slow_reverse")
    here = read.mine["position"]
    total = 0.0
    for steps, p in dice.items():
        reached = ends(read.board, here, steps, reverse)
        total += p * max(space_value(read, end, passed) for end, passed in reached)
    return total


def space_value(read: Reading, space: int, passed_central: bool = False) -> float:
    """What ending a move on `space` is worth to the bot (winning, if it may go home)."""
    board = read.board
    mine = read.mine
    contracts = len(mine["contracts"])
    win = board["win_contracts"]
    if contracts >= win and (space == board["central"] or passed_central):
        return 1000.0
    info = board["spaces"][space]
    kind = info["kind"]
    value = -GOAL_PULL * goal_distance(read, space)
    if kind == "trade":
        value += 30 * read.can_fulfil(space)
    elif kind == "connections":
        value += CONNECTIONS if mine["money"] >= read.cheapest_half() else 0
    elif kind == "yard":
        need = read.car_need()[info["car"]]
        price = board["cars"][info["car"]]["price"]
        value += 10 * min(need, 1) if mine["money"] - price >= read.reserve() else 0
    elif kind == "train_shop":
        value += 6
    elif kind == "depot":
        value += read.view["depot"]
    elif kind == "corner_station":
        payers = len(read.players) - 1
        value += mine["cars"]["passenger"] * board["money"]["passenger_fee"] * payers
    elif kind == "roll_again":
        value += 8
    elif kind == "pay_taxes":
        value -= info["amount"]
    elif kind == "dissatisfied_customer":
        value -= 20 if contracts else 0
    elif kind == "double_cross":
        value += 12 if any(p["contracts"] for p in read.players if p is not mine) else 0
    elif kind in ("roundhouse", "control_tower"):
        value += 5
    elif kind == "derail":
        value -= 6
    elif kind == "stop":
        value -= 3
    loose = [entry for entry in read.view["loose_cars"] if entry["space"] == space]
    if loose:
        value += 8
    if any(p["position"] == space for p in read.players if p is not mine):
        value += 6
    return value


def goal_distance(read: Reading, space: int) -> int:
    """Steps from `space` to the nearest goal."""
    goals = read.goals()
    if not goals:
        return 0
    row: list[int] = distances(read.board)[space]
    return min(row[goal] for goal in goals)


def ends(board: Any, start: int, steps: int, reverse: bool) -> set[tuple[int, bool]]:
    """Every (end space, passed Central Station) a move of `steps` can reach."""
    spaces = board["spaces"]
    if reverse:
        links: list[list[int]] = [[] for _ in spaces]
        for i, space in enumerate(spaces):
            if i != board["start"]:
                for n in space["next"]:
                    links[n].append(i)
    else:
        links = [space["next"] for space in spaces]
    frontier = {(start, False)}
    for _ in range(steps):
        frontier = {
            (n, passed or n == board["central"]) for at, passed in frontier for n in links[at]
        }
    return frontier or {(start, False)}


_DISTANCES: dict[str, list[list[int]]] = {}
"""Forward step counts between every pair of spaces, per board (static data, so cached)."""


def distances(board: Any) -> list[list[int]]:
    """Forward steps from every space to every space (breadth first), cached per board."""
    cached = _DISTANCES.get(board["name"])
    if cached is not None:
        return cached
    spaces = board["spaces"]
    far = len(spaces) + 1
    table = []
    for start in range(len(spaces)):
        row = [far] * len(spaces)
        row[start] = 0
        frontier = [start]
        while frontier:
            nxt = []
            for at in frontier:
                for n in spaces[at]["next"]:
                    if row[n] == far:
                        row[n] = row[at] + 1
                        nxt.append(n)
            frontier = nxt
        table.append(row)
    _DISTANCES[board["name"]] = table
    return table
