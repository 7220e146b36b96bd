"""LEGACY: `Event` and `visible` now live in `engines.api`; this module goes with the bridge."""

from engines.api import Event, visible

__all__ = ["Event", "visible"]
