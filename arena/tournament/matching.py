"""Rematch-free seating at 2-seat tables, decided exactly: a perfect matching of strangers.

At 2-seat tables a seating is a matching of players who never met. Sitting out is modelled by
dummy players, one per seat out, each a stranger to every player allowed to sit out; a seating
exists exactly when this graph has a perfect matching. Edmonds' blossom algorithm finds one or
proves there is none, in polynomial time, whatever the field.
"""

from __future__ import annotations

from collections.abc import Sequence


def pair_strangers(
    met: Sequence[dict[int, int]], sit_out: int, eligible: Sequence[bool] | None
) -> tuple[list[tuple[int, int]], list[int]] | None:
    """Pairs of players who never met and the `sit_out` players left over (only eligible ones
    when `eligible` is given), or None when no such seating exists."""
    n = len(met)
    if (n - sit_out) % 2 or sit_out > n:
        return None
    size = n + sit_out
    adj: list[list[int]] = [[] for _ in range(size)]
    for a in range(n):
        mine = met[a]
        adj[a] = [b for b in range(n) if b != a and b not in mine]
    for d in range(n, size):
        allowed = [p for p in range(n) if eligible is None or eligible[p]]
        adj[d] = allowed
        for p in allowed:
            adj[p].append(d)
    match = _perfect_matching(adj)
    if match is None:
        return None
    pairs = [(a, match[a]) for a in range(n) if a < match[a] < n]
    out = sorted(a for a in range(n) if match[a] >= n)
    return pairs, out


def _perfect_matching(adj: list[list[int]]) -> list[int] | None:
    """A perfect matching as `match[v]`, or None if the graph has none (Edmonds)."""
    size = len(adj)
    match = [-1] * size
    for v in range(size):  # a greedy start leaves few vertices to augment
        if match[v] == -1:
            for u in adj[v]:
                if match[u] == -1:
                    match[v], match[u] = u, v
                    break
    for root in range(size):
        if match[root] == -1 and not _augment(adj, match, root):
            return None  # a vertex no augmenting path reaches stays unmatched in every matching
    return match


def _augment(adj: list[list[int]], match: list[int], root: int) -> bool:
    """Grow an alternating tree from `root`, contracting blossoms; flip the path if one ends
    at an unmatched vertex."""
    size = len(adj)
    used = [False] * size
    parent = [-1] * size
    base = list(range(size))
    used[root] = True
    queue = [root]

    def lca(a: int, b: int) -> int:
        seen = [False] * size
        while True:
            a = base[a]
            seen[a] = True
            if match[a] == -1:
                break
            a = parent[match[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[match[b]]

    def mark_path(v: int, b: int, child: int, blossom: list[bool]) -> None:
        while base[v] != b:
            blossom[base[v]] = blossom[base[match[v]]] = True
            parent[v] = child
            child = match[v]
            v = parent[match[v]]

    head = 0
    while head < len(queue):
        v = queue[head]
        head += 1
        for to in adj[v]:
            if base[v] == base[to] or match[v] == to:
                continue
            if to == root or (match[to] != -1 and parent[match[to]] != -1):
                current = lca(v, to)
                blossom = [False] * size
                mark_path(v, current, to, blossom)
                mark_path(to, current, v, blossom)
                for i in range(size):
                    if blossom[base[i]]:
                        base[i] = current
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if match[to] == -1:
                    while to != -1:  # flip the alternating path back to the root
                        prev = parent[to]
                        after = match[prev]
                        match[to], match[prev] = prev, to
                        to = after
                    return True
                used[match[to]] = True
                queue.append(match[to])
    return False
