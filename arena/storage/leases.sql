-- Named queries of arena.storage.leases: which referee hosts each unfinished match, under a lease.
-- Every claim bumps `lease_epoch`, the fencing token that the host's writes carry. Updates of
-- several rows lock them in id order first (the `FOR NO KEY UPDATE` CTEs), as a decision batch
-- does (`lock_lease_epochs`), so that two of them never deadlock.

-- name: claim_match
-- Take one unfinished match unless another host's live lease holds it.
UPDATE matches
SET host = %(host)s, lease_epoch = lease_epoch + 1, lease_expires = now() + %(lease)s::interval
WHERE id = %(match_id)s AND status IN ('pending', 'running')
  AND (host IS NULL OR host = %(host)s OR lease_expires IS NULL OR lease_expires < now())
RETURNING lease_epoch;

-- name: assign_match
-- Placement: a pending match is given to `host` (which then claims it), epoch unchanged.
UPDATE matches SET host = %(host)s, lease_expires = now() + %(lease)s::interval
WHERE id = %(match_id)s AND status = 'pending'
RETURNING id;

-- name: claim_own_matches
-- On a referee's (re)start: every unfinished match stored as hosted by it, under a new epoch.
WITH own AS (
    SELECT id FROM matches
    WHERE host = %(host)s AND status IN ('pending', 'running')
    ORDER BY id FOR NO KEY UPDATE
)
UPDATE matches AS m
SET lease_epoch = m.lease_epoch + 1, lease_expires = now() + %(lease)s::interval
FROM own WHERE m.id = own.id
RETURNING m.id, m.lease_epoch;

-- name: claim_lapsed_matches
-- Takeover: unfinished matches whose host died (lease lapsed) or released them (host NULL).
-- A pending match nobody claimed yet is left to its creator for one lease period. A match the
-- scanning host still runs (`running`) is not taken over from itself: its lease lapsed only
-- because the database was down, and the next renewal extends it. SKIP LOCKED:
-- two referees scanning at once take different matches.
WITH lapsed AS (
    SELECT id, host AS previous FROM matches
    WHERE status IN ('pending', 'running')
      AND (lease_expires < now()
           OR (host IS NULL
               AND (status = 'running' OR created_at < now() - %(lease)s::interval)))
      AND NOT (COALESCE(host = %(host)s, false) AND id = ANY(%(running)s::bigint[]))
    ORDER BY id
    LIMIT %(limit)s
    FOR NO KEY UPDATE SKIP LOCKED
)
UPDATE matches AS m
SET host = %(host)s, lease_epoch = m.lease_epoch + 1,
    lease_expires = now() + %(lease)s::interval
FROM lapsed WHERE m.id = lapsed.id
RETURNING m.id, m.lease_epoch, lapsed.previous;

-- name: renew_leases
-- Extend the leases `host` still holds under the given epochs (parallel arrays).
WITH held AS (
    SELECT m.id FROM matches AS m
    JOIN unnest(%(match_ids)s::bigint[], %(epochs)s::bigint[]) AS h (id, epoch)
      ON m.id = h.id AND m.lease_epoch = h.epoch
    WHERE m.host = %(host)s AND m.status IN ('pending', 'running')
    ORDER BY m.id FOR NO KEY UPDATE OF m
)
UPDATE matches AS m SET lease_expires = now() + %(lease)s::interval
FROM held WHERE m.id = held.id
RETURNING m.id;

-- name: release_matches
-- On a graceful stop (all, or those of `match_ids`): the referee's unfinished matches, for any
-- referee to resume at once.
WITH held AS (
    SELECT id FROM matches
    WHERE host = %(host)s AND status IN ('pending', 'running')
      AND (%(match_ids)s::bigint[] IS NULL OR id = ANY(%(match_ids)s::bigint[]))
    ORDER BY id FOR NO KEY UPDATE
)
UPDATE matches AS m SET host = NULL, lease_expires = NULL
FROM held WHERE m.id = held.id
RETURNING m.id;

-- name: match_hosts_of_bot
-- Where a bot plays: its unfinished matches and their hosts.
SELECT m.id, m.host FROM matches AS m
WHERE m.status IN ('pending', 'running')
  AND m.id IN (SELECT s.match_id FROM seats AS s WHERE s.bot_id = %(bot_id)s)
ORDER BY m.id;

-- name: match_host
SELECT host, lease_epoch FROM matches WHERE id = %(match_id)s;
