-- Rating writes without per-row foreign-key checks. Closing a round of 250 four-seat tables
-- writes 1,000 rating changes, and their key checks (bot, match) took nearly half of that insert
-- and a fifth of the round's rating path (bench/ratings.py part 5). The writer guarantees what
-- the keys checked on insert: `rating_store` writes a change only for a match it has just marked
-- rated in the same transaction (the UPDATE locks the row until commit) and only for bots whose
-- `ratings` row it writes in that transaction (that table keeps its key to `bots`). What the keys
-- guarded on delete is kept by the two statement triggers below: a bot or match with rating
-- changes still cannot be deleted, at no cost to inserts. Keys are bigserial ids, never updated.
ALTER TABLE rating_changes DROP CONSTRAINT rating_changes_bot_id_fkey;
ALTER TABLE rating_changes DROP CONSTRAINT rating_changes_match_id_fkey;

CREATE FUNCTION rating_changes_keep_bots() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM rating_changes AS rc JOIN gone ON rc.bot_id = gone.id) THEN
        RAISE foreign_key_violation USING MESSAGE = 'a bot with rating changes cannot be deleted';
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION rating_changes_keep_matches() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM rating_changes AS rc JOIN gone ON rc.match_id = gone.id) THEN
        RAISE foreign_key_violation USING MESSAGE = 'a rated match cannot be deleted';
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER bots_keep_rating_changes AFTER DELETE ON bots
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION rating_changes_keep_bots();
CREATE TRIGGER matches_keep_rating_changes AFTER DELETE ON matches
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT
    EXECUTE FUNCTION rating_changes_keep_matches();
