"""Hostile bot: tries the database, the referee's TCP port and an outside address."""

import socket
import sys

for host, port in [("127.0.0.1", 5432), ("127.0.0.1", int(sys.argv[1])), ("1.1.1.1", 53)]:
    try:
        with socket.create_connection((host, port), timeout=2):
            print("LEAK connected", host, port)
    except OSError as error:
        print("refused", host, port, type(error).__name__)
