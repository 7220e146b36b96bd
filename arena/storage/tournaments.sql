-- Named queries of tournaments, ratings and leaderboards (loaded with queries.sql).

-- name: create_tournament
INSERT INTO tournaments (name, game, options, table_size, rounds, clock, starts_at, seed,
                         format, rating_system, forfeit_limit)
VALUES (%(name)s, %(game)s, %(options)s, %(table_size)s, %(rounds)s, %(clock)s, %(starts_at)s,
        %(seed)s, %(format)s, %(rating_system)s, %(forfeit_limit)s)
RETURNING id;

-- name: create_entries
INSERT INTO entries (tournament_id, bot_id)
SELECT %(tournament_id)s, unnest(%(bot_ids)s::bigint[]);

-- name: create_standings
INSERT INTO standings (tournament_id, bot_id)
SELECT %(tournament_id)s, unnest(%(bot_ids)s::bigint[]);

-- name: tournament
SELECT id, name, game, options, table_size, rounds, clock, starts_at, status, seed,
       current_round, created_at, finished_at, format, rating_system, forfeit_limit
FROM tournaments WHERE id = %(tournament_id)s;

-- name: tournament_for_update
SELECT id, name, game, options, table_size, rounds, clock, starts_at, status, seed,
       current_round, created_at, finished_at, format, rating_system, forfeit_limit
FROM tournaments WHERE id = %(tournament_id)s FOR UPDATE;

-- name: list_tournaments
SELECT id, name, game, options, table_size, rounds, clock, starts_at, status, seed,
       current_round, created_at, finished_at, format, rating_system, forfeit_limit
FROM tournaments
WHERE (%(status)s::tournament_status IS NULL OR status = %(status)s::tournament_status)
ORDER BY id DESC LIMIT %(limit)s;

-- name: due_tournaments
SELECT id FROM tournaments
WHERE status = 'scheduled' AND starts_at <= now()
ORDER BY starts_at, id;

-- name: running_tournaments
SELECT id FROM tournaments WHERE status = 'running' ORDER BY id;

-- name: set_tournament_running
UPDATE tournaments SET status = 'running'
WHERE id = %(tournament_id)s AND status = 'scheduled'
RETURNING id;

-- name: set_current_round
UPDATE tournaments SET current_round = %(round_no)s
WHERE id = %(tournament_id)s AND current_round < %(round_no)s;

-- name: finish_tournament
UPDATE tournaments SET status = 'finished', finished_at = now()
WHERE id = %(tournament_id)s AND status = 'running'
RETURNING id;

-- name: entry_bots
SELECT e.bot_id, b.name FROM entries e JOIN bots b ON b.id = e.bot_id
WHERE e.tournament_id = %(tournament_id)s ORDER BY e.bot_id;

-- name: create_round
INSERT INTO rounds (tournament_id, round_no, status)
VALUES (%(tournament_id)s, %(round_no)s, 'playing')
ON CONFLICT (tournament_id, round_no) DO NOTHING
RETURNING round_no;

-- name: round_for_update
SELECT round_no, status, started_at, finished_at, dispatched_at
FROM rounds WHERE tournament_id = %(tournament_id)s AND round_no = %(round_no)s FOR UPDATE;

-- name: rounds
SELECT round_no, status, started_at, finished_at, dispatched_at
FROM rounds WHERE tournament_id = %(tournament_id)s ORDER BY round_no;

-- name: mark_dispatched
UPDATE rounds SET dispatched_at = now()
WHERE tournament_id = %(tournament_id)s AND round_no = %(round_no)s;

-- name: finish_round
UPDATE rounds SET status = 'finished', finished_at = now()
WHERE tournament_id = %(tournament_id)s AND round_no = %(round_no)s AND status <> 'finished'
RETURNING round_no;

