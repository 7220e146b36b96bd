-- Versions in version tests (issue 29). A bot version named in a test (`NAME@LABEL`) plays as a
-- bot of its own, named `NAME@LABEL`, owned by the bot's owner and always playing that version:
-- the referee seats, connects and routes bots by id, so two versions of one bot can share a
-- match only as two bots. A hosted version is run by the runners under that bot; an author's
-- own program connects with that bot's token. Tests record who started them.
ALTER TABLE bots ADD COLUMN plays_version_id bigint REFERENCES bot_versions (id);
ALTER TABLE bots ADD CONSTRAINT bots_plays_version_id_key UNIQUE (plays_version_id);
ALTER TABLE version_tests ADD COLUMN owner_id bigint REFERENCES accounts (id);
