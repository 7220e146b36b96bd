-- The full current schema, for a fresh database. Migrations must arrive at the same catalog
-- (tests/storage/test_schema.py checks it); edit both together.

CREATE TYPE match_status AS ENUM ('pending', 'running', 'finished', 'aborted');
CREATE TYPE tournament_status AS ENUM ('scheduled', 'running', 'finished', 'cancelled');
CREATE TYPE round_status AS ENUM ('pairing', 'playing', 'finished');
CREATE TYPE account_role AS ENUM ('admin', 'organiser', 'author');

-- A person or team (migration 0010). The first admin account's key is ARENA_ADMIN_TOKEN.
CREATE TABLE accounts (
    id bigserial PRIMARY KEY,
    name text NOT NULL,
    role account_role NOT NULL DEFAULT 'author',
    -- An argon2id hash (PHC string); NULL = the account signs in with keys only.
    password_hash text,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT accounts_name_key UNIQUE (name),
    CONSTRAINT accounts_name_check CHECK (name <> '')
);
INSERT INTO accounts (name, role) VALUES ('admin', 'admin');

-- An account's API keys: shown once, stored as a SHA-256 digest of a 256-bit secret.
CREATE TABLE api_keys (
    id bigserial PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name text NOT NULL,
    secret_hash bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz,
    revoked_at timestamptz,
    last_used_at timestamptz,
    CONSTRAINT api_keys_secret_hash_key UNIQUE (secret_hash),
    CONSTRAINT api_keys_account_id_name_key UNIQUE (account_id, name),
    CONSTRAINT api_keys_secret_hash_check CHECK (octet_length(secret_hash) = 32)
);

-- An entrant. Only a SHA-256 digest of its token is ever stored.
CREATE TABLE bots (
    id bigserial PRIMARY KEY,
    name text NOT NULL,
    token_hash bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    -- The account that manages the bot (NULL: registered anonymously; admins manage it).
    owner_id bigint,
    retired_at timestamptz,
    -- A hosted bot its owner wants running whether or not a competition needs it (0013).
    always_on boolean NOT NULL DEFAULT false,
    -- A version's own bot, named NAME@LABEL: it always plays this version (0014).
    plays_version_id bigint,
    CONSTRAINT bots_name_key UNIQUE (name),
    CONSTRAINT bots_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES accounts (id),
    CONSTRAINT bots_token_hash_key UNIQUE (token_hash),
    CONSTRAINT bots_name_check CHECK (name <> ''),
    CONSTRAINT bots_token_hash_check CHECK (octet_length(token_hash) = 32),
    CONSTRAINT bots_plays_version_id_key UNIQUE (plays_version_id)
);

-- Uploaded bots' archives (deterministic gzip tars), stored once by SHA-256 (migration 0013).
CREATE TABLE bot_archives (
    sha256 bytea PRIMARY KEY,
    content bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT bot_archives_sha256_check CHECK (octet_length(sha256) = 32)
);

-- A bot's programs over time; the newest is the one that plays (migration 0010). A hosted
-- version names an archive and the command that starts it (migration 0013); both or neither.
CREATE TABLE bot_versions (
    id bigserial PRIMARY KEY,
    bot_id bigint NOT NULL REFERENCES bots (id),
    label text NOT NULL,
    notes text NOT NULL DEFAULT '',
    provisional boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    archive_sha256 bytea REFERENCES bot_archives (sha256),
    run_command text,
    CONSTRAINT bot_versions_bot_id_label_key UNIQUE (bot_id, label),
    CONSTRAINT bot_versions_label_check CHECK (label <> ''),
    CONSTRAINT bot_versions_hosted_check CHECK ((archive_sha256 IS NULL) = (run_command IS NULL))
);
CREATE INDEX bot_versions_bot_idx ON bot_versions (bot_id, id DESC);
ALTER TABLE bots ADD CONSTRAINT bots_plays_version_id_fkey
    FOREIGN KEY (plays_version_id) REFERENCES bot_versions (id);

-- Runners (`arena runner`) alive: each renews `seen_at` (migration 0013).
CREATE TABLE runners (
    name text PRIMARY KEY,
    started_at timestamptz NOT NULL DEFAULT now(),
    seen_at timestamptz NOT NULL DEFAULT now(),
    bots_running integer NOT NULL DEFAULT 0,
    restarts bigint NOT NULL DEFAULT 0
);

