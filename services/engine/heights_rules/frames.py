"""Pending decisions: the engine's stack of frames.

A compound decision (buy: plan -> space -> pay unit by unit) is a sequence of frames,
so the top frame always names exactly one small decision. Frames are immutable tuples
`(kind, player, a, b, c)`; updating one replaces it, so cloning a state copies the
stack shallowly.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any


class F(IntEnum):
    MAIN = 0  # the MAIN phase's free choice
    START = 1  # starting placement: choose a level-1 plan
    PLACE = 2  # a=purpose (Purpose), b=tile, c=candidate spaces (Mayor) or ()
    PAY = 3  # a=units left, b=purpose (Purpose), c=(tile or cube colour, market pos)
    ASIDE = 4  # a=meeples still to set aside
    ROLL = 5  # chance: a=RollKind, b=Mayor rolls left after this one
    RISK = 6  # rally or stop
    STRIKE = 7  # a=meeples still to return
    UPGRADE = 8  # a=steps left, b=steps taken
    USE = 9  # a Public Figure chooses a building: a=level
    PICK = 10  # an ability picks a meeple: a=effect code, b/c=parameters
    CUBE = 11  # an ability gains cubes: a=cubes left
    GAIN = 12  # a rewarded meeple's colour: a=bit mask of colours
    TAKE = 13  # City Planner hard: choose a plan
    TARGET = 14  # final scoring: keep one of two Targets
    MAYOR_BUILD = 15  # solo: a=tile, b=cubes left to place


class Purpose(IntEnum):
    START = 0
    BUY = 1
    TAKE = 2
    MAYOR = 3
    TRADE = 4


class RollKind(IntEnum):
    PREP = 0
    RALLY = 1
    PLANNER = 2  # a steady City Planner's re-roll: no bust
    MAYOR = 3


class PickEffect(IntEnum):
    CONVERT = 0  # b=from colour, c=to colour
    SACRIFICE = 1  # b=vp


Frame = tuple[F, int, int, int, Any]


def frame(kind: F, player: int, a: int = 0, b: int = 0, c: Any = ()) -> Frame:
    return (kind, player, a, b, c)
