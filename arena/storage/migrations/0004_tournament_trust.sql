-- Tournaments an organiser can trust: formats, a rating system per tournament, withdrawals and
-- late entries, exact standings (whole 1/120 points) and a second, multiplayer rating system.
ALTER TABLE tournaments
    ADD COLUMN format text NOT NULL DEFAULT 'swiss',
    ADD COLUMN rating_system text NOT NULL DEFAULT 'elo',
    ADD COLUMN forfeit_limit integer,
    ADD CONSTRAINT tournaments_format_check CHECK (format IN ('swiss', 'round_robin')),
    ADD CONSTRAINT tournaments_rating_system_check CHECK (rating_system IN ('elo', 'openskill')),
    ADD CONSTRAINT tournaments_forfeit_limit_check CHECK (forfeit_limit > 0);

ALTER TABLE entries
    ADD COLUMN joined_round integer NOT NULL DEFAULT 1,
    ADD COLUMN withdrawn_round integer,
    ADD CONSTRAINT entries_rounds_check CHECK (
        joined_round > 0 AND (withdrawn_round IS NULL OR withdrawn_round > 0)
    );

ALTER TABLE standings
    ADD COLUMN points bigint NOT NULL DEFAULT 0,
    ADD COLUMN opponents_points bigint NOT NULL DEFAULT 0,
    ADD COLUMN opponents integer NOT NULL DEFAULT 0;

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
