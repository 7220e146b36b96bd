"""Arena: the referee service, storage, ratings, pairing, the CLI, the bot SDK and reference bots."""
