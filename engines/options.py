"""Game options: one entry of a game's options schema, with its type, default and bounds."""

from __future__ import annotations

from dataclasses import dataclass

from engines.errors import OptionsError
from engines.json_value import Json


@dataclass(frozen=True, slots=True)
class Option:
    """One entry of a game's options schema."""

    name: str
    type: type
    """int, bool, str or float."""
    default: Json
    description: str
    """One line, shown by `arena games` and over the wire."""
    choices: tuple[Json, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None

    def check(self, value: object) -> Json:
        """Return `value` if it fits this option, else raise `OptionsError` naming the problem."""
        if self.type is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if (self.type is not bool and isinstance(value, bool)) or not isinstance(value, self.type):
            raise OptionsError(f"option {self.name!r} must be {self.type.__name__}, got {value!r}")
        if self.choices is not None and value not in self.choices:
            raise OptionsError(f"option {self.name!r} must be one of {list(self.choices)}")
        if isinstance(value, int | float) and not isinstance(value, bool):
            if self.minimum is not None and value < self.minimum:
                raise OptionsError(f"option {self.name!r} must be >= {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise OptionsError(f"option {self.name!r} must be <= {self.maximum}")
        return value  # type: ignore[return-value]

    def to_json(self) -> dict[str, Json]:
        """The schema entry as JSON."""
        out: dict[str, Json] = {
            "name": self.name,
            "type": self.type.__name__,
            "default": self.default,
            "description": self.description,
        }
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out
