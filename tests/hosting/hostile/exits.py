"""Hostile bot: exits at once with a failure status."""

raise SystemExit(3)
