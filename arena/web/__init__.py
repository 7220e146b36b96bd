"""The web front: pages and a JSON API over the arena's Postgres (`arena web`)."""
