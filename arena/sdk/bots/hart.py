"""A heuristic Hart an der Grenze bot that decides from the JSON view and legal actions alone.

As a trader it packs the suitcase with the best expected gain (smuggling when the expected sale
beats the expected penalty, and sometimes bluffing either way), declares the suitcase's size and
its most common legal kind, and bribes by the value at stake. As sheriff it inspects the most
suspicious suitcase, spends its tokens on big ones, and takes bribes worth the trouble.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

from arena.sdk.bots.base import Strategy, Turn, Wire
from engines import Json, Rng

VALUE = {"jug": 2, "maracas": 3, "sombrero": 4, "cigar": 7, "tequila": 9, "statue": 12}
PENALTY = {"jug": 1, "maracas": 2, "sombrero": 3, "cigar": 5, "tequila": 6, "statue": 8}
LEGAL = ("jug", "maracas", "sombrero")
ORDER = tuple(VALUE)

BLUFF = 0.15
"""How often the packing ignores the expected gain (so suitcase size gives nothing away)."""


def split(goods: list[str], count: int, good: str) -> tuple[list[str], list[str]]:
    """(matching, mismatching) cards of a suitcase against a declaration, as the rules judge."""
    matching = [g for g in goods if g == good][:count]
    rest = list(goods)
    for g in matching:
        rest.remove(g)
    return matching, rest


def best_declaration(goods: list[str]) -> tuple[int, str]:
    """The suitcase's size and its most common legal kind (the most valuable on ties)."""
    legal = Counter(g for g in goods if g in LEGAL)
    kind = max(LEGAL, key=lambda g: (legal[g], VALUE[g])) if legal else "jug"
    return max(1, min(5, len(goods))), kind


def at_stake(goods: list[str], count: int, good: str) -> int:
    """What opening the suitcase costs its owner: lost cards plus penalties (0 if honest)."""
    _, smuggled = split(goods, count, good)
    return sum(VALUE[g] + PENALTY[g] for g in smuggled)


