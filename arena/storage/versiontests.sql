-- Version tests (issue 29): tests, their paired sets and the sets' matches.

-- name: insert_version_test
INSERT INTO version_tests (game, options, clock, seats, candidate_id, baseline_id, filler_ids,
                           elo0, elo1, alpha, beta, max_matches, in_flight, seed, owner_id)
VALUES (%(game)s, %(options)s, %(clock)s, %(seats)s, %(candidate_id)s, %(baseline_id)s,
        %(filler_ids)s, %(elo0)s, %(elo1)s, %(alpha)s, %(beta)s, %(max_matches)s,
        %(in_flight)s, %(seed)s, %(owner_id)s)
RETURNING id;

-- name: bot_version_by_label
-- A bot (not a version's own bot, not retired) and its version of that label (NULL: none).
SELECT b.id, b.owner_id, v.id AS version_id
FROM bots AS b LEFT JOIN bot_versions AS v ON v.bot_id = b.id AND v.label = %(label)s
WHERE b.name = %(name)s AND b.plays_version_id IS NULL AND b.retired_at IS NULL;

-- name: version_bot
-- A version's own bot (migration 0014), made on first use; its id.
WITH made AS (
    INSERT INTO bots (name, token_hash, owner_id, plays_version_id)
    VALUES (%(name)s, %(token_hash)s, %(owner_id)s, %(version_id)s)
    ON CONFLICT (plays_version_id) DO NOTHING
    RETURNING id
)
SELECT id FROM made
UNION ALL SELECT id FROM bots WHERE plays_version_id = %(version_id)s
LIMIT 1;

-- name: version_test_sides
-- Who may manage a test: its owner, and the owners of its sides (a version's own bot belongs to
-- the bot's owner).
SELECT t.owner_id, c.owner_id AS candidate_owner, b.owner_id AS baseline_owner
FROM version_tests t JOIN bots c ON c.id = t.candidate_id JOIN bots b ON b.id = t.baseline_id
WHERE t.id = %(test_id)s;

-- name: list_version_tests
-- The newest tests first, with their sides' names and how many sets were counted.
SELECT t.id, t.game, t.seats, t.status, t.llr, t.elo0, t.elo1, t.alpha, t.beta, t.created_at,
       t.finished_at,
       c.name AS candidate, b.name AS baseline, coalesce(o.name, '') AS owner,
       (SELECT count(*) FROM version_test_sets s
        WHERE s.test_id = t.id AND s.status = 'counted')::integer AS sets_counted
FROM version_tests t JOIN bots c ON c.id = t.candidate_id JOIN bots b ON b.id = t.baseline_id
LEFT JOIN accounts o ON o.id = t.owner_id
WHERE (%(status)s::text IS NULL OR t.status = %(status)s::text)
ORDER BY t.id DESC
LIMIT %(limit)s;

-- name: version_test
SELECT t.*, c.name AS candidate, b.name AS baseline,
       (SELECT a.name FROM accounts a WHERE a.id = t.owner_id) AS owner,
       ARRAY(SELECT f.name FROM unnest(t.filler_ids) WITH ORDINALITY AS u(id, k)
             JOIN bots f ON f.id = u.id ORDER BY u.k) AS fillers
FROM version_tests t JOIN bots c ON c.id = t.candidate_id JOIN bots b ON b.id = t.baseline_id
WHERE t.id = %(test_id)s;

-- name: stop_version_test
UPDATE version_tests SET status = 'stopped', finished_at = now()
WHERE id = %(test_id)s AND status = 'running' RETURNING id;

-- name: running_version_tests_for_update
-- One tick at a time per test: a racing tick skips the tests another holds.
SELECT id FROM version_tests WHERE status = 'running' ORDER BY id FOR UPDATE SKIP LOCKED;

-- name: version_test_playing
-- The matches of every playing set's current attempt, with the candidate's and the baseline's
-- ranks once finished, and whether it started without one of its bots.
SELECT s.set_no, s.attempt, vm.game_no, m.status::text AS status, sc.rank AS candidate_rank,
       sb.rank AS baseline_rank,
       EXISTS (SELECT 1 FROM seats x WHERE x.match_id = m.id AND x.absent_at_start) AS absent
FROM version_test_sets s
JOIN version_tests t ON t.id = s.test_id
JOIN version_test_matches vm
  ON vm.test_id = s.test_id AND vm.set_no = s.set_no AND vm.attempt = s.attempt
JOIN matches m ON m.id = vm.match_id
LEFT JOIN seats sc ON sc.match_id = m.id AND sc.bot_id = t.candidate_id
LEFT JOIN seats sb ON sb.match_id = m.id AND sb.bot_id = t.baseline_id
WHERE s.test_id = %(test_id)s AND s.status = 'playing'
ORDER BY s.set_no, vm.game_no;

-- name: count_version_test_set
UPDATE version_test_sets SET status = 'counted', score = %(score)s, llr = %(llr)s,
    counted_at = now()
WHERE test_id = %(test_id)s AND set_no = %(set_no)s AND status = 'playing';

-- name: replay_version_test_set
UPDATE version_test_sets SET attempt = 2
WHERE test_id = %(test_id)s AND set_no = %(set_no)s AND status = 'playing' AND attempt = 1;

-- name: void_version_test_set
UPDATE version_test_sets SET status = 'void'
WHERE test_id = %(test_id)s AND set_no = %(set_no)s AND status = 'playing';

-- name: version_test_scores
SELECT score, count(*) FROM version_test_sets
WHERE test_id = %(test_id)s AND status = 'counted' GROUP BY score;

-- name: settle_version_test
UPDATE version_tests SET llr = %(llr)s, status = %(status)s,
    finished_at = CASE WHEN %(status)s = 'running' THEN NULL ELSE now() END
WHERE id = %(test_id)s AND status = 'running';

-- name: version_test_unplayed
-- Playing sets whose current attempt has no matches yet (new sets and replays).
SELECT s.set_no, s.attempt FROM version_test_sets s
WHERE s.test_id = %(test_id)s AND s.status = 'playing'
  AND NOT EXISTS (SELECT 1 FROM version_test_matches vm WHERE vm.test_id = s.test_id
                  AND vm.set_no = s.set_no AND vm.attempt = s.attempt)
ORDER BY s.set_no;

-- name: version_test_progress
-- Sets playing now and the next set number.
SELECT count(*) FILTER (WHERE status = 'playing'), coalesce(max(set_no) + 1, 0)
FROM version_test_sets WHERE test_id = %(test_id)s;

-- name: insert_version_test_set
INSERT INTO version_test_sets (test_id, set_no) VALUES (%(test_id)s, %(set_no)s)
ON CONFLICT DO NOTHING;

-- name: record_version_test_match
INSERT INTO version_test_matches (match_id, test_id, set_no, attempt, game_no)
VALUES (%(match_id)s, %(test_id)s, %(set_no)s, %(attempt)s, %(game_no)s)
ON CONFLICT DO NOTHING;

-- name: version_test_sets
SELECT set_no, attempt, status, score, llr, counted_at FROM version_test_sets
WHERE test_id = %(test_id)s ORDER BY set_no;

-- name: version_test_matches
SELECT vm.set_no, vm.attempt, vm.game_no, vm.match_id, m.status::text AS status
FROM version_test_matches vm JOIN matches m ON m.id = vm.match_id
WHERE vm.test_id = %(test_id)s ORDER BY vm.set_no, vm.attempt, vm.game_no;
