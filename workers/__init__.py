"""The Celery app: tournament scheduling, rounds of match tasks, rating updates."""
