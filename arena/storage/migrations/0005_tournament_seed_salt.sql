-- A random salt per tournament, mixed into its table seeds: a table's published seed no longer
-- lets anyone brute-force a small organiser seed and deal the running tables' hands.
ALTER TABLE tournaments ADD COLUMN seed_salt uuid NOT NULL DEFAULT gen_random_uuid();
