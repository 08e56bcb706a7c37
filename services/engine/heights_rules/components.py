"""The game's vocabulary: colours, building types, meeple positions and score categories.

Enums are `IntEnum`s because their values index the engine's flat count arrays and
appear in action ids; their order is part of the action-space contract.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final


class Cube(IntEnum):
    """A resource cube colour (misc orange cubes carry one of these as a tag)."""

    WOOD = 0
    CONCRETE = 1
    GLASS = 2
    STEEL = 3


CUBES: Final[tuple[Cube, ...]] = tuple(Cube)


class Meeple(IntEnum):
    """A meeple colour; the role is given in the comment."""

    BROWN = 0  # Carpenter: wood
    NAVY = 1  # Construction Worker: concrete
    CLEAR = 2  # Architect: glass
    BLUE = 3  # Riveter: steel
    YELLOW = 4  # Politician: VP
    MAGENTA = 5  # Executive: Spending Power
    PURPLE = 6  # Public Figure: building abilities
    BLACK = 7  # City Planner: re-roll / free plan
    GREEN = 8  # Public Servant: upgrades


MEEPLES: Final[tuple[Meeple, ...]] = tuple(Meeple)

# Which cube each resource meeple produces.
PRODUCES: Final[dict[Meeple, Cube]] = {
    Meeple.BROWN: Cube.WOOD,
    Meeple.NAVY: Cube.CONCRETE,
    Meeple.CLEAR: Cube.GLASS,
    Meeple.BLUE: Cube.STEEL,
}

MEEPLE_ROLES: dict[Meeple, str] = {
    Meeple.BROWN: "Carpenter",
    Meeple.NAVY: "Construction Worker",
    Meeple.CLEAR: "Architect",
    Meeple.BLUE: "Riveter",
    Meeple.YELLOW: "Politician",
    Meeple.MAGENTA: "Executive",
    Meeple.PURPLE: "Public Figure",
    Meeple.BLACK: "City Planner",
    Meeple.GREEN: "Public Servant",
}

# Component counts from the rulebook's component list (RULES.md §1.1).
MEEPLE_COUNTS: tuple[int, ...] = (8, 16, 16, 13, 11, 8, 11, 7, 8)
CUBE_COUNTS: tuple[int, ...] = (60, 60, 80, 60)


class Bucket(IntEnum):
    """Where one of a player's meeples is this turn (RULES.md §4.0 as counts).

    Meeples of one colour in one bucket are interchangeable, so a player's meeples
    are stored as counts per (colour, bucket). Activated meeples keep their
    position because Pritzker Zoo's conversion and Botanical Gardens read it.
    """

    IDLE = 0  # not active this turn: set aside in PREP, gained this turn, or between turns
    HARD = 1  # active, Working Hard, not yet activated
    STEADY = 2  # active, Working Steady, not yet activated
    EXHAUSTED = 3  # active, Exhausted (or not rolled yet)
    USED_HARD = 4  # activated this turn, was Working Hard
    USED_STEADY = 5  # activated this turn, was Working Steady


N_BUCKETS: Final = 6  # len(Bucket), a literal so that compiled code inlines it
assert N_BUCKETS == len(Bucket)


class Level(IntEnum):
    """An ability level: the Working Steady or the Working Hard version."""

    STEADY = 0
    HARD = 1


class BuildingType(IntEnum):
    RESIDENTIAL = 0
    PARK = 1
    COMMERCIAL = 2
    CIVIC = 3
    INDUSTRY = 4


class Score(IntEnum):
    """Score categories; every point scored lands in exactly one of them."""

    ZONING = 0
    POLITICIANS = 1
    ABILITIES = 2
    COMPLETION = 3
    VARIABLE = 4
    ADS = 5
    TARGET = 6
    WILD_TOKENS = 7
    END_BONUS = 8
    MAYOR_CUBES = 9


SCORES: Final[tuple[Score, ...]] = tuple(Score)


# Names by value: an enum lookup costs more than the rest of a cheap step, and events
# name colours on the per-step path.
CUBE_NAMES: Final[tuple[str, ...]] = tuple(c.name for c in Cube)
MEEPLE_NAMES: Final[tuple[str, ...]] = tuple(m.name for m in Meeple)


def lower(name: str) -> str:
    """The canonical text form of an enum member name (`USED_HARD` -> `used-hard`)."""
    return name.lower().replace("_", "-")
