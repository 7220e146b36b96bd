"""Account secrets: API keys (shown once, stored as SHA-256 digests) and argon2id passwords.

An API key is 256 random bits, so a fast hash is the right store for it: nobody can guess a
preimage, and checking a key on every call costs microseconds. A password is chosen by a person
and may be weak, so it is stored with argon2id, a deliberately slow, memory-hard hash, and checked
off the event loop (`verify_password` in a thread). The parameters and their cost are measured by
bench/auth.py.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets

from argon2 import PasswordHasher, exceptions

KEY_PREFIX = "arenakey_"
"""Marks an account's API key (a bot token starts with `arena_`): a key pasted in the wrong
place is recognised, and it never starts with "-"."""
KEY_BYTES = 32
PASSWORD_CHARS = (8, 200)
"""The allowed length of a password."""

ARGON2_TIME_COST = 1
ARGON2_MEMORY_KIB = 46 * 1024
ARGON2_PARALLELISM = 1
"""OWASP's first recommended argon2id setting (m=46 MiB, t=1, p=1). One thread and 46 MiB per
login: RFC 9106's low-memory option (m=64 MiB, t=3, p=4, argon2-cffi's default) took 1.5 s per
hash on this shared 2-core machine and would let a burst of logins take every core of a referee
that is also timing matches (bench/auth.py prints both)."""

HASHER = PasswordHasher(
    time_cost=ARGON2_TIME_COST, memory_cost=ARGON2_MEMORY_KIB, parallelism=ARGON2_PARALLELISM
)


@functools.cache
def _dummy() -> str:
    """A hash verified against for an unknown account, so that an unknown name costs as much as
    a known one (made on first use: it takes as long as a real hash)."""
    return HASHER.hash("an account that does not exist")


def new_key() -> str:
    """A fresh API key, shown once to its owner."""
    return KEY_PREFIX + secrets.token_urlsafe(KEY_BYTES)


def is_key(token: str) -> bool:
    """Whether `token` has the form of an account's API key (not a bot token)."""
    return token.startswith(KEY_PREFIX)


def key_hash(key: str) -> bytes:
    """The stored form of an API key: its SHA-256 digest."""
    return hashlib.sha256(key.encode()).digest()


def same_digest(given: bytes, stored: bytes) -> bool:
    """Constant-time comparison of two digests."""
    return hmac.compare_digest(given, stored)


def hash_password(password: str) -> str:
    """The argon2id hash (PHC string, salt included) of a password."""
    return HASHER.hash(password)


def verify_password(stored: str | None, password: str) -> bool:
    """Whether `password` matches `stored`; an account without a password (None) never matches,
    after as much work as a real check."""
    try:
        return HASHER.verify(stored or _dummy(), password) and stored is not None
    except (exceptions.VerificationError, exceptions.InvalidHashError):
        return False
