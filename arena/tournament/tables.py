"""A round's tables as the tournament sees them: who sits where, and the match that decides it."""

from __future__ import annotations

from dataclasses import dataclass

from arena.storage import Database, MatchStatus
from arena.storage.tournaments import TableRow, table_rows

MAX_ATTEMPTS = 2
"""A table whose match aborts is replayed once; the schema's `matches_attempt_check` agrees."""


@dataclass(frozen=True, slots=True)
class Table:
    """One table of a round."""

    round_no: int
    table_no: int
    bot_ids: tuple[int, ...]
    match_id: int | None = None
    """The latest attempt's match (None before the table is hosted)."""
    match_status: MatchStatus | None = None
    ranks: tuple[int, ...] = ()
    attempt: int = 0
    """1 for the first match, 2 for the replay after it aborted (0 before the table is hosted)."""

    @property
    def is_over(self) -> bool:
        """Whether the table is decided: its match finished, or its replay aborted too."""
        return self.match_status is MatchStatus.FINISHED or (
            self.match_status is MatchStatus.ABORTED and self.attempt >= MAX_ATTEMPTS
        )

    @property
    def needs_replay(self) -> bool:
        """Whether the table's first match aborted and its one replay has not been created."""
        return self.match_status is MatchStatus.ABORTED and self.attempt < MAX_ATTEMPTS

    @classmethod
    def of(cls, round_no: int, row: TableRow) -> Table:
        """The table from its stored row."""
        return cls(
            round_no=round_no,
            table_no=row.table_no,
            bot_ids=tuple(row.bot_ids),
            match_id=row.match_id,
            match_status=row.match_status,
            ranks=_ranks(row),
            attempt=row.attempt,
        )


def _ranks(row: TableRow) -> tuple[int, ...]:
    """The seats' ranks; a table whose replay aborted too scores as a tie of every seat
    (docs/tournaments.md, "Aborted tables"), and an aborted first attempt has none yet."""
    if row.match_status is MatchStatus.ABORTED:
        return tuple(1 for _ in row.bot_ids) if row.attempt >= MAX_ATTEMPTS else ()
    return tuple(x for x in row.ranks if x is not None)


async def tables(db: Database, tournament_id: int, round_no: int) -> tuple[Table, ...]:
    """The tables of a round with their matches' status and ranks."""
    return tuple(Table.of(round_no, r) for r in await table_rows(db, tournament_id, round_no))


async def progress(db: Database, tournament_id: int, current_round: int) -> tuple[int, int]:
    """(decided tables, all tables) of `current_round` ((0, 0) before the first round)."""
    if current_round == 0:
        return 0, 0
    current = await tables(db, tournament_id, current_round)
    return sum(t.is_over for t in current), len(current)
