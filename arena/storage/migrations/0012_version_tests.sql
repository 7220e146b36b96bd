-- Version tests (issue 29): a candidate against a baseline in paired sets of matches with the
-- same seed, until a GSPRT accepts one hypothesis. Numbered 0012: 0010 and 0011 belong to
-- branches landing beside this one.
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
