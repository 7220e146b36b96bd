"""Hart an der Grenze: bluffing, bribes and smuggling across the border, for 3-6 seats."""

from engines.hart.rules import HartRules
from engines.registry import register

RULES = register(HartRules())

__all__ = ["RULES", "HartRules"]
