"""The readable log of a Hart an der Grenze match, built from the events of each decision.

Public events are told as they happened; secrets a spectator would not see (what a suitcase
holds, what was seized or kept) are added dimmed, so a log of bots shows who bluffed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engines import Decision, Event, Rules
from engines.hart.actions import Pack
from engines.hart.state import HartState


def _goods(names: Any) -> str:
    counts = Counter(names)
    return ", ".join(f"{n} {g}" for g, n in counts.items()) or "nothing"


def _money(amount: int) -> str:
    return f"${amount}"


class _Teller:
    """Turns one decision's events into lines."""

    def __init__(self, before: HartState, after: HartState, paint: Any) -> None:
        self.before = before
        self.after = after
        self.paint = paint

    def seat(self, seat: int) -> str:
        return str(self.paint.seat(seat))

    def dim(self, text: str) -> str:
        return str(self.paint.dim(text))

    def lines(self, event: Event) -> list[str]:
        handler: Callable[[dict[str, Any]], list[str]] | None = getattr(
            self, f"_{event.kind}", None
        )
        return handler(dict(event.data)) if handler is not None else []

    def _turn(self, d: dict[str, Any]) -> list[str]:
        title = self.paint.bold(f"── Round {d['round']}, turn {d['turn']}: sheriff ")
        return [f"{title}{self.seat(d['sheriff'])}{self.paint.bold(' ──')}"]

    def _reshuffle(self, d: dict[str, Any]) -> list[str]:
        return [
            self.dim(f"  the discard pile is shuffled into a new draw pile ({d['count']} cards)")
        ]

    def _declare(self, d: dict[str, Any]) -> list[str]:
        seat = d["seat"]
        suitcase = self.before.players[seat].suitcase
        honest = all(g.value == d["good"] for g in suitcase) and len(suitcase) <= d["count"]
        truth = self.dim(f"(holds {_goods(suitcase.names())}{'' if honest else ' - a lie'})")
        return [f"  {self.seat(seat)} declares {d['count']} {d['good']} {truth}"]

    def _pass(self, d: dict[str, Any]) -> list[str]:
        what = {"inspection": "inspects nobody", "extra_control": "skips the extra control"}
        text = what.get(d["step"], "keeps the seizure token")
        return [self.dim(f"  sheriff {self.paint.seat(d['seat'])} {text}")]

    def _inspect(self, d: dict[str, Any]) -> list[str]:
        how = "extra control on" if d["control"] == "extra_control" else '"Open up!" to'
        return [f"  sheriff {self.seat(d['sheriff'])}: {how} {self.seat(d['seat'])}"]

    def _offer(self, d: dict[str, Any]) -> list[str]:
        talk = self.before.negotiation
        verb = "asks for" if talk is not None and d["seat"] == self.before.sheriff else "offers"
        return [f"    {self.seat(d['seat'])} {verb} {_money(d['amount'])}"]

    def _no_deal(self, d: dict[str, Any]) -> list[str]:
        return [f"    {self.seat(d['seat'])} walks away: no deal"]

    def _bribe(self, d: dict[str, Any]) -> list[str]:
        paid = self.paint(f"pays {_money(d['amount'])}", 33)
        return [
            f"    {self.seat(d['seat'])} {paid} to {self.seat(d['sheriff'])}; the case stays shut"
        ]

    def _open(self, d: dict[str, Any]) -> list[str]:
        head = (
            f"    {self.seat(d['seat'])} opens {_goods(d['goods'])} "
            f"(declared {d['declared_count']} {d['declared_good']})"
        )
        if not d["discarded"]:
            return [f"{head}: {self.paint('honest', 32)}, compensation {_money(d['compensation'])}"]
        fine = self.paint(f"penalty {_money(d['penalty_paid'])}", 31)
        owed = d["penalty_due"] - d["penalty_paid"]
        forgiven = f" ({_money(owed)} forgiven)" if owed else ""
        return [f"{head}: {fine}{forgiven}, {_goods(d['discarded'])} discarded"]

    def _seize(self, d: dict[str, Any]) -> list[str]:
        text = (
            f"  sheriff {self.seat(d['sheriff'])} seizes {self.seat(d['seat'])}'s suitcase: "
            f"takes {d['taken_count']}, returns {d['returned_count']}"
        )
        return [self.paint(text, 35)]

    def _seized(self, d: dict[str, Any]) -> list[str]:
        return [self.dim(f"    (taken: {_goods(d['taken'])})")]

    def _keep(self, d: dict[str, Any]) -> list[str]:
        if not d["count"]:
            return [f"  {self.seat(d['seat'])} keeps nothing for the end"]
        kept = self.after.players[d["seat"]].under - self.before.players[d["seat"]].under
        detail = self.dim(f"({_goods(kept.names())})")
        return [f"  {self.seat(d['seat'])} keeps {d['count']} card(s) for the end {detail}"]

    def _sell(self, d: dict[str, Any]) -> list[str]:
        return [f"  {self.seat(d['seat'])} sells {_goods(d['goods'])} for {_money(d['income'])}"]

    def _round_end(self, d: dict[str, Any]) -> list[str]:
        table = "  ".join(f"{self.seat(s)} {_money(m)}" for s, m in enumerate(d["money"]))
        return [self.paint.bold(f"Money after round {d['round']}:") + f"  {table}"]

    def _poorest(self, d: dict[str, Any]) -> list[str]:
        seats = ", ".join(self.seat(s) for s in d["seats"])
        if d["chooser"] is None:
            return [f"  tie for poorest ({seats}): the seat left of the last sheriff starts"]
        return [f"  poorest: {seats}; {self.seat(d['chooser'])} picks the next sheriff"]

    def _appoint(self, d: dict[str, Any]) -> list[str]:
        return [f"  {self.seat(d['seat'])} appoints {self.seat(d['sheriff'])} as first sheriff"]

    def _final_sale(self, d: dict[str, Any]) -> list[str]:
        parts = [
            f"{self.seat(s)} {n} -> {_money(i)}"
            for s, (n, i) in enumerate(zip(d["held"], d["incomes"], strict=True))
            if n
        ]
        return [f"  end sale of {d['good']} (cap {d['cap']}): " + ", ".join(parts)]


def step_lines(
    rules: Rules[Any, Any, Any],
    before: HartState,
    decision: Decision,
    joint: Mapping[int, Any],
    after: HartState,
    paint: Any,
    events: Sequence[Event] = (),
) -> list[str]:
    """The log lines of one decision of Hart an der Grenze."""
    teller = _Teller(before, after, paint)
    lines: list[str] = []
    if decision.number == 0:  # the deal and the first turn happened at setup
        for event in before.log:
            if event.number < 0:
                lines.extend(teller.lines(event))
    if decision.label == "pack":
        parts = []
        for seat, action in sorted(joint.items()):
            if isinstance(action, Pack):
                secret = paint.dim(f"({_goods(action.goods.names())})")
                parts.append(f"{paint.seat(seat)} {len(action.goods)} {secret}")
        lines.append("  packs: " + ", ".join(parts))
    for event in after.log:
        if event.number == decision.number:
            lines.extend(teller.lines(event))
    return lines


def final_lines(rules: Rules[Any, Any, Any], final: HartState, paint: Any) -> list[str]:
    """The money table and the goods kept under each suitcase."""
    lines = [paint.bold("Final money:")]
    for seat, player in enumerate(final.players):
        kept = _goods(player.under.names())
        lines.append(f"  {paint.seat(seat)} {_money(player.money):>6}   kept for the end: {kept}")
    return lines
