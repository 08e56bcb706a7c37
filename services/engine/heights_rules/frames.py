"""Pending decisions: the engine's stack of frames.

A compound decision (buy: plan -> space -> pay unit by unit) is a sequence of frames,
so the top frame always names exactly one small decision. A frame is an immutable
`Frame(kind, player, a, b, c)`: what `a`, `b` and `c` hold depends on the kind (the
comments on `F`, the one list of them), and the named properties of `Frame` read them
for the kinds they belong to. Updating a frame replaces it, so cloning a state copies
the stack shallowly. A NamedTuple: frames are made on the hot path, and the state
document stores one as the list `[kind, player, a, b, c]`.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Final, NamedTuple


class F(IntEnum):
    MAIN = 0  # the MAIN phase's free choice
    START = 1  # starting placement: choose a level-1 plan
    PLACE = 2  # a=purpose (Purpose), b=tile, c=market cost (BUY), candidate spaces (MAYOR) or 0
    PAY = 3  # a=units left, b=purpose (Purpose), c=(tile, space), or (cube colour, 0) to TRADE
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


class Frame(NamedTuple):
    """One pending decision: its kind, the player to decide (-1: chance) and three values."""

    kind: F
    player: int
    a: int = 0
    b: int = 0
    c: Any = ()

    @property
    def purpose(self) -> int:
        """What a PLACE or a PAY decision is for (a `Purpose`)."""
        return self.b if self.kind is F.PAY else self.a

    @property
    def tile(self) -> int:
        """The tile a PLACE or a MAYOR_BUILD decision is about."""
        return self.a if self.kind is F.MAYOR_BUILD else self.b

    @property
    def level(self) -> int:
        """The level of building a USE decision (a Public Figure) may choose."""
        return self.a

    @property
    def effect(self) -> int:
        """The ability a PICK decision serves (a `PickEffect`)."""
        return self.a


def frame(kind: F, player: int, a: int = 0, b: int = 0, c: Any = ()) -> Frame:
    # tuple.__new__ straight away: a NamedTuple's own __new__ is Python code, run once
    # more for every frame (the same object either way).
    return _new(Frame, (kind, player, a, b, c))


_new: Final = tuple.__new__
