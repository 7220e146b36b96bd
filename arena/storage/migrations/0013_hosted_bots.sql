-- Hosted bots (issue 28): archives of uploaded bots stored once by their SHA-256, the pieces of
-- an upload in progress, and the hosted versions that name an archive and a command.
CREATE TABLE bot_archives (
    sha256 bytea PRIMARY KEY,
    content bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT bot_archives_sha256_check CHECK (octet_length(sha256) = 32)
);

-- Pieces of an archive being uploaded, per bot; deleted when the version is made.
CREATE TABLE bot_archive_parts (
    bot_id bigint NOT NULL REFERENCES bots (id),
    sha256 bytea NOT NULL,
    "offset" bigint NOT NULL,
    data bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (bot_id, sha256, "offset")
);

ALTER TABLE bot_versions ADD COLUMN archive_sha256 bytea REFERENCES bot_archives (sha256);
ALTER TABLE bot_versions ADD COLUMN run_command text;
ALTER TABLE bot_versions ADD CONSTRAINT bot_versions_hosted_check
    CHECK ((archive_sha256 IS NULL) = (run_command IS NULL));

-- Hosted bots an owner wants running whether or not a competition needs them.
ALTER TABLE bots ADD COLUMN always_on boolean NOT NULL DEFAULT false;

-- Runners (`arena runner`) alive: each renews `seen_at`.
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
