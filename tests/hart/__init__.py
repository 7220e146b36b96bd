"""Tests of Hart an der Grenze: rules, wire forms, invariants, bots."""
