"""Hostile bot: tries to change its own files and the runtime's."""

import sys

for path in ["/bot/evil.txt", sys.executable, "/usr/evil"]:
    try:
        with open(path, "ab") as handle:
            handle.write(b"x")
        print("LEAK wrote", path)
    except OSError as error:
        print("refused", path, type(error).__name__)
