-- People behind the bots (issue 25): accounts with a role, their API keys (stored as SHA-256
-- digests), bots owned and retired, bot versions recorded per seat, owned tournaments, schedules
-- and ladders, and an audit log. An existing deployment upgrades in place: the first admin
-- account ('admin', whose key is the operator's ARENA_ADMIN_TOKEN) receives today's bots,
-- tournaments, schedules and ladders, and every bot gets a first version 'v1' that is recorded
-- on every seat it has played.
CREATE TYPE account_role AS ENUM ('admin', 'organiser', 'author');

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

ALTER TABLE bots ADD COLUMN owner_id bigint REFERENCES accounts (id);
ALTER TABLE bots ADD COLUMN retired_at timestamptz;

CREATE TABLE bot_versions (
    id bigserial PRIMARY KEY,
    bot_id bigint NOT NULL REFERENCES bots (id),
    label text NOT NULL,
    notes text NOT NULL DEFAULT '',
    provisional boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT bot_versions_bot_id_label_key UNIQUE (bot_id, label),
    CONSTRAINT bot_versions_label_check CHECK (label <> '')
);
CREATE INDEX bot_versions_bot_idx ON bot_versions (bot_id, id DESC);

ALTER TABLE seats ADD COLUMN version_id bigint REFERENCES bot_versions (id);
ALTER TABLE tournaments ADD COLUMN owner_id bigint REFERENCES accounts (id);
ALTER TABLE schedules ADD COLUMN owner_id bigint REFERENCES accounts (id);
ALTER TABLE ladders ADD COLUMN owner_id bigint REFERENCES accounts (id);

-- Who changed what, when. `details` never holds a secret (the writer drops them).
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

INSERT INTO accounts (name, role) VALUES ('admin', 'admin');
UPDATE bots SET owner_id = (SELECT min(id) FROM accounts WHERE role = 'admin');
UPDATE tournaments SET owner_id = (SELECT min(id) FROM accounts WHERE role = 'admin');
UPDATE schedules SET owner_id = (SELECT min(id) FROM accounts WHERE role = 'admin');
UPDATE ladders SET owner_id = (SELECT min(id) FROM accounts WHERE role = 'admin');
INSERT INTO bot_versions (bot_id, label, created_at) SELECT id, 'v1', created_at FROM bots;
UPDATE seats AS s SET version_id = v.id FROM bot_versions AS v WHERE v.bot_id = s.bot_id;
