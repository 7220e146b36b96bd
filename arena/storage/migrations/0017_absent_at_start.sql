-- Which seats' bots were not connected when their match started (the match waited its connect
-- timeout and began without them). A version test does not count a set in which one was: the
-- absence says nothing of the versions' strength (issue 29; a referee killed mid-test once made
-- two bots miss a match and their strikes were counted as the other version's wins).
ALTER TABLE seats ADD COLUMN absent_at_start boolean NOT NULL DEFAULT false;
