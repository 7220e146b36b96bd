"""Hostile bot: writes 1 GB to stdout."""

import sys

line = b"y" * 65535 + b"\n"
for _ in range(16 * 1024):
    sys.stdout.buffer.write(line)
print("LEAK wrote 1 GB")