class HartHeuristic(Strategy):
    """Plays Hart an der Grenze by expected value, from exactly what a remote bot sees."""

    name: ClassVar[str] = "heuristic"

    def decide(self, turn: Turn, rng: Rng) -> Json:
        """Pick an action for any Hart an der Grenze decision."""
        handler = {
            "pack": self._pack,
            "declare": self._declare,
            "inspect": self._inspect,
            "extra_control": self._inspect,
            "seize": self._seize,
            "bribe": self._bribe,
            "keep": self._keep,
            "appoint": self._appoint,
        }.get(turn.label)
        if handler is None:
            return _first(turn)
        return handler(turn, rng)

    # -- trader ------------------------------------------------------------------------------
    def _pack(self, turn: Turn, rng: Rng) -> Json:
        view = turn.view
        traders = max(1, len(view["traders"]))
        packs = [a for a in turn.choices() if a["type"] == "pack"]

        def gain(action: Wire) -> float:
            goods: list[str] = action["goods"]
            count, good = best_declaration(goods)
            matching, smuggled = split(goods, count, good)
            caught = min(0.7, 1.0 / (traders + 1) + 0.04 * len(goods) + 0.1 * bool(smuggled))
            whole = sum(VALUE[g] for g in goods)
            if not smuggled:
                return whole + caught * sum(PENALTY[g] for g in goods)
            kept = sum(VALUE[g] for g in matching)
            fine = sum(PENALTY[g] for g in smuggled)
            return (1 - caught) * whole + caught * (kept - fine)

        ranked = sorted(packs, key=gain, reverse=True)
        if len(ranked) > 1 and rng.below(100) < BLUFF * 100:
            honest = [a for a in ranked if not split(a["goods"], *best_declaration(a["goods"]))[1]]
            sneaky = [a for a in ranked if a not in honest]
            pool = honest if honest and ranked[0] not in honest else sneaky or ranked
            return pool[0]  # type: ignore[no-any-return]
        return ranked[0]  # type: ignore[no-any-return]

    def _declare(self, turn: Turn, rng: Rng) -> Json:
        suitcase: list[str] = turn.view["me"]["suitcase"]
        count, good = best_declaration(suitcase)
        wanted: dict[str, Json] = {"type": "declare", "count": count, "good": good}
        return wanted if wanted in turn.choices() else _first(turn)

    def _bribe(self, turn: Turn, rng: Rng) -> Json:
        view = turn.view
        bribe = view["bribe"]
        if bribe["seat"] == turn.seat:
            return self._bribe_as_trader(turn, bribe)
        return self._bribe_as_sheriff(turn, bribe)

    def _bribe_as_trader(self, turn: Turn, bribe: Any) -> Json:
        view = turn.view
        me = view["players"][turn.seat]
        declaration = me["declaration"]
        stake = at_stake(view["me"]["suitcase"], declaration["count"], declaration["good"])
        stake = min(stake, me["money"] + stake // 2)  # an insolvent trader loses less
        offers = bribe["offers"]
        if stake <= 1:
            return {"type": "open"}  # honest (or nearly): take the compensation
        if not offers:
            return _offer(turn, max(1, stake // 4)) or {"type": "open"}
        demand = offers[-1]["amount"]
        if demand < stake * 0.8:
            return {"type": "accept"}
        mine = [o["amount"] for o in offers if o["seat"] == turn.seat]
        counter = _offer(turn, max(mine[-1] + 1 if mine else 1, stake // 2))
        if counter is not None and counter["amount"] < demand:
            return counter
        return {"type": "accept"} if demand < stake else {"type": "open"}

    def _bribe_as_sheriff(self, turn: Turn, bribe: Any) -> Json:
        view = turn.view
        trader = view["players"][bribe["seat"]]
        declared = trader["declaration"]["count"] if trader["declaration"] else 1
        target = min(trader["money"], 3 + 3 * declared)
        offered = bribe["offers"][-1]["amount"]
        if offered >= target or offered >= trader["money"]:
            return {"type": "accept"}
        mine = [o for o in bribe["offers"] if o["seat"] == turn.seat]
        demand = _offer(turn, max(target, offered + 1))
        if demand is not None and not mine:
            return demand
        if offered >= max(2, target // 2):
            return {"type": "accept"}
        return demand if demand is not None else {"type": "open"}

    # -- sheriff -----------------------------------------------------------------------------
    def _suspicion(self, view: Any, seat: int) -> float:
        player = view["players"][seat]
        declaration = player["declaration"] or {"count": 1, "good": "jug"}
        size: int = player["suitcase"]
        mismatch = abs(size - int(declaration["count"]))
        money: int = player["money"]
        return size * 2.0 + mismatch * 3.0 + min(money, 60) / 30.0

    def _inspect(self, turn: Turn, rng: Rng) -> Json:
        view = turn.view
        targets = [a for a in turn.choices() if a["type"] == "inspect"]
        if not targets:
            return {"type": "pass"}
        best = max(targets, key=lambda a: self._suspicion(view, a["seat"]))
        return best  # type: ignore[no-any-return]

    def _seize(self, turn: Turn, rng: Rng) -> Json:
        view = turn.view
        targets = [a for a in turn.choices() if a["type"] == "seize"]
        if not targets:
            return {"type": "pass"}
        best = max(targets, key=lambda a: self._suspicion(view, a["seat"]))
        size = view["players"][best["seat"]]["suitcase"]
        final_turns = view["round"] == view["rounds"]
        if size >= 4 or (final_turns and size >= 2):
            return best  # type: ignore[no-any-return]
        return {"type": "pass"}

    # -- round end ---------------------------------------------------------------------------
    def _keep(self, turn: Turn, rng: Rng) -> Json:
        view = turn.view
        caps = view["sale_caps"]
        under = Counter(view["me"]["under"])
        behind = sorted(view["me"]["behind"], key=lambda g: VALUE[g], reverse=True)
        chosen: list[str] = []
        for good in behind:
            if len(chosen) == 3:
                break
            if under[good] + chosen.count(good) < max(1, caps[good] // 2):
                chosen.append(good)
        goods: list[Json] = [g for g in sorted(chosen, key=ORDER.index)]
        wanted: dict[str, Json] = {"type": "keep", "goods": goods}
        return wanted if wanted in turn.choices() else _first(turn)

    def _appoint(self, turn: Turn, rng: Rng) -> Json:
        players = turn.view["players"]
        others = [p for p in players if p["seat"] != turn.seat]
        richest = max(others, key=lambda p: p["money"])
        return {"type": "appoint", "seat": richest["seat"]}


def _first(turn: Turn) -> Json:
    """The first legal action (what the engine would default to, more or less)."""
    return turn.choices()[0]  # type: ignore[no-any-return]


def _offer(turn: Turn, amount: int) -> dict[str, Json] | None:
    """An offer of `amount`, moved into the legal range; None when no offer is legal."""
    ranges = _offer_ranges(turn)
    if not ranges:
        return None
    low = min(lo for lo, _ in ranges)
    high = max(hi for _, hi in ranges)
    return {"type": "offer", "amount": max(low, min(high, amount))}


def _offer_ranges(turn: Turn) -> list[tuple[int, int]]:
    if turn.legal is not None:
        amounts = [a["amount"] for a in turn.legal if a["type"] == "offer"]
        return [(min(amounts), max(amounts))] if amounts else []
    return [
        (r["min"], r["max"])
        for r in turn.space.get("ranges", [])
        if r["template"]["type"] == "offer" and r["max"] >= r["min"]
    ]
