"""How many tables of which sizes a round has: the rule for fields that do not fill tables.

The rule, for `count` entrants at the organiser's `table_size` and the game's legal seat counts:
1. A table holds any legal seat count from 2 up to `table_size` (never one seat: that is no game).
2. Everybody is seated if some mix of such tables seats them all; byes are the last resort, and
   then the fewest byes that let the rest be seated.
3. Among the mixes that seat everybody, the fewest short tables (fewer than `table_size` seats),
   then the fewest tables, and the short tables as even as possible (largest first).
So 9 at 6-seat Hart tables play 6 + 3, 3 at 6 play one table of 3, 7 at 4 play 4 + 3, and
5 at 4-seat tables of a game that allows only 3-4 play one table of 4 and one bye.
A field smaller than the smallest legal table is only byes; `create_tournament` refuses one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TablePlan:
    """One round's shape: full tables, the sizes of the short tables and the number of byes."""

    full: int
    table_size: int
    short: tuple[int, ...]
    byes: int

    @property
    def sizes(self) -> tuple[int, ...]:
        """Every table's seat count, full tables first."""
        return (self.table_size,) * self.full + self.short


def legal_sizes(table_size: int, allowed_sizes: Iterable[int]) -> list[int]:
    """The seat counts a table of this round may have, largest first; refuses a bad table size."""
    allowed = set(allowed_sizes)
    if table_size < 2 or table_size not in allowed:
        raise ValueError(
            f"table size {table_size} is not one of the allowed sizes {sorted(allowed)}"
        )
    return sorted((s for s in allowed if 2 <= s <= table_size), reverse=True)


def plan_tables(count: int, table_size: int, allowed_sizes: Iterable[int]) -> TablePlan:
    """The shape of a round of `count` entrants (see the module docstring for the rule)."""
    sizes = legal_sizes(table_size, allowed_sizes)
    smaller = sizes[1:]
    for byes in range(count + 1):
        seated = count - byes
        best: TablePlan | None = None
        most = seated // table_size
        # A few full tables fewer always suffice when anything does: each one frees
        # `table_size` seats for the short tables.
        for full in range(most, max(-1, most - 2 * table_size - 1), -1):
            rest = seated - full * table_size
            shorts = _split(rest, smaller)
            if shorts is None:
                continue
            plan = TablePlan(full, table_size, shorts, byes)
            if best is None or (len(shorts), full + len(shorts)) < (
                len(best.short),
                best.full + len(best.short),
            ):
                best = plan
        if best is not None:
            return best
    return TablePlan(0, table_size, (), count)


def _split(rest: int, smaller: list[int]) -> tuple[int, ...] | None:
    """`rest` seats as the fewest tables of the `smaller` sizes, as even as possible."""
    if rest == 0:
        return ()
    if not smaller:
        return None
    low, high = min(smaller), max(smaller)
    fewest = -(-rest // high)
    for tables in range(fewest, min(rest // low, fewest + 2 * high) + 1):
        base, extra = divmod(rest, tables)
        sizes = (base + 1,) * extra + (base,) * (tables - extra)
        if all(s in smaller for s in sizes):
            return sizes
        # Even split has an illegal size (a gap in the seat range): take any legal mix.
        mix = _any_mix(rest, tables, smaller)
        if mix is not None:
            return mix
    return None


def _any_mix(rest: int, tables: int, smaller: list[int]) -> tuple[int, ...] | None:
    if tables == 0:
        return () if rest == 0 else None
    for size in smaller:  # largest first
        tail = _any_mix(rest - size, tables - 1, [s for s in smaller if s <= size])
        if tail is not None:
            return (size, *tail)
    return None
