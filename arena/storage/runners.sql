-- Named queries of arena.storage.runners: live runners and the leases of hosted bots.

-- name: runner_heartbeat
INSERT INTO runners (name, bots_running, restarts) VALUES (%(name)s, %(running)s, %(restarts)s)
ON CONFLICT (name) DO UPDATE
SET seen_at = now(), bots_running = excluded.bots_running, restarts = excluded.restarts;

-- name: list_runners
SELECT name, started_at, seen_at, bots_running, restarts FROM runners ORDER BY name;

-- name: needed_hosted_bots
-- Bots whose playing version (a version's own bot's version, else the newest) is hosted, not
-- retired, and needed: always on, entered in a scheduled or running tournament, a side or filler
-- of a running version test, or any ladder is running (a ladder plays connected bots; not a
-- version's own bot, which runs for its tests and tournaments only).
SELECT b.id FROM bots AS b
JOIN LATERAL (SELECT v.archive_sha256 FROM bot_versions AS v
              WHERE v.id = b.plays_version_id OR (b.plays_version_id IS NULL AND v.bot_id = b.id)
              ORDER BY v.id DESC LIMIT 1) AS playing ON playing.archive_sha256 IS NOT NULL
WHERE b.retired_at IS NULL
  AND (b.always_on
       OR EXISTS (SELECT 1 FROM entries AS e JOIN tournaments AS t ON t.id = e.tournament_id
                  WHERE e.bot_id = b.id AND e.withdrawn_round IS NULL
                    AND t.status IN ('scheduled', 'running'))
       OR EXISTS (SELECT 1 FROM version_tests AS vt WHERE vt.status = 'running'
                  AND (b.id IN (vt.candidate_id, vt.baseline_id) OR b.id = ANY(vt.filler_ids)))
       OR (b.plays_version_id IS NULL AND EXISTS (SELECT 1 FROM ladders WHERE active)))
ORDER BY b.id;

-- name: claim_hosted_bots
-- Take needed bots that no live lease holds (never leased, lapsed, or already this runner's);
-- `previous` is the runner whose lapsed lease was taken over (NULL for a free bot or our own).
WITH before AS (
    SELECT bot_id, runner FROM hosted_leases WHERE bot_id = ANY(%(bot_ids)s::bigint[])
)
INSERT INTO hosted_leases AS h (bot_id, runner, lease_expires)
SELECT id, %(runner)s, now() + %(lease)s::interval
FROM unnest(%(bot_ids)s::bigint[]) AS id
ON CONFLICT (bot_id) DO UPDATE
SET runner = excluded.runner, epoch = h.epoch + 1, lease_expires = excluded.lease_expires
WHERE h.lease_expires < now() OR h.runner = excluded.runner
RETURNING h.bot_id, h.epoch,
    (SELECT b.runner FROM before AS b WHERE b.bot_id = h.bot_id AND b.runner <> h.runner)
        AS previous;

-- name: renew_hosted_leases
UPDATE hosted_leases SET lease_expires = now() + %(lease)s::interval
WHERE runner = %(runner)s AND bot_id = ANY(%(bot_ids)s::bigint[])
RETURNING bot_id;

-- name: release_hosted_lease
DELETE FROM hosted_leases WHERE runner = %(runner)s AND bot_id = %(bot_id)s;

-- name: hosted_launch
-- What a runner needs to start a bot: its name and its playing version's archive and command
-- (a version's own bot plays its version, migration 0014; any other bot its newest).
SELECT b.id AS bot_id, b.name, v.label, v.archive_sha256, v.run_command,
       v.created_at AS uploaded_at
FROM bots AS b
JOIN LATERAL (SELECT * FROM bot_versions AS v
              WHERE v.id = b.plays_version_id OR (b.plays_version_id IS NULL AND v.bot_id = b.id)
              ORDER BY v.id DESC LIMIT 1)
  AS v ON v.archive_sha256 IS NOT NULL
WHERE b.id = %(bot_id)s;

-- name: set_always_on
UPDATE bots SET always_on = %(always_on)s WHERE id = %(bot_id)s RETURNING id;

-- name: ended_hosted_matches
-- Recent matches of these bots that ended a second or more and at most %(within)s ago (what a
-- bot prints on MatchEnd arrives just after the end) and whose output is not saved yet; each
-- bot's latest 50 seats are looked at, by the seats_bot_idx index.
SELECT DISTINCT m.id AS match_id, b.bot_id, m.started_at, m.finished_at
FROM unnest(%(bot_ids)s::bigint[]) AS b (bot_id)
CROSS JOIN LATERAL (SELECT s.match_id FROM seats AS s WHERE s.bot_id = b.bot_id
                    ORDER BY s.match_id DESC LIMIT 50) AS recent
JOIN matches AS m ON m.id = recent.match_id
WHERE m.status IN ('finished', 'aborted') AND m.started_at IS NOT NULL
  AND m.finished_at > now() - %(within)s::interval AND m.finished_at < now() - interval '1 second'
  AND NOT EXISTS (SELECT 1 FROM match_output AS o WHERE o.match_id = m.id AND o.bot_id = b.bot_id)
ORDER BY m.id;

-- name: save_match_output
INSERT INTO match_output (match_id, bot_id, lines, dropped)
VALUES (%(match_id)s, %(bot_id)s, %(lines)s, %(dropped)s)
ON CONFLICT (match_id, bot_id) DO NOTHING;

-- name: note_hosted_stop
INSERT INTO hosted_stops AS s (bot_id, runner, cause, detail)
VALUES (%(bot_id)s, %(runner)s, %(cause)s, %(detail)s)
ON CONFLICT (bot_id) DO UPDATE
SET runner = excluded.runner, cause = excluded.cause, detail = excluded.detail,
    stopped_at = now(), stops = s.stops + 1;

-- name: recent_hosted_stops
-- The hosted bots' last stops within %(within)s, newest first.
SELECT b.name AS bot, s.runner, s.cause, s.detail, s.stopped_at, s.stops
FROM hosted_stops AS s JOIN bots AS b ON b.id = s.bot_id
WHERE s.stopped_at > now() - %(within)s::interval
ORDER BY s.stopped_at DESC LIMIT %(limit)s;
