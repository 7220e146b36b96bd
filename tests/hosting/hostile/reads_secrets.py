"""Hostile bot: tries to read host secrets; prints LEAK for anything it could read."""

import os
import sys

targets = ["/etc/shadow", "/etc/passwd", *sys.argv[1:]]
for path in targets:
    try:
        if os.path.isdir(path):
            print("LEAK", path, os.listdir(path))
        else:
            with open(path, "rb") as handle:
                print("LEAK", path, handle.read(200))
    except OSError as error:
        print("refused", path, type(error).__name__)
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                print("environ", pid, handle.read())
        except OSError as error:
            print("refused environ", pid, type(error).__name__)
print("ENV", dict(os.environ))
