"""At the Gates of Loyang: registers `LoyangRules` with the engine registry."""

from engines.loyang.rules import LoyangRules
from engines.registry import register

register(LoyangRules())

__all__ = ["LoyangRules"]
