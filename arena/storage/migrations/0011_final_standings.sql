-- Standings that do not move after the event. The last tie-break is a bot's rating; it was read
-- live, so two bots tied in a finished tournament swapped places after a later ad-hoc match.
-- Each standings row now keeps the rating as it stood when its tournament's last round closed
-- (written with the row, `upsert_standings`); a row not yet written by a closed round has none
-- and breaks ties by the current rating. Finished tournaments' rows get today's ratings: the
-- best this migration can recover, and from now on they stay.
ALTER TABLE standings ADD COLUMN rating double precision;

UPDATE standings AS st SET rating = r.rating
FROM tournaments AS t, ratings AS r
WHERE t.id = st.tournament_id AND t.status = 'finished'
  AND r.bot_id = st.bot_id AND r.game = t.game;

-- The home page's recent matches, by the time they finished.
CREATE INDEX matches_finished_idx ON matches (finished_at DESC, id DESC) WHERE status = 'finished';
