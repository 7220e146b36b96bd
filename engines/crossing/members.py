"""Crossing's enum members as module constants, bound once here for the rules to import.

`Enum.X` goes through EnumType's __getattr__ hook (~0.15 us a read on Python 3.11, about ten
times a module global's cost), and the rules read these members on every decision. A member
whose name two enums share is prefixed with its enum's name, and so is `Crew.STOP` (`cards.STOP`
is that crew card's index).
"""

from __future__ import annotations

from typing import Final

from engines.api import Termination
from engines.crossing.components import Car, Crew, Kind
from engines.crossing.state import CrewMode, Label, Op

BEGIN_TURN: Final = Op.BEGIN_TURN
BOX: Final = Car.BOX
BUY_CARDS: Final = Op.BUY_CARDS
BUY_CREW: Final = Label.BUY_CREW
COMPLETED: Final = Termination.COMPLETED
CONNECTIONS: Final = Label.CONNECTIONS
CONTROL_TOWER: Final = Kind.CONTROL_TOWER
CREW_STOP: Final = Crew.STOP
CREW_VILLAIN: Final = Crew.VILLAIN
DEBT: Final = Op.DEBT
DECLARE: Final = Label.DECLARE
DERAIL_CAR: Final = Label.DERAIL_CAR
DISCARD: Final = Label.DISCARD
DISSATISFIED: Final = Label.DISSATISFIED
DOUBLE_CROSS: Final = Label.DOUBLE_CROSS
EFFECT: Final = Op.EFFECT
END_TURN: Final = Op.END_TURN
KIND_ROUNDHOUSE: Final = Kind.ROUNDHOUSE
LABEL_ROUNDHOUSE: Final = Label.ROUNDHOUSE
LAND: Final = Op.LAND
MOVE: Final = Op.MOVE
NONE: Final = CrewMode.NONE
OP_VILLAIN: Final = Op.VILLAIN
RACK_CHECK: Final = Op.RACK_CHECK
RACK_LIMIT: Final = Label.RACK_LIMIT
RAILROAD_CREW: Final = Crew.RAILROAD_CREW
RAISE_CASH: Final = Label.RAISE_CASH
REVERSE: Final = CrewMode.REVERSE
ROLL: Final = Op.ROLL
ROUTE: Final = Label.ROUTE
SLOW: Final = CrewMode.SLOW
SLOW_REVERSE: Final = CrewMode.SLOW_REVERSE
START: Final = Kind.START
TOWER_SPACE: Final = Label.TOWER_SPACE
TOWER_TARGET: Final = Label.TOWER_TARGET
TRADE: Final = Label.TRADE
TRAIN_SHOP: Final = Label.TRAIN_SHOP
TURN_LIMIT: Final = Termination.TURN_LIMIT
VILLAIN_CAR: Final = Label.VILLAIN_CAR
YARD: Final = Label.YARD
