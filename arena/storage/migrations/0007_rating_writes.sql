-- Rating writes: a rating change's match already names its tournament, and that column has its
-- own foreign key, so `rating_changes.tournament_id` needs no second check per written row (it
-- cost about a sixth of a closed round's rating writes; bench/ratings.py part 5).
ALTER TABLE rating_changes DROP CONSTRAINT rating_changes_tournament_id_fkey;
