"""Tests of arena.storage and arena.ops.services against a real Postgres."""