-- name: create_table
INSERT INTO tournament_tables (tournament_id, round_no, table_no, bot_ids)
VALUES (%(tournament_id)s, %(round_no)s, %(table_no)s, %(bot_ids)s)
ON CONFLICT DO NOTHING;

-- name: create_bye
INSERT INTO byes (tournament_id, round_no, bot_id)
VALUES (%(tournament_id)s, %(round_no)s, %(bot_id)s)
ON CONFLICT DO NOTHING;

-- name: round_tables
-- Each table with its latest attempt's match (a table aborted once is replayed once).
SELECT t.table_no, t.bot_ids, m.id AS match_id, m.status AS match_status,
       coalesce(m.attempt, 0) AS attempt,
       coalesce(array_agg(s.rank ORDER BY s.seat) FILTER (WHERE s.seat IS NOT NULL), '{}')
           AS ranks
FROM tournament_tables t
LEFT JOIN LATERAL (
    SELECT id, status, attempt FROM matches
    WHERE tournament_id = t.tournament_id AND round_no = t.round_no AND table_no = t.table_no
    ORDER BY attempt DESC LIMIT 1
) m ON true
LEFT JOIN seats s ON s.match_id = m.id
WHERE t.tournament_id = %(tournament_id)s AND t.round_no = %(round_no)s
GROUP BY t.table_no, t.bot_ids, m.id, m.status, m.attempt
ORDER BY t.table_no;

-- name: round_byes
SELECT bot_id FROM byes
WHERE tournament_id = %(tournament_id)s AND round_no = %(round_no)s ORDER BY bot_id;

-- name: ratings_for_update
-- `k_games` is what the provisional K follows: the bot's rated games, or, when its newest
-- version started provisional, that version's rated games in this game (migration 0010).
SELECT r.bot_id, r.rating, r.games, coalesce(pv.games, r.games) AS k_games
FROM ratings AS r
LEFT JOIN LATERAL (
    SELECT count(rc.match_id)::integer AS games
    FROM (
        SELECT id, provisional FROM bot_versions WHERE bot_id = r.bot_id ORDER BY id DESC LIMIT 1
    ) AS v
    LEFT JOIN seats AS s ON v.provisional AND s.bot_id = r.bot_id AND s.version_id = v.id
    LEFT JOIN rating_changes AS rc
        ON rc.match_id = s.match_id AND rc.bot_id = r.bot_id AND rc.game = r.game
    HAVING bool_or(v.provisional)
) AS pv ON true
WHERE r.game = %(game)s AND r.bot_id = ANY(%(bot_ids)s::bigint[])
ORDER BY r.bot_id FOR UPDATE OF r;

-- name: ratings_of
SELECT bot_id, rating, games FROM ratings
WHERE game = %(game)s AND bot_id = ANY(%(bot_ids)s::bigint[]);

-- name: mark_rated
UPDATE matches SET rated = true WHERE id = %(match_id)s AND NOT rated RETURNING id;

-- name: mark_rated_many
-- A closed round's finished matches in one statement; returns those not rated before.
UPDATE matches SET rated = true
WHERE id = ANY(%(match_ids)s::bigint[]) AND status = 'finished' AND NOT rated
RETURNING id;

-- name: match_for_rating
SELECT id, game, status, rated, tournament_id
FROM matches WHERE id = %(match_id)s FOR UPDATE;

-- name: match_ranks
SELECT s.bot_id, s.rank FROM seats s WHERE s.match_id = %(match_id)s ORDER BY s.seat;

