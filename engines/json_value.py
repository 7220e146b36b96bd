"""The JSON value type that every layer's wire forms are written in."""

from typing import Union

# typing.Union (not `X | Y`): this module ships in the bot SDK, which runs on Python 3.9.
Json = Union[None, bool, int, float, str, list["Json"], dict[str, "Json"]]  # noqa: UP007
"""A value that `json.dumps` accepts and `json.loads` gives back unchanged."""
