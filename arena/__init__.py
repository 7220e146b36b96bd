"""Arena: the referee, storage, ratings, pairing, the CLI, the bot SDK and reference bots."""
