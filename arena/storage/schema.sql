-- The full current schema, for a fresh database. Migrations must arrive at the same catalog
-- (tests/storage/test_schema.py checks it); edit both together.

CREATE TYPE match_status AS ENUM ('pending', 'running', 'finished', 'aborted');
CREATE TYPE tournament_status AS ENUM ('scheduled', 'running', 'finished', 'cancelled');
CREATE TYPE round_status AS ENUM ('pairing', 'playing', 'finished');

-- An entrant. Only a SHA-256 digest of its token is ever stored.
CREATE TABLE bots (
    id bigserial PRIMARY KEY,
    name text NOT NULL,
    token_hash bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT bots_name_key UNIQUE (name),
    CONSTRAINT bots_token_hash_key UNIQUE (token_hash),
    CONSTRAINT bots_name_check CHECK (name <> ''),
    CONSTRAINT bots_token_hash_check CHECK (octet_length(token_hash) = 32)
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
