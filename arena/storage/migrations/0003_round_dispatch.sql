-- When a round's match tasks were last dispatched, so a watchdog can re-dispatch a lost round.
ALTER TABLE rounds ADD COLUMN dispatched_at timestamptz;
