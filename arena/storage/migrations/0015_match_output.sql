-- What a hosted bot wrote to stdout/stderr during a match (issue 28), saved by its runner when
-- the match ends, for the owner's private replay: lines as [arrival (epoch seconds), text], the
-- latest up to the runner's bound, and how many earlier lines were dropped.
CREATE TABLE match_output (
    match_id bigint NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    bot_id bigint NOT NULL REFERENCES bots (id),
    lines jsonb NOT NULL,
    dropped integer NOT NULL DEFAULT 0,
    PRIMARY KEY (match_id, bot_id),
    CONSTRAINT match_output_lines_check CHECK (jsonb_typeof(lines) = 'array')
);
