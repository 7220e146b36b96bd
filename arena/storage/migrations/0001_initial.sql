-- 0001: bots, matches, their seats and their decision log.

CREATE TYPE match_status AS ENUM ('pending', 'running', 'finished', 'aborted');

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
    CONSTRAINT matches_table_key UNIQUE (tournament_id, round_no, table_no),
    CONSTRAINT matches_seats_check CHECK (seats > 0),
    CONSTRAINT matches_table_check CHECK (
        (tournament_id IS NULL) = (round_no IS NULL) AND (round_no IS NULL) = (table_no IS NULL)
    )
);
CREATE INDEX matches_game_idx ON matches (game, id DESC);
CREATE INDEX matches_active_idx ON matches (host) WHERE status IN ('pending', 'running');

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
    PRIMARY KEY (match_id, number),
    CONSTRAINT decisions_number_check CHECK (number >= 0),
    CONSTRAINT decisions_joint_check CHECK (jsonb_typeof(joint) = 'object')
);
