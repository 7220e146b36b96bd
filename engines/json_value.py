"""The JSON value type that every layer's wire forms are written in."""

Json = None | bool | int | float | str | list["Json"] | dict[str, "Json"]
"""A value that `json.dumps` accepts and `json.loads` gives back unchanged."""