-- Which runner runs each hosted bot, under a lease it renews; `epoch` bumps at every claim.
CREATE TABLE hosted_leases (
    bot_id bigint PRIMARY KEY REFERENCES bots (id),
    runner text NOT NULL,
    epoch bigint NOT NULL DEFAULT 1,
    lease_expires timestamptz NOT NULL
);

-- Why each hosted bot's program last ended other than by its runner's stop: cause, the owner's
-- one-line description, runner, when, and how many such ends so far (migration 0016).
CREATE TABLE hosted_stops (
    bot_id bigint PRIMARY KEY REFERENCES bots (id),
    runner text NOT NULL,
    cause text NOT NULL,
    detail text NOT NULL,
    stopped_at timestamptz NOT NULL DEFAULT now(),
    stops bigint NOT NULL DEFAULT 1
);

-- Pieces of an archive being uploaded, per bot; deleted when its version is made.
CREATE TABLE bot_archive_parts (
    bot_id bigint NOT NULL REFERENCES bots (id),
    sha256 bytea NOT NULL,
    "offset" bigint NOT NULL,
    data bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (bot_id, sha256, "offset")
);

CREATE TABLE tournaments (
    id bigserial PRIMARY KEY,
    name text NOT NULL,
    game text NOT NULL,
    options jsonb NOT NULL DEFAULT '{}',
    table_size integer NOT NULL,
    rounds integer NOT NULL,
    clock jsonb NOT NULL DEFAULT '{}',
    starts_at timestamptz NOT NULL,
    status tournament_status NOT NULL DEFAULT 'scheduled',
    seed bigint NOT NULL,
    current_round integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    format text NOT NULL DEFAULT 'swiss',
    rating_system text NOT NULL DEFAULT 'elo',
    forfeit_limit integer,
    seed_salt uuid NOT NULL DEFAULT gen_random_uuid(),
    owner_id bigint,
    CONSTRAINT tournaments_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES accounts (id),
    CONSTRAINT tournaments_table_size_check CHECK (table_size > 0),
    CONSTRAINT tournaments_rounds_check CHECK (rounds > 0),
    CONSTRAINT tournaments_current_round_check CHECK (current_round BETWEEN 0 AND rounds),
    CONSTRAINT tournaments_format_check CHECK (format IN ('swiss', 'round_robin')),
    CONSTRAINT tournaments_rating_system_check CHECK (rating_system IN ('elo', 'openskill')),
    CONSTRAINT tournaments_forfeit_limit_check CHECK (forfeit_limit > 0)
);
CREATE INDEX tournaments_due_idx ON tournaments (starts_at) WHERE status = 'scheduled';

-- One game. A tournament match is keyed by its table so a retried task creates it once.
CREATE TABLE matches (
    id bigserial PRIMARY KEY,
    game text NOT NULL,
    rules_version integer NOT NULL,
    options jsonb NOT NULL DEFAULT '{}',
    seats integer NOT NULL,
    seed bigint NOT NULL,
    clock jsonb NOT NULL DEFAULT '{}',
    status match_status NOT NULL DEFAULT 'pending',
    termination text,
    host text,
    created_at timestamptz NOT NULL DEFAULT now(),
    started_at timestamptz,
    finished_at timestamptz,
    tournament_id bigint,
    round_no integer,
    table_no integer,
    rated boolean NOT NULL DEFAULT false,
    -- A tournament table is replayed once when its match aborts: attempt 2 (migration 0006).
    attempt integer NOT NULL DEFAULT 1,
    -- The fencing token of the match's lease: bumped by every claim (migration 0008).
    lease_epoch bigint NOT NULL DEFAULT 0,
    -- When the host's lease lapses unless renewed; NULL = no lease.
    lease_expires timestamptz,
    CONSTRAINT matches_tournament_id_fkey FOREIGN KEY (tournament_id) REFERENCES tournaments (id),
    CONSTRAINT matches_table_key UNIQUE (tournament_id, round_no, table_no, attempt),
    CONSTRAINT matches_attempt_check CHECK (attempt BETWEEN 1 AND 2),
    CONSTRAINT matches_seats_check CHECK (seats > 0),
    CONSTRAINT matches_table_check CHECK (
        (tournament_id IS NULL) = (round_no IS NULL) AND (round_no IS NULL) = (table_no IS NULL)
    )
);
CREATE INDEX matches_game_idx ON matches (game, id DESC);
CREATE INDEX matches_active_idx ON matches (host) WHERE status IN ('pending', 'running');
CREATE INDEX matches_lease_idx ON matches (lease_expires) WHERE status IN ('pending', 'running');
CREATE INDEX matches_finished_idx ON matches (finished_at DESC, id DESC) WHERE status = 'finished';

