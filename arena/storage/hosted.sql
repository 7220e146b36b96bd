-- Named queries of hosted bots: uploaded archives, their pieces, hosted versions.

-- name: lock_archive_upload
-- One upload per (bot, archive) at a time, until the transaction ends.
SELECT pg_advisory_xact_lock(hashtextextended(%(bot_id)s::text || encode(%(sha256)s, 'hex'), 0));

-- name: archive_received
SELECT coalesce(sum(octet_length(data)), 0)::bigint FROM bot_archive_parts
WHERE bot_id = %(bot_id)s AND sha256 = %(sha256)s;

-- name: add_archive_part
INSERT INTO bot_archive_parts (bot_id, sha256, "offset", data)
VALUES (%(bot_id)s, %(sha256)s, %(offset)s, %(data)s);

-- name: assembled_archive
SELECT string_agg(data, ''::bytea ORDER BY "offset") FROM bot_archive_parts
WHERE bot_id = %(bot_id)s AND sha256 = %(sha256)s;

-- name: drop_archive_parts
DELETE FROM bot_archive_parts WHERE bot_id = %(bot_id)s AND sha256 = %(sha256)s;

-- name: store_archive
INSERT INTO bot_archives (sha256, content) VALUES (%(sha256)s, %(content)s)
ON CONFLICT (sha256) DO NOTHING;

-- name: archive_content
SELECT content FROM bot_archives WHERE sha256 = %(sha256)s;

-- name: create_hosted_version
INSERT INTO bot_versions (bot_id, label, notes, archive_sha256, run_command)
VALUES (%(bot_id)s, %(label)s, %(notes)s, %(sha256)s, %(run)s)
RETURNING id, bot_id, label, notes, provisional, created_at, 0 AS matches,
          archive_sha256, run_command,
          (SELECT octet_length(content) FROM bot_archives WHERE sha256 = %(sha256)s)::bigint
          AS archive_bytes;

-- name: match_output
SELECT lines, dropped FROM match_output WHERE match_id = %(match_id)s AND bot_id = %(bot_id)s;

-- name: decision_times
SELECT number, created_at FROM decisions WHERE match_id = %(match_id)s ORDER BY number;
