"""Hart's enum members as module constants, bound once here for the rules to import.

`Enum.X` goes through EnumType's __getattr__ hook (~0.15 us a read on Python 3.11, about ten
times a module global's cost), and the rules read these members on every decision. A member
whose name two enums share is prefixed with its enum's name.
"""

from __future__ import annotations

from typing import Final

from engines.hart.data import Good
from engines.hart.state import Control, Phase

APPOINT: Final = Phase.APPOINT
BRIBE: Final = Phase.BRIBE
CONTROL_EXTRA_CONTROL: Final = Control.EXTRA_CONTROL
DECLARE: Final = Phase.DECLARE
INSPECT: Final = Phase.INSPECT
INSPECTION: Final = Control.INSPECTION
JUG: Final = Good.JUG
KEEP: Final = Phase.KEEP
OVER: Final = Phase.OVER
PACK: Final = Phase.PACK
PHASE_EXTRA_CONTROL: Final = Phase.EXTRA_CONTROL
SEIZE: Final = Phase.SEIZE