-- Who sits where, and how each seat ended.
CREATE TABLE seats (
    match_id bigint NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat integer NOT NULL,
    bot_id bigint NOT NULL REFERENCES bots (id),
    rank integer,
    score double precision,
    strikes integer NOT NULL DEFAULT 0,
    forfeited boolean NOT NULL DEFAULT false,
    time_used interval NOT NULL DEFAULT '0',
    -- The bot's version that played this seat (migration 0010).
    version_id bigint REFERENCES bot_versions (id),
    -- Its bot was not connected when the match started (migration 0017).
    absent_at_start boolean NOT NULL DEFAULT false,
    PRIMARY KEY (match_id, seat),
    CONSTRAINT seats_seat_check CHECK (seat >= 0),
    CONSTRAINT seats_strikes_check CHECK (strikes >= 0)
);
CREATE INDEX seats_bot_idx ON seats (bot_id, match_id DESC);

-- The action log: one joint action per decision, enough to replay the match from its seed.
CREATE TABLE decisions (
    match_id bigint NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    number integer NOT NULL,
    label text NOT NULL,
    joint jsonb NOT NULL,
    elapsed jsonb NOT NULL DEFAULT '{}',
    strikes jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    -- The lease epoch of the host that wrote the row (migration 0008).
    epoch bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (match_id, number),
    CONSTRAINT decisions_number_check CHECK (number >= 0),
    CONSTRAINT decisions_joint_check CHECK (jsonb_typeof(joint) = 'object')
);

-- What a hosted bot wrote to stdout/stderr during a match, saved by its runner for the owner's
-- private replay: lines as [arrival (epoch seconds), text], the latest up to the runner's bound
-- (migration 0015).
CREATE TABLE match_output (
    match_id bigint NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    bot_id bigint NOT NULL REFERENCES bots (id),
    lines jsonb NOT NULL,
    dropped integer NOT NULL DEFAULT 0,
    PRIMARY KEY (match_id, bot_id),
    CONSTRAINT match_output_lines_check CHECK (jsonb_typeof(lines) = 'array')
);

-- Elo per bot and game.
CREATE TABLE ratings (
    bot_id bigint NOT NULL REFERENCES bots (id),
    game text NOT NULL,
    rating double precision NOT NULL,
    games integer NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (bot_id, game)
);
CREATE INDEX ratings_leaderboard_idx ON ratings (game, rating DESC);

-- Every rating change, with the match that caused it; keyed so a retried task counts once.
-- No foreign keys, so a closed round's thousand changes are not checked row by row (migrations
-- 0007, 0009): the writer (`rating_store`) writes a change only for a match it marked rated and
-- for bots whose `ratings` row it writes, in the same transaction; the triggers below keep a bot
-- or match with rating changes from being deleted, as the keys did.
CREATE TABLE rating_changes (
    bot_id bigint NOT NULL,
    game text NOT NULL,
    match_id bigint NOT NULL,
    tournament_id bigint,
    round_no integer,
    before double precision NOT NULL,
    after double precision NOT NULL,
    delta double precision NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT rating_changes_bot_id_match_id_key UNIQUE (bot_id, match_id)
);
CREATE INDEX rating_changes_match_idx ON rating_changes (match_id);

CREATE FUNCTION rating_changes_keep_bots() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM rating_changes AS rc JOIN gone ON rc.bot_id = gone.id) THEN
        RAISE foreign_key_violation USING MESSAGE = 'a bot with rating changes cannot be deleted';
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION rating_changes_keep_matches() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM rating_changes AS rc JOIN gone ON rc.match_id = gone.id) THEN
        RAISE foreign_key_violation USING MESSAGE = 'a rated match cannot be deleted';
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER bots_keep_rating_changes AFTER DELETE ON bots
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION rating_changes_keep_bots();
CREATE TRIGGER matches_keep_rating_changes AFTER DELETE ON matches
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT
    EXECUTE FUNCTION rating_changes_keep_matches();

