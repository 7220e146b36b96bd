-- Why each hosted bot's program last ended other than by its runner's stop (issue 28), for its
-- owner: the cause (arena.hosting.limits.ExitCause: exited, crashed, memory, processes, output;
-- or failed: it could not start), the one-line description the owner's log has, the runner,
-- when, and how many such ends so far.
CREATE TABLE hosted_stops (
    bot_id bigint PRIMARY KEY REFERENCES bots (id),
    runner text NOT NULL,
    cause text NOT NULL,
    detail text NOT NULL,
    stopped_at timestamptz NOT NULL DEFAULT now(),
    stops bigint NOT NULL DEFAULT 1
);
