"""Tests of arena.storage and arena.services against a real Postgres."""
