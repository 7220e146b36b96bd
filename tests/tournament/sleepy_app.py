"""Arena's Celery app plus one task that sleeps: a message held unacknowledged for a while."""

from __future__ import annotations

import os
import time
from pathlib import Path

from workers.app import app


@app.task(name="arena.test_sleep")
def sleep(seconds: float, marker: str) -> None:
    """Note the start in `marker`'s folder (one line per run), sleep, note the end."""
    path = Path(marker)
    with path.open("a") as out:
        out.write(f"start {os.getpid()}\n")
    time.sleep(seconds)
    with path.open("a") as out:
        out.write(f"end {os.getpid()}\n")
