"""Hostile bot: writes to /tmp until it is refused, then says how much it wrote."""

written = 0
try:
    with open("/tmp/fill", "wb") as handle:
        while written < 1024**3:
            handle.write(b"x" * 65536)
            handle.flush()
            written += 65536
except OSError as error:
    print("refused after", written, type(error).__name__)
else:
    print("LEAK wrote 1 GB to /tmp")
