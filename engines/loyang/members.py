"""Loyang's enum members as module constants, bound once here for the rules to import.

`Enum.X` goes through EnumType's __getattr__ hook (~0.15 us a read on Python 3.11, about ten
times a module global's cost), and the rules read these members on every decision. A member
whose name two enums share is prefixed with its enum's name.
"""

from __future__ import annotations

from typing import Final

from engines.loyang.cards import EffectKind
from engines.loyang.state import Bonus, Phase, Stage, Timing

ACT: Final = Stage.ACT
ACTION: Final = Phase.ACTION
CARD: Final = Phase.CARD
CASUAL: Final = Bonus.CASUAL
CLOSING: Final = Phase.CLOSING
DELIVER_OTHER: Final = EffectKind.DELIVER_OTHER
DONE: Final = Stage.DONE
GAIN_CASH: Final = EffectKind.GAIN_CASH
KEEP: Final = Stage.KEEP
OPPONENT: Final = Phase.OPPONENT
OVER: Final = Phase.OVER
OWN_TURN: Final = Timing.OWN_TURN
REGULAR: Final = Bonus.REGULAR
ROUND: Final = Timing.ROUND
SALES_BONUS: Final = EffectKind.SALES_BONUS
SCORE: Final = Stage.SCORE
SERVE_OTHER: Final = EffectKind.SERVE_OTHER
SETUP: Final = Phase.SETUP
SHOP_DISCOUNT: Final = EffectKind.SHOP_DISCOUNT
STALL_BUY: Final = EffectKind.STALL_BUY
STALL_TRADE: Final = EffectKind.STALL_TRADE
STORE: Final = Stage.STORE
TAKE_CROPS: Final = EffectKind.TAKE_CROPS
TAKE_CROP_CHOICE: Final = EffectKind.TAKE_CROP_CHOICE
UPGRADE_STOREHOUSE: Final = EffectKind.UPGRADE_STOREHOUSE