-- name: upsert_standings
-- Every entrant's line in one statement (arrays in step). `points` is the exact score in 1/120
-- points; the tie-break is exactly opponents_points / opponents (the opponents' mean score);
-- score and tiebreak are for display. `rating` keeps each bot's rating as it stands now, when
-- the round closes: the last tie-break, frozen, so later matches do not reorder the standings.
INSERT INTO standings (tournament_id, bot_id, score, tiebreak, byes, short_tables, rounds_played,
                       points, opponents_points, opponents, rating)
SELECT %(tournament_id)s, s.*,
       (SELECT r.rating FROM ratings AS r JOIN tournaments AS t ON t.game = r.game
        WHERE t.id = %(tournament_id)s AND r.bot_id = s.bot_id)
FROM unnest(%(bot_ids)s::bigint[], %(scores)s::float8[], %(tiebreaks)s::float8[],
            %(byes)s::int[], %(short_tables)s::int[], %(rounds_played)s::int[],
            %(points)s::bigint[], %(opponents_points)s::bigint[], %(opponents)s::int[])
     AS s(bot_id, score, tiebreak, byes, short_tables, rounds_played, points, opponents_points,
          opponents)
ON CONFLICT (tournament_id, bot_id) DO UPDATE SET
    score = excluded.score, tiebreak = excluded.tiebreak, byes = excluded.byes,
    short_tables = excluded.short_tables, rounds_played = excluded.rounds_played,
    points = excluded.points, opponents_points = excluded.opponents_points,
    opponents = excluded.opponents, rating = excluded.rating;

-- name: standings
-- Ordered exactly: whole points, then the tie-break as a ratio of integers (numeric division
-- keeps 16+ significant digits, so two different ratios of such counts never compare equal),
-- then the rating as it stood when the last round closed (the current one before any has).
SELECT st.bot_id, b.name, st.score, st.tiebreak, st.byes, st.short_tables, st.rounds_played,
       coalesce(st.rating, r.rating, 1500.0) AS rating, st.points, st.opponents_points,
       st.opponents, e.withdrawn_round
FROM standings st
JOIN entries e ON e.tournament_id = st.tournament_id AND e.bot_id = st.bot_id
JOIN bots b ON b.id = st.bot_id
JOIN tournaments t ON t.id = st.tournament_id
LEFT JOIN ratings r ON r.bot_id = st.bot_id AND r.game = t.game
WHERE st.tournament_id = %(tournament_id)s
ORDER BY st.points DESC, st.opponents_points::numeric / greatest(st.opponents, 1) DESC,
         coalesce(st.rating, r.rating, 1500.0) DESC, st.bot_id;

-- name: leaderboard
SELECT r.bot_id, b.name, r.rating, r.games
FROM ratings r JOIN bots b ON b.id = r.bot_id
WHERE r.game = %(game)s AND b.retired_at IS NULL
ORDER BY r.rating DESC, r.games DESC, b.name
LIMIT %(limit)s;

-- name: tournament_gauges
SELECT status::text AS status, count(*) AS n FROM tournaments GROUP BY status;

-- name: rounds_in_progress
-- How many rounds are being played, the age of the oldest, and the longest a round should take:
-- 400 decisions at the per-decision limit plus every seat's bank.
SELECT count(*) AS n,
       coalesce(max(extract(epoch FROM now() - r.started_at)), 0) AS oldest,
       coalesce(max((t.clock ->> 'per_decision')::float * 400
                    + (t.clock ->> 'bank')::float * t.table_size), 0) AS expected
FROM rounds r JOIN tournaments t ON t.id = r.tournament_id
WHERE r.status <> 'finished' AND t.status = 'running';

-- name: top_ratings
SELECT game, name, rating FROM (
    SELECT r.game, b.name, r.rating,
           row_number() OVER (PARTITION BY r.game ORDER BY r.rating DESC) AS place
    FROM ratings r JOIN bots b ON b.id = r.bot_id
    WHERE b.retired_at IS NULL
) ranked
WHERE place <= %(limit)s;

-- name: active_entry_bots
-- The entrants who play round `round_no`: joined by then and not withdrawn before it.
SELECT bot_id FROM entries
WHERE tournament_id = %(tournament_id)s AND joined_round <= %(round_no)s
  AND (withdrawn_round IS NULL OR withdrawn_round > %(round_no)s)
ORDER BY bot_id;

-- name: withdraw_entry
UPDATE entries SET withdrawn_round = %(round_no)s
WHERE tournament_id = %(tournament_id)s AND bot_id = %(bot_id)s
  AND (withdrawn_round IS NULL OR withdrawn_round > %(round_no)s)
RETURNING bot_id;

-- name: enter_late
INSERT INTO entries (tournament_id, bot_id, joined_round)
VALUES (%(tournament_id)s, %(bot_id)s, %(round_no)s)
ON CONFLICT (tournament_id, bot_id) DO UPDATE SET withdrawn_round = NULL
WHERE entries.withdrawn_round IS NOT NULL
RETURNING bot_id;

-- name: create_standing
INSERT INTO standings (tournament_id, bot_id) VALUES (%(tournament_id)s, %(bot_id)s)
ON CONFLICT DO NOTHING;

-- name: withdraw_forfeiters
-- Withdraw, from round `round_no` on, every entrant with `forfeit_limit` forfeits or more.
UPDATE entries e SET withdrawn_round = %(round_no)s
FROM tournaments t
WHERE t.id = e.tournament_id AND e.tournament_id = %(tournament_id)s
  AND t.forfeit_limit IS NOT NULL AND e.withdrawn_round IS NULL
  AND (SELECT count(*) FROM seats s JOIN matches m ON m.id = s.match_id
       WHERE m.tournament_id = e.tournament_id AND s.bot_id = e.bot_id AND s.forfeited)
      >= t.forfeit_limit
RETURNING e.bot_id;

-- name: link_matches
-- Record on each table the match that decided it: its latest attempt (a replay replaces the
-- aborted first attempt, which stays in `matches` for the record).
UPDATE tournament_tables t SET match_id = m.id
FROM matches m
WHERE t.tournament_id = %(tournament_id)s AND t.match_id IS DISTINCT FROM m.id
  AND m.tournament_id = t.tournament_id AND m.round_no = t.round_no AND m.table_no = t.table_no
  AND m.attempt = (SELECT max(attempt) FROM matches x WHERE x.tournament_id = t.tournament_id
                   AND x.round_no = t.round_no AND x.table_no = t.table_no);

-- name: skill_ratings_for_update
SELECT bot_id, mu, sigma, games FROM skill_ratings
WHERE game = %(game)s AND system = %(system)s AND bot_id = ANY(%(bot_ids)s::bigint[])
ORDER BY bot_id FOR UPDATE;

-- name: upsert_skill_ratings
INSERT INTO skill_ratings (bot_id, game, system, mu, sigma, games, updated_at)
SELECT unnest(%(bot_ids)s::bigint[]), %(game)s, %(system)s, unnest(%(mus)s::float8[]),
       unnest(%(sigmas)s::float8[]), unnest(%(games)s::int[]), now()
ON CONFLICT (bot_id, game, system)
DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, games = excluded.games,
              updated_at = now();

-- name: skill_leaderboard
-- Ordered by the conservative estimate mu - 3 sigma, as OpenSkill and TrueSkill rank.
SELECT s.bot_id, b.name, s.mu, s.sigma, s.games, s.mu - 3 * s.sigma AS ordinal
FROM skill_ratings s JOIN bots b ON b.id = s.bot_id
WHERE s.game = %(game)s AND s.system = %(system)s AND b.retired_at IS NULL
ORDER BY s.mu - 3 * s.sigma DESC, s.games DESC, b.name
LIMIT %(limit)s;

-- name: bot_ids_by_name
-- A retired bot is not found: it enters no new tournament (migration 0010).
SELECT id, name FROM bots WHERE name = ANY(%(names)s::text[]) AND retired_at IS NULL;

-- name: insert_rating_changes
-- A round's rating changes in one statement (arrays in step); a retried task counts once.
INSERT INTO rating_changes (bot_id, game, match_id, tournament_id, round_no, before, after, delta)
SELECT bot_id, %(game)s, match_id, %(tournament_id)s, %(round_no)s, before, after, delta
FROM unnest(%(bot_ids)s::bigint[], %(match_ids)s::bigint[], %(befores)s::float8[],
            %(afters)s::float8[], %(deltas)s::float8[])
     AS c(bot_id, match_id, before, after, delta)
ON CONFLICT (bot_id, match_id) DO NOTHING;

-- name: upsert_ratings
-- Many bots' ratings in one statement.
INSERT INTO ratings (bot_id, game, rating, games, updated_at)
SELECT bot_id, %(game)s, rating, games, now()
FROM unnest(%(bot_ids)s::bigint[], %(ratings)s::float8[], %(games)s::int[])
     AS r(bot_id, rating, games)
ON CONFLICT (bot_id, game)
DO UPDATE SET rating = excluded.rating, games = excluded.games, updated_at = now();

-- name: create_schedule
INSERT INTO schedules (name, game, options, format, rating_system, table_size, rounds, clock,
                       bot_names, every, next_run)
VALUES (%(name)s, %(game)s, %(options)s, %(format)s, %(rating_system)s, %(table_size)s,
        %(rounds)s, %(clock)s, %(bot_names)s, %(every)s, %(next_run)s)
RETURNING id;

-- name: schedules
SELECT id, name, game, options, format, rating_system, table_size, rounds, clock, bot_names,
       every, next_run, paused, editions
FROM schedules ORDER BY id;

-- name: due_schedules_for_update
-- Claimed by one beat tick at a time: a second process skips the rows the first holds.
SELECT id, name, game, options, format, rating_system, table_size, rounds, clock, bot_names,
       every, next_run, paused, editions
FROM schedules WHERE NOT paused AND next_run <= %(now)s
ORDER BY next_run, id FOR UPDATE SKIP LOCKED;

-- name: advance_schedule
UPDATE schedules SET next_run = %(next_run)s, editions = editions + %(created)s
WHERE id = %(schedule_id)s;

-- name: pause_schedule
UPDATE schedules SET paused = %(paused)s WHERE id = %(schedule_id)s RETURNING id;

-- name: delete_schedule
DELETE FROM schedules WHERE id = %(schedule_id)s RETURNING id;

-- name: upsert_ladder
INSERT INTO ladders (game, table_size, concurrency, clock, active)
VALUES (%(game)s, %(table_size)s, %(concurrency)s, %(clock)s, true)
ON CONFLICT (game) DO UPDATE SET table_size = excluded.table_size,
    concurrency = excluded.concurrency, clock = excluded.clock, active = true;

-- name: stop_ladder
UPDATE ladders SET active = false WHERE game = %(game)s RETURNING game;

-- name: active_ladders_for_update
-- One beat tick at a time per ladder: a racing tick skips the ladders another holds.
SELECT game, table_size, concurrency, clock FROM ladders WHERE active
ORDER BY game FOR UPDATE SKIP LOCKED;

-- name: ladder_games
-- Ladder matches per bot in a game.
SELECT s.bot_id, count(*) FROM ladder_matches l JOIN seats s ON s.match_id = l.match_id
WHERE l.game = %(game)s GROUP BY s.bot_id;

-- name: busy_bots
-- Matches each bot is playing now (any kind), for the ladder's per-bot concurrency limit.
SELECT s.bot_id, count(*) FROM seats s JOIN matches m ON m.id = s.match_id
WHERE m.status IN ('pending', 'running') GROUP BY s.bot_id;

-- name: record_ladder_match
INSERT INTO ladder_matches (match_id, game) VALUES (%(match_id)s, %(game)s)
ON CONFLICT DO NOTHING;

-- name: tournament_seed_salt
-- The tournament's random salt for table seeds (never published).
SELECT seed_salt::text FROM tournaments WHERE id = %(tournament_id)s;
