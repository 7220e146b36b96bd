"""Hostile bot: allocates and touches 10 GB."""

blocks = []
for _ in range(10 * 1024):
    blocks.append(bytearray(1024 * 1024))
print("LEAK allocated 10 GB")