CREATE TABLE entries (
    tournament_id bigint NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    bot_id bigint NOT NULL REFERENCES bots (id),
    joined_round integer NOT NULL DEFAULT 1,
    withdrawn_round integer,
    PRIMARY KEY (tournament_id, bot_id),
    CONSTRAINT entries_rounds_check CHECK (
        joined_round > 0 AND (withdrawn_round IS NULL OR withdrawn_round > 0)
    )
);

CREATE TABLE rounds (
    tournament_id bigint NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round_no integer NOT NULL,
    status round_status NOT NULL DEFAULT 'pairing',
    started_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    dispatched_at timestamptz,
    PRIMARY KEY (tournament_id, round_no),
    CONSTRAINT rounds_round_no_check CHECK (round_no > 0)
);

-- A round's tables: the bots in seat order and, once created, the match that plays them.
CREATE TABLE tournament_tables (
    tournament_id bigint NOT NULL,
    round_no integer NOT NULL,
    table_no integer NOT NULL,
    match_id bigint REFERENCES matches (id),
    bot_ids bigint[] NOT NULL,
    PRIMARY KEY (tournament_id, round_no, table_no),
    CONSTRAINT tournament_tables_round_fkey FOREIGN KEY (tournament_id, round_no)
        REFERENCES rounds (tournament_id, round_no) ON DELETE CASCADE,
    CONSTRAINT tournament_tables_bot_ids_check CHECK (cardinality(bot_ids) > 0)
);

CREATE TABLE byes (
    tournament_id bigint NOT NULL,
    round_no integer NOT NULL,
    bot_id bigint NOT NULL REFERENCES bots (id),
    PRIMARY KEY (tournament_id, round_no, bot_id),
    CONSTRAINT byes_round_fkey FOREIGN KEY (tournament_id, round_no)
        REFERENCES rounds (tournament_id, round_no) ON DELETE CASCADE
);

CREATE TABLE standings (
    tournament_id bigint NOT NULL,
    bot_id bigint NOT NULL,
    score double precision NOT NULL DEFAULT 0,
    tiebreak double precision NOT NULL DEFAULT 0,
    byes integer NOT NULL DEFAULT 0,
    short_tables integer NOT NULL DEFAULT 0,
    rounds_played integer NOT NULL DEFAULT 0,
    points bigint NOT NULL DEFAULT 0,
    opponents_points bigint NOT NULL DEFAULT 0,
    opponents integer NOT NULL DEFAULT 0,
    rating double precision,
    PRIMARY KEY (tournament_id, bot_id),
    CONSTRAINT standings_entry_fkey FOREIGN KEY (tournament_id, bot_id)
        REFERENCES entries (tournament_id, bot_id) ON DELETE CASCADE
);

-- A second rating system for multiplayer tables (OpenSkill Plackett-Luce): mean and uncertainty.
CREATE TABLE skill_ratings (
    bot_id bigint NOT NULL REFERENCES bots (id),
    game text NOT NULL,
    system text NOT NULL,
    mu double precision NOT NULL,
    sigma double precision NOT NULL,
    games integer NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (bot_id, game, system)
);
CREATE INDEX skill_ratings_leaderboard_idx ON skill_ratings (game, system, mu DESC);

-- Recurring tournaments: beat creates an edition each period; a missed start is caught up once.
CREATE TABLE schedules (
    id bigserial PRIMARY KEY,
    name text NOT NULL,
    game text NOT NULL,
    options jsonb NOT NULL DEFAULT '{}',
    format text NOT NULL DEFAULT 'swiss',
    rating_system text NOT NULL DEFAULT 'elo',
    table_size integer NOT NULL,
    rounds integer NOT NULL DEFAULT 0,
    clock jsonb NOT NULL DEFAULT '{}',
    bot_names text[],
    every interval NOT NULL,
    next_run timestamptz NOT NULL,
    paused boolean NOT NULL DEFAULT false,
    editions integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    owner_id bigint REFERENCES accounts (id),
    CONSTRAINT schedules_name_key UNIQUE (name),
    CONSTRAINT schedules_every_check CHECK (every >= interval '1 second'),
    CONSTRAINT schedules_rounds_check CHECK (rounds >= 0)
);

-- A continuous ladder per game: beat keeps making matches among the connected bots.
CREATE TABLE ladders (
    game text PRIMARY KEY,
    table_size integer NOT NULL,
    concurrency integer NOT NULL DEFAULT 1,
    clock jsonb NOT NULL DEFAULT '{}',
    active boolean NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL DEFAULT now(),
    owner_id bigint REFERENCES accounts (id),
    CONSTRAINT ladders_table_size_check CHECK (table_size >= 2),
    CONSTRAINT ladders_concurrency_check CHECK (concurrency >= 1)
);

