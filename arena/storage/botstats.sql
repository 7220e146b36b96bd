-- Named queries of a bot's statistics (loaded with queries.sql): what `arena bot stats`, the
-- GetBotStats RPC and the web Bot page show. Each takes the bot's id and, to count one version's
-- matches only, a version label (NULL: every version).

-- name: bot_results
-- Finished matches per game and rank: how often the bot placed where, with its strikes.
SELECT m.game, s.rank, count(*) AS matches, sum(s.strikes)::bigint AS strikes,
       count(*) FILTER (WHERE s.forfeited) AS forfeits, avg(s.score) AS mean_score
FROM seats AS s JOIN matches AS m ON m.id = s.match_id
WHERE s.bot_id = %(bot_id)s AND m.status = 'finished'
  AND (%(version)s::text IS NULL OR s.version_id = (
      SELECT v.id FROM bot_versions AS v WHERE v.bot_id = %(bot_id)s AND v.label = %(version)s))
GROUP BY m.game, s.rank
ORDER BY m.game, s.rank;

-- name: bot_ratings
SELECT game, rating, games FROM ratings WHERE bot_id = %(bot_id)s ORDER BY game;

-- name: bot_rating_history
-- The latest `limit` rating changes per game, oldest first.
SELECT game, match_id, before, after, delta, created_at
FROM (
    SELECT rc.*, row_number() OVER (PARTITION BY game ORDER BY created_at DESC, match_id DESC) AS n
    FROM rating_changes AS rc WHERE rc.bot_id = %(bot_id)s
      AND (%(version)s::text IS NULL OR rc.match_id IN (
          SELECT s.match_id FROM seats AS s JOIN bot_versions AS v ON v.id = s.version_id
          WHERE s.bot_id = %(bot_id)s AND v.label = %(version)s))
) AS latest
WHERE n <= %(limit)s
ORDER BY game, created_at, match_id;

-- name: bot_think_times
-- Percentiles of the time the bot took per answered decision (seconds), per game, over matches
-- that have ended (a running match's timing and Problems stay private until its end).
SELECT m.game, count(*) AS decisions,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY t.seconds) AS p50,
       percentile_cont(0.9) WITHIN GROUP (ORDER BY t.seconds) AS p90,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY t.seconds) AS p99,
       max(t.seconds) AS max
FROM seats AS s
JOIN matches AS m ON m.id = s.match_id
JOIN decisions AS d ON d.match_id = s.match_id
CROSS JOIN LATERAL (SELECT (d.elapsed ->> s.seat::text)::double precision AS seconds) AS t
WHERE s.bot_id = %(bot_id)s AND t.seconds > 0 AND m.status IN ('finished', 'aborted')
  AND (%(version)s::text IS NULL OR s.version_id = (
      SELECT v.id FROM bot_versions AS v WHERE v.bot_id = %(bot_id)s AND v.label = %(version)s))
GROUP BY m.game
ORDER BY m.game;

-- name: bot_strikes
-- Every strike of the bot in matches that have ended, newest first, with its kind: the tag before the first ': ' of the
-- stored note ("timeout: no answer ..."); older untagged notes are classified by their text.
SELECT m.game, d.match_id, d.number AS decision, s.seat, d.created_at,
       CASE
           WHEN n.note ~ '^[a-z_]+: ' THEN split_part(n.note, ': ', 1)
           WHEN n.note LIKE 'no answer%%' THEN 'timeout'
           ELSE 'unknown'
       END AS kind,
       CASE WHEN n.note ~ '^[a-z_]+: ' THEN substr(n.note, strpos(n.note, ': ') + 2)
            ELSE n.note END AS message
FROM seats AS s
JOIN matches AS m ON m.id = s.match_id
JOIN decisions AS d ON d.match_id = s.match_id
CROSS JOIN LATERAL (SELECT d.strikes ->> s.seat::text AS note) AS n
WHERE s.bot_id = %(bot_id)s AND n.note IS NOT NULL AND m.status IN ('finished', 'aborted')
  AND (%(version)s::text IS NULL OR s.version_id = (
      SELECT v.id FROM bot_versions AS v WHERE v.bot_id = %(bot_id)s AND v.label = %(version)s))
ORDER BY d.created_at DESC, d.match_id DESC, d.number DESC;

-- name: bot_recent_matches
-- The bot's latest matches (any status), newest first, with its seat, result and rating change.
SELECT m.id AS match_id, m.game, m.status::text AS status, m.seats, m.tournament_id,
       m.finished_at, m.created_at, s.seat, s.rank, s.score, s.strikes, s.forfeited,
       rc.delta AS rating_delta, coalesce(v.label, '') AS version
FROM seats AS s
JOIN matches AS m ON m.id = s.match_id
LEFT JOIN rating_changes AS rc ON rc.match_id = s.match_id AND rc.bot_id = s.bot_id
LEFT JOIN bot_versions AS v ON v.id = s.version_id
WHERE s.bot_id = %(bot_id)s
  AND (%(version)s::text IS NULL OR s.version_id = (
      SELECT v.id FROM bot_versions AS v WHERE v.bot_id = %(bot_id)s AND v.label = %(version)s))
ORDER BY m.id DESC
LIMIT %(limit)s;

-- name: rating_trends
-- The latest `points` ratings (after each rated match) of some bots in one game, oldest first.
SELECT bot_id, after
FROM (
    SELECT bot_id, after, created_at, match_id,
           row_number() OVER (PARTITION BY bot_id ORDER BY created_at DESC, match_id DESC) AS n
    FROM rating_changes
    WHERE game = %(game)s AND bot_id = ANY(%(bot_ids)s::bigint[])
) AS latest
WHERE n <= %(points)s
ORDER BY bot_id, created_at, match_id;

-- name: bot_version_labels
SELECT label FROM bot_versions WHERE bot_id = %(bot_id)s ORDER BY id;
