-- Named queries of accounts, API keys, bot ownership and versions, owners of tournaments,
-- schedules and ladders, and the audit log (loaded with queries.sql; migration 0010).

-- name: create_account
INSERT INTO accounts (name, role, password_hash)
VALUES (%(name)s, %(role)s::account_role, %(password_hash)s)
RETURNING id, name, role::text AS role, password_hash, created_at;

-- name: account_by_name
SELECT id, name, role::text AS role, password_hash, created_at FROM accounts
WHERE name = %(name)s;

-- name: first_admin
-- The account whose key ARENA_ADMIN_TOKEN is.
SELECT id, name, role::text AS role, password_hash, created_at FROM accounts
WHERE role = 'admin' ORDER BY id LIMIT 1;

-- name: set_account_role
UPDATE accounts SET role = %(role)s::account_role WHERE name = %(name)s
RETURNING id, name, role::text AS role, password_hash, created_at;

-- name: create_api_key
INSERT INTO api_keys (account_id, name, secret_hash, expires_at)
VALUES (%(account_id)s, %(name)s, %(secret_hash)s, %(expires_at)s)
RETURNING id, account_id, name, created_at, expires_at, revoked_at, last_used_at;

-- name: account_by_key
-- The account of a live key (not revoked, not expired). The digest is compared again in
-- constant time by the caller. `last_used_at` is written at most once a minute per key: a write
-- on every call made each keyed call wait for a commit's fsync (bench/auth.py, part 2).
WITH k AS (
    SELECT id, account_id, secret_hash, last_used_at FROM api_keys
    WHERE secret_hash = %(secret_hash)s AND revoked_at IS NULL
      AND (expires_at IS NULL OR expires_at > now())
), touched AS (
    UPDATE api_keys SET last_used_at = now() FROM k
    WHERE api_keys.id = k.id
      AND (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute')
)
SELECT a.id, a.name, a.role::text AS role, k.secret_hash
FROM k JOIN accounts AS a ON a.id = k.account_id;

-- name: list_api_keys
SELECT id, account_id, name, created_at, expires_at, revoked_at, last_used_at FROM api_keys
WHERE account_id = %(account_id)s ORDER BY id;

-- name: revoke_api_key
UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
WHERE account_id = %(account_id)s AND name = %(name)s
RETURNING id, account_id, name, created_at, expires_at, revoked_at, last_used_at;

-- name: revoke_api_key_by_hash
-- Signing out of the web: the session's own key.
UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE secret_hash = %(secret_hash)s;

-- name: bots_of_account
SELECT b.id, b.name, b.owner_id, a.name AS owner, b.retired_at, b.always_on,
       coalesce(h.runner, '') AS runner, st.cause AS stop_cause, st.detail AS stop_detail,
       st.runner AS stop_runner, st.stopped_at, coalesce(st.stops, 0) AS stops
FROM bots AS b JOIN accounts AS a ON a.id = b.owner_id
LEFT JOIN hosted_leases AS h ON h.bot_id = b.id AND h.lease_expires > now()
LEFT JOIN hosted_stops AS st ON st.bot_id = b.id
WHERE b.owner_id = %(account_id)s ORDER BY b.name;

-- name: bot_recent_matches_brief
-- A bot's latest ended matches, for its owner's private replays.
SELECT m.id, m.game, m.status::text AS status, s.seat
FROM seats AS s JOIN matches AS m ON m.id = s.match_id
WHERE s.bot_id = %(bot_id)s AND m.status IN ('finished', 'aborted')
ORDER BY m.id DESC LIMIT %(limit)s;

-- name: bot_ownership
SELECT b.id, b.name, b.owner_id, coalesce(a.name, '') AS owner, b.retired_at, b.always_on,
       coalesce(h.runner, '') AS runner
FROM bots AS b LEFT JOIN accounts AS a ON a.id = b.owner_id
LEFT JOIN hosted_leases AS h ON h.bot_id = b.id AND h.lease_expires > now()
WHERE b.name = %(name)s;

-- name: rotate_bot_token
UPDATE bots SET token_hash = %(token_hash)s WHERE id = %(bot_id)s RETURNING id;

-- name: open_entries_of_bot
-- The unfinished tournaments the bot is still entered in (a retiring bot withdraws from them).
SELECT e.tournament_id FROM entries AS e JOIN tournaments AS t ON t.id = e.tournament_id
WHERE e.bot_id = %(bot_id)s AND e.withdrawn_round IS NULL
  AND t.status IN ('scheduled', 'running')
ORDER BY e.tournament_id;

-- name: retire_bot
-- The bot and its versions' own bots (migration 0014).
UPDATE bots SET retired_at = coalesce(retired_at, now())
WHERE id = %(bot_id)s
   OR plays_version_id IN (SELECT v.id FROM bot_versions AS v WHERE v.bot_id = %(bot_id)s)
RETURNING id;

-- name: create_bot_version
INSERT INTO bot_versions (bot_id, label, notes, provisional)
VALUES (%(bot_id)s, %(label)s, %(notes)s, %(provisional)s)
RETURNING id, bot_id, label, notes, provisional, created_at, 0 AS matches,
          archive_sha256, run_command, NULL::bigint AS archive_bytes;

-- name: bot_versions
-- Newest (the one that plays) first, with the matches each played.
SELECT v.id, v.bot_id, v.label, v.notes, v.provisional, v.created_at,
       (SELECT count(*) FROM seats AS s WHERE s.version_id = v.id)::integer AS matches,
       v.archive_sha256, v.run_command,
       (SELECT octet_length(a.content) FROM bot_archives AS a
        WHERE a.sha256 = v.archive_sha256)::bigint AS archive_bytes
FROM bot_versions AS v WHERE v.bot_id = %(bot_id)s ORDER BY v.id DESC;

-- name: tournament_owner
SELECT owner_id FROM tournaments WHERE id = %(id)s;

-- name: schedule_owner
SELECT owner_id FROM schedules WHERE id = %(id)s;

-- name: ladder_owner
SELECT owner_id FROM ladders WHERE game = %(game)s;

-- name: claim_tournament
-- The creator of a new tournament owns it.
UPDATE tournaments SET owner_id = %(account_id)s WHERE id = %(id)s AND owner_id IS NULL;

-- name: claim_schedule
UPDATE schedules SET owner_id = %(account_id)s WHERE id = %(id)s AND owner_id IS NULL;

-- name: inherit_schedule_owner
-- A schedule's edition belongs to the schedule's owner.
UPDATE tournaments SET owner_id = s.owner_id FROM schedules AS s
WHERE tournaments.id = %(tournament_id)s AND s.id = %(schedule_id)s;

-- name: claim_ladder
UPDATE ladders SET owner_id = %(account_id)s WHERE game = %(game)s AND owner_id IS NULL;

-- name: insert_audit
INSERT INTO audit_log (account_id, actor, action, target, details)
VALUES (%(account_id)s, %(actor)s, %(action)s, %(target)s, %(details)s);

-- name: list_audit
-- Newest first; every entry, or one account's (`account_id` NULL: everyone's).
SELECT id, account_id, actor, action, target, details, created_at FROM audit_log
WHERE (%(account_id)s::bigint IS NULL OR account_id = %(account_id)s)
  AND (%(before_id)s::bigint IS NULL OR id < %(before_id)s)
ORDER BY id DESC LIMIT %(limit)s;
