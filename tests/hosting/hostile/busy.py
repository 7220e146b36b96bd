"""Hostile bot: spins on the CPU forever without a word."""

while True:
    pass
