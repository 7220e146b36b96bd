-- 0002: ratings and their history, Swiss tournaments, rounds, tables, byes and standings.

CREATE TYPE tournament_status AS ENUM ('scheduled', 'running', 'finished', 'cancelled');
CREATE TYPE round_status AS ENUM ('pairing', 'playing', 'finished');

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
    CONSTRAINT tournaments_table_size_check CHECK (table_size > 0),
    CONSTRAINT tournaments_rounds_check CHECK (rounds > 0),
    CONSTRAINT tournaments_current_round_check CHECK (current_round BETWEEN 0 AND rounds)
);
CREATE INDEX tournaments_due_idx ON tournaments (starts_at) WHERE status = 'scheduled';

ALTER TABLE matches
    ADD CONSTRAINT matches_tournament_id_fkey FOREIGN KEY (tournament_id) REFERENCES tournaments (id);

-- Every rating change, with the match that caused it; keyed so a retried task counts once.
CREATE TABLE rating_changes (
    bot_id bigint NOT NULL REFERENCES bots (id),
    game text NOT NULL,
    match_id bigint NOT NULL REFERENCES matches (id),
    tournament_id bigint REFERENCES tournaments (id),
    round_no integer,
    before double precision NOT NULL,
    after double precision NOT NULL,
    delta double precision NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT rating_changes_bot_id_match_id_key UNIQUE (bot_id, match_id)
);
CREATE INDEX rating_changes_match_idx ON rating_changes (match_id);

CREATE TABLE entries (
    tournament_id bigint NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    bot_id bigint NOT NULL REFERENCES bots (id),
    PRIMARY KEY (tournament_id, bot_id)
);

CREATE TABLE rounds (
    tournament_id bigint NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round_no integer NOT NULL,
    status round_status NOT NULL DEFAULT 'pairing',
    started_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
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
    PRIMARY KEY (tournament_id, bot_id),
    CONSTRAINT standings_entry_fkey FOREIGN KEY (tournament_id, bot_id)
        REFERENCES entries (tournament_id, bot_id) ON DELETE CASCADE
);
