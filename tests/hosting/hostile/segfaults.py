"""Hostile bot: dereferences a null pointer."""

import ctypes

ctypes.string_at(0)