-- The matches a ladder made (ad-hoc matches, rated by the referee as each finishes).
CREATE TABLE ladder_matches (
    match_id bigint PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    game text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ladder_matches_game_idx ON ladder_matches (game);

-- Who changed what, when (migration 0010). `details` never holds a secret (the writer drops them).
CREATE TABLE audit_log (
    id bigserial PRIMARY KEY,
    account_id bigint,
    actor text NOT NULL,
    action text NOT NULL,
    target text NOT NULL DEFAULT '',
    details jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_account_idx ON audit_log (account_id, id DESC);

-- Version tests (issue 29): a candidate against a baseline in paired sets, until a GSPRT stops.
CREATE TABLE version_tests (
    id bigserial PRIMARY KEY,
    game text NOT NULL,
    options jsonb NOT NULL DEFAULT '{}',
    clock jsonb NOT NULL DEFAULT '{}',
    seats integer NOT NULL,
    candidate_id bigint NOT NULL REFERENCES bots (id),
    baseline_id bigint NOT NULL REFERENCES bots (id),
    filler_ids bigint[] NOT NULL DEFAULT '{}',
    elo0 double precision NOT NULL,
    elo1 double precision NOT NULL,
    alpha double precision NOT NULL,
    beta double precision NOT NULL,
    -- Stop with the estimate once this many matches are counted; NULL = no cap.
    max_matches integer,
    -- Sets playing at once.
    in_flight integer NOT NULL DEFAULT 2,
    seed bigint NOT NULL,
    seed_salt uuid NOT NULL DEFAULT gen_random_uuid(),
    status text NOT NULL DEFAULT 'running',
    llr double precision NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    -- The account that started the test (0014); NULL for tests started before owners.
    owner_id bigint REFERENCES accounts (id),
    CONSTRAINT version_tests_status_check
        CHECK (status IN ('running', 'h0', 'h1', 'capped', 'stopped')),
    CONSTRAINT version_tests_sides_check CHECK (candidate_id <> baseline_id),
    CONSTRAINT version_tests_seats_check CHECK (seats >= 2),
    CONSTRAINT version_tests_elo_check CHECK (elo0 < elo1),
    CONSTRAINT version_tests_rates_check
        CHECK (alpha > 0 AND alpha < 0.5 AND beta > 0 AND beta < 0.5),
    CONSTRAINT version_tests_cap_check CHECK (max_matches IS NULL OR max_matches >= 2),
    CONSTRAINT version_tests_in_flight_check CHECK (in_flight >= 1)
);
CREATE INDEX version_tests_running_idx ON version_tests (id) WHERE status = 'running';

-- A paired set: counted once, when every match of its current attempt finished; a set with an
-- aborted match is replayed once (attempt 2, a new seed) and then void.
CREATE TABLE version_test_sets (
    test_id bigint NOT NULL REFERENCES version_tests (id) ON DELETE CASCADE,
    set_no integer NOT NULL,
    attempt integer NOT NULL DEFAULT 1,
    status text NOT NULL DEFAULT 'playing',
    -- The candidate's mean score against the baseline over the set's matches.
    score double precision,
    -- The test's LLR just after this set was counted (the chart's points).
    llr double precision,
    created_at timestamptz NOT NULL DEFAULT now(),
    counted_at timestamptz,
    PRIMARY KEY (test_id, set_no),
    CONSTRAINT version_test_sets_status_check CHECK (status IN ('playing', 'counted', 'void')),
    CONSTRAINT version_test_sets_attempt_check CHECK (attempt BETWEEN 1 AND 2),
    CONSTRAINT version_test_sets_counted_check CHECK ((status = 'counted') = (score IS NOT NULL))
);

-- The matches of a set's attempts (ad-hoc matches, rated by the referee like ladder matches).
CREATE TABLE version_test_matches (
    match_id bigint PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    test_id bigint NOT NULL,
    set_no integer NOT NULL,
    attempt integer NOT NULL,
    game_no integer NOT NULL,
    CONSTRAINT version_test_matches_key UNIQUE (test_id, set_no, attempt, game_no),
    CONSTRAINT version_test_matches_set_fkey FOREIGN KEY (test_id, set_no)
        REFERENCES version_test_sets (test_id, set_no) ON DELETE CASCADE
);
