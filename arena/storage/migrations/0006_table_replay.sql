-- A tournament table whose match aborted is replayed once: a table holds at most two attempts,
-- and the second is created only after the first aborted (docs/tournaments.md, "Aborted tables").
ALTER TABLE matches
    ADD COLUMN attempt integer NOT NULL DEFAULT 1,
    DROP CONSTRAINT matches_table_key,
    ADD CONSTRAINT matches_table_key UNIQUE (tournament_id, round_no, table_no, attempt),
    ADD CONSTRAINT matches_attempt_check CHECK (attempt BETWEEN 1 AND 2);
