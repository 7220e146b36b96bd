"""A heuristic Loyang bot: sown fields, profitable customers, spare cash onto the Path, no loans.

It decides from the `Turn` alone (the seat's view and the legal actions in wire form).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from arena.sdk.bots.base import Strategy, Turn, Wire
from engines import Json, Rng

CROPS = ("wheat", "pumpkin", "turnip", "cabbage", "bean", "leek")
RESERVE = 3
"""Coins kept back from the Path before the last round, to buy seed crops."""


class LoyangHeuristic(Strategy):
    """Greedy rules of thumb over the legal actions."""

    name: ClassVar[str] = "heuristic"

    def decide(self, turn: Turn, rng: Rng) -> Json:
        legal = list(turn.choices())
        plan = _Plan(_Read(turn, legal))
        choice = plan.choose()
        return choice if choice is not None else legal[0]  # type: ignore[no-any-return]


class _Read:
    """One decision: the view, this seat, prices, rounds left and the legal actions by type."""

    def __init__(self, turn: Turn, legal: list[Wire]) -> None:
        self.view: Any = turn.view
        self.me: Any = self.view["players"][turn.seat]
        self.legal = legal
        self.by_type: dict[str, list[Wire]] = {}
        for action in legal:
            self.by_type.setdefault(action["type"], []).append(action)
        rules = self.view["rules"]
        self.buy: dict[str, int] = rules["prices"]["buy"]
        self.sell: dict[str, int] = rules["prices"]["sell"]
        self.round: int = self.view["round"]
        self.left: int = rules["rounds"] - self.round

    def of(self, kind: str) -> list[Wire]:
        """The legal actions of type `kind`."""
        return self.by_type.get(kind, [])

    def grown(self) -> set[str]:
        """Crops this seat grows now or holds on its cart."""
        crops = {f["crop"] for f in self.me["fields"] if f["crop"] is not None}
        return crops | set(self.me["cart"])

    def needed(self) -> list[str]:
        """Crops wanted for regular customers still owed a delivery, then casual customers."""
        out: list[str] = []
        for regular in self.me["regulars"]:
            if regular["start"] <= self.round + 1:
                out += regular["crops"]
        for casual in self.me["casuals"]:
            out += casual["crops"]
        return out


class _Plan:
    """The rules of thumb of every phase but the action phase, tried in turn order."""

    def __init__(self, read: _Read) -> None:
        self.read = read

    def choose(self) -> Wire | None:
        for step in (
            self.setup,
            self.pay,
            self.opponent,
            self.card_phase,
            self.grid,
            self.keep,
            self.store,
            self.score,
            _ActionPhase(self.read).act,
        ):
            choice = step()
            if choice is not None:
                return choice
        return None

    def value(self, card: Any) -> float:
        """A rough worth in coins of having `card` placed now."""
        kind = card["kind"]
        if kind == "casual_customer":
            have = sum(1 for c in card["crops"] if c in self.read.grown())
            return float(card["payout"]) * (0.4 + 0.2 * have)
        if kind == "regular_customer":
            if self.read.left < 3 or not set(card["crops"]) <= self.read.grown():
                return -4.0
            return float(sum(card["pays"][: min(4, self.read.left + 1)]) / 3.0)
        if kind == "market_stall":
            return 2.0
        if kind == "helper":
            return 3.0 if card["effect"] in ("gain_cash", "take_crops", "take_crop_choice") else 1.5
        if kind == "common_field":
            return (
                min(card["size"], self.read.left) * 1.2 - 2 if self.read.me["cash"] >= 2 else -3.0
            )
        return 0.0

    def setup(self) -> Wire | None:
        options = self.read.of("setup_sow")
        return max(options, key=lambda a: self.read.buy[a["crop"]]) if options else None

    def pay(self) -> Wire | None:
        if "end_turn" in self.read.by_type or not self.read.me["due"]:
            return None
        helpers = self.read.of("use_helper")
        if helpers:
            return helpers[0]
        sells = self.read.of("sell")
        if sells:
            return min(sells, key=lambda a: self.read.sell[a["crop"]])
        return self.read.of("loan")[0] if self.read.of("loan") else None

    def opponent(self) -> Wire | None:
        options = self.read.of("pick_opponent")
        if not options:
            return None
        return min(options, key=lambda a: self.read.view["players"][a["seat"]]["position"])

    def card_phase(self) -> Wire | None:
        plays, takes = self.read.of("play"), self.read.of("take")
        if not plays and not takes and not self.read.of("reveal"):
            return None
        values = {
            c["id"]: self.value(c) for c in [*self.read.view["courtyard"], *self.read.view["hand"]]
        }
        best_take = max(
            takes, key=lambda a: values[a["courtyard"]] + values[a["hand"]], default=None
        )
        if best_take is not None:
            take_value = values[best_take["courtyard"]] + values[best_take["hand"]]
            if not plays or take_value >= 8 or len(self.read.view["hand"]) <= 2:
                return best_take
        if self.read.of("reveal"):
            return self.read.of("reveal")[0]
        if plays:
            return min(plays, key=lambda a: values[a["card"]])
        return best_take

    def grid(self) -> Wire | None:
        options = self.read.of("grid_buy")
        if not options:
            return None
        costs = self.read.view["rules"]["grid_costs"]
        return max(
            options,
            key=lambda a: self.value(self.read.view["grid"][a["row"]][a["col"]]) - costs[a["row"]],
        )

    def keep(self) -> Wire | None:
        options = self.read.of("keep")
        if not options:
            return None
        drawn = {c["id"]: c for t in self.read.view["turns"] for c in t["drawn"]}

        def worth(action: Wire) -> float:
            return sum(self.value(drawn[c]) for c in action["cards"] if c in drawn)

        return max(options, key=worth)

    def store(self) -> Wire | None:
        if "finish_storing" not in self.read.by_type:
            return None
        stores = self.read.of("store")
        if not stores:
            return self.read.of("finish_storing")[0]
        needed = self.read.needed()
        return max(stores, key=lambda a: (a["crop"] in needed, self.read.buy[a["crop"]]))

    def score(self) -> Wire | None:
        if "finish_scoring" not in self.read.by_type:
            return None
        budget = self.read.me["cash"] - (0 if self.read.left == 0 else RESERVE)
        position = self.read.me["position"]
        best = self.read.of("finish_scoring")[0]
        for action in self.read.of("advance"):
            steps = action["steps"]
            cost = 1 + sum(range(position + 2, position + steps + 1))
            if cost <= budget:
                best = action
        return best


class _ActionPhase:
    """The rules of thumb of the action phase: deliver, serve, sow, buy, trade, or end the turn."""

    def __init__(self, read: _Read) -> None:
        self.read = read

    def act(self) -> Wire | None:
        if "end_turn" not in self.read.by_type:
            return None
        for pick in (
            self.deliver,
            self.serve,
            self.sow,
            self.helper,
            self.buy_for_customer,
            self.trade,
            self.buy_seed,
            self.pair,
            self.upgrade,
        ):
            choice = pick()
            if choice is not None:
                return choice
        return self.read.of("end_turn")[0]

    def deliver(self) -> Wire | None:
        owed = {r["id"] for r in self.read.me["regulars"] if r["delivered"] == 0}
        return next((a for a in self.read.of("deliver") if a["customer"] in owed), None)

    def serve(self) -> Wire | None:
        pays = {c["id"]: c["pays_now"] for c in self.read.me["casuals"]}
        options = self.read.of("serve")
        return max(options, key=lambda a: pays[a["customer"]]) if options else None

    def sow(self) -> Wire | None:
        sizes = {f["id"]: f["size"] for f in self.read.me["fields"]}
        options = self.read.of("sow")
        if not options:
            return None
        return max(options, key=lambda a: (sizes[a["field"]], self.read.buy[a["crop"]]))

    def helper(self) -> Wire | None:
        for action in self.read.of("use_helper"):
            card = next(h for h in self.read.me["helpers"] if h["id"] == action["card"])
            effect = card["effect"]
            if effect in ("gain_cash", "take_crops", "upgrade_storehouse"):
                return action
            if effect == "take_crop_choice" and action["crop"] == _best(
                self.read.needed(), self.read.buy
            ):
                return action
            if effect in ("deliver_other", "serve_other"):
                return action
        return None

    def buy_for_customer(self) -> Wire | None:
        cart = self.read.me["cart"]
        for regular in self.read.me["regulars"]:
            if regular["delivered"] or regular["start"] > self.read.round or regular["rows"] >= 4:
                continue
            missing = _missing(regular["crops"], cart)
            cost = sum(self.read.buy[c] for c in missing)
            if missing and cost <= regular["pays"][regular["rows"]] + 2:
                return self._buy(missing[0])
        for casual in self.read.me["casuals"]:
            missing = _missing(casual["crops"], cart)
            if missing and sum(self.read.buy[c] for c in missing) < casual["pays_now"] - 1:
                return self._buy(missing[0])
        return None

    def _buy(self, crop: str) -> Wire | None:
        return next((a for a in self.read.of("buy") if a["crop"] == crop), None)

    def trade(self) -> Wire | None:
        needed = self.read.needed()
        cart = dict(self.read.me["cart"])
        for action in self.read.of("trade"):
            if action["crop"] in _missing(needed, cart) and not set(action["give"]) & set(needed):
                return action
        return None

    def buy_seed(self) -> Wire | None:
        if self.read.left < 2:
            return None
        empty = [
            f
            for f in self.read.me["fields"]
            if f["crop"] is None and f["size"] <= self.read.left + 1
        ]
        if not empty:
            return None
        field = max(empty, key=lambda f: f["size"])
        crops = field.get("allowed", CROPS)
        options = [a for a in self.read.of("buy") if a["crop"] in crops]
        return min(options, key=lambda a: self.read.buy[a["crop"]]) if options else None

    def pair(self) -> Wire | None:
        if self.read.of("buy_pair") and self.read.me["pair_price"] <= 1 and self.read.left >= 2:
            return self.read.of("buy_pair")[0]
        return None

    def upgrade(self) -> Wire | None:
        if self.read.of("upgrade") and self.read.me["cash"] >= 8 and 2 <= self.read.left <= 6:
            return self.read.of("upgrade")[0]
        return None


def _missing(crops: Sequence[str], cart: dict[str, int]) -> list[str]:
    """The crops of `crops` (a multiset) that `cart` does not hold."""
    left = dict(cart)
    out = []
    for crop in crops:
        if left.get(crop, 0) > 0:
            left[crop] -= 1
        else:
            out.append(crop)
    return out


def _best(crops: Sequence[str], prices: dict[str, int]) -> str:
    """The most expensive crop of `crops`, or leek when none is wanted."""
    return max(crops, key=lambda c: prices[c]) if crops else "leek"
