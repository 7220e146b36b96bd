-- Many referees, one arena: each unfinished match is hosted under a lease that its host renews.
-- `lease_epoch` is the fencing token: every claim bumps it, and every write of a host (decisions,
-- start, finish) is checked against it in the same transaction, so a host that lost its lease
-- (paused, partitioned) can never write after another referee took the match over.
-- `lease_expires` NULL means no lease. `decisions.epoch` keeps the writing host's epoch, for audit.
ALTER TABLE matches
    ADD COLUMN lease_epoch bigint NOT NULL DEFAULT 0,
    ADD COLUMN lease_expires timestamptz;
ALTER TABLE decisions ADD COLUMN epoch bigint NOT NULL DEFAULT 0;
-- Finds the leases that lapsed among unfinished matches (`claim_lapsed_matches`); released
-- matches (host NULL) are found through `matches_active_idx`.
CREATE INDEX matches_lease_idx ON matches (lease_expires) WHERE status IN ('pending', 'running');
