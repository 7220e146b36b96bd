"""Bot tokens and the admin token: generated secrets, stored only as SHA-256 hashes."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

TOKEN_BYTES = 32
TOKEN_PREFIX = "arena_"
"""Marks a string as an Arena bot token, and keeps it from starting with "-": a URL-safe token
may, and `arena bot run --token -abc` would then read it as an option."""


def new_token() -> str:
    """A fresh random token, shown once to its owner."""
    return TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> bytes:
    """The stored form of a token."""
    return hashlib.sha256(token.encode()).digest()


def bearer(metadata: tuple[tuple[str, str | bytes], ...] | None) -> str | None:
    """The token of an `authorization: Bearer <token>` metadata entry, if any."""
    for key, value in metadata or ():
        if key.lower() == "authorization":
            text = value.decode() if isinstance(value, bytes) else value
            scheme, _, token = text.partition(" ")
            if scheme.lower() == "bearer" and token:
                return token.strip()
    return None


def same_token(given: str, expected: str) -> bool:
    """Constant-time comparison of two tokens."""
    return hmac.compare_digest(given.encode(), expected.encode())


def write_secret(path: Path, text: str) -> None:
    """Write `text` to `path` readable by its owner only, from the first byte on.

    `write_text` then `chmod` leaves the secret readable by everyone (umask 022) until the chmod.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # an existing file keeps its old mode through os.open
    with os.fdopen(fd, "w") as out:
        out.write(text)
