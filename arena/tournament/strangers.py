"""Sets of mutual strangers: the tables a player could still take, for the rematch-free search
(arena/tournament/rematch.py). `met[i]` maps the positions `i` has met to how often."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

# A table slot: (kind, seats). Kinds are small ints ordered as the caller prefers to try them.
Slot = tuple[int, int]


def has_clique(met: Sequence[dict[int, int]], cands: list[int], k: int) -> bool:
    """Whether `k` of `cands` have never met one another."""
    if k <= 0:
        return True
    for i in range(len(cands) - k + 1):
        met_c = met[cands[i]]
        rest = [d for d in cands[i + 1 :] if d not in met_c]
        if len(rest) >= k - 1 and has_clique(met, rest, k - 1):
            return True
    return False


def count_cliques(met: Sequence[dict[int, int]], cands: list[int], k: int, cap: int) -> int:
    """How many sets of `k` mutual strangers `cands` holds, counted up to `cap`."""
    if k <= 0:
        return 1
    total = 0
    for i in range(len(cands) - k + 1):
        met_c = met[cands[i]]
        rest = [d for d in cands[i + 1 :] if d not in met_c]
        if len(rest) >= k - 1:
            total += count_cliques(met, rest, k - 1, cap - total)
            if total >= cap:
                break
    return total


def tables_of(
    met: Sequence[dict[int, int]],
    free: Sequence[bool],
    p: int,
    slots: Counter[Slot],
    short_kinds: frozenset[int],
    eligible: Sequence[bool] | None,
    cap: int,
) -> int:
    """How many tables of the open `slots` the unseated player `p` could still take with
    unseated strangers, counted up to `cap` (only `eligible` players take short seats)."""
    mine = met[p]
    strangers = [q for q, f in enumerate(free) if f and q != p and q not in mine]
    total = 0
    for kind, size in sorted({slot for slot, n in slots.items() if n}):
        short = kind in short_kinds
        if short and eligible is not None:
            if not eligible[p]:
                continue
            cands = [q for q in strangers if eligible[q]]
        else:
            cands = strangers
        total += count_cliques(met, cands, size - 1, cap - total)
        if total >= cap:
            break
    return total


def over_capacity(
    met: Sequence[dict[int, int]],
    slots: Counter[Slot],
    sit_out: int,
    short_kinds: frozenset[int],
    eligible: Sequence[bool] | None,
) -> bool:
    """Whether more players can only sit at short tables (or out) than there are such places,
    or more can only sit at full tables than there are full seats, before anyone is seated:
    each player's possible tables, from the mutual strangers it has, decide which kind of seat
    it needs. A cheap proof that no seating exists where the search needs many thousands of
    nodes (14 of 37 undecided searches of the wide sweep, bench/README.md)."""
    open_slots = [(kind in short_kinds, size, n) for (kind, size), n in slots.items() if n]
    full_sizes = {size for short, size, _ in open_slots if not short}
    short_sizes = {size for short, size, _ in open_slots if short}
    short_places = sit_out + sum(size * n for short, size, n in open_slots if short)
    full_seats = sum(size * n for short, size, n in open_slots if not short)
    only_short = only_full = 0
    for p, mine in enumerate(met):
        strangers = [q for q in range(len(met)) if q != p and q not in mine]
        may_short = eligible is None or eligible[p]
        fellows = strangers if eligible is None else [q for q in strangers if eligible[q]]
        full = any(has_clique(met, strangers, size - 1) for size in full_sizes)
        short = may_short and (
            sit_out > 0 or any(has_clique(met, fellows, size - 1) for size in short_sizes)
        )
        only_short += short and not full
        only_full += full and not short
    return only_short > short_places or only_full > full_seats


def outwards(free: Sequence[bool], anchor: int) -> list[int]:
    """Free players by distance from `anchor` in the standings, nearest first."""
    out = []
    for d in range(1, len(free)):
        lo, hi = anchor - d, anchor + d
        if lo < 0 and hi >= len(free):
            break
        if lo >= 0 and free[lo]:
            out.append(lo)
        if hi < len(free) and free[hi]:
            out.append(hi)
    return out
