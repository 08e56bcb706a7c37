"""The map: six board sides in a 2 x 3 grid, as one 8 x 15 grid of spaces.

Adjacency and distances are computed on the global grid (RULES.md §11): spaces across
a seam are orthogonally adjacent, only the outer border is an edge, and distances are
plain Manhattan distances that ignore water and occupied spaces (A-06).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from heights_rules.catalogue import BOARD_COLS, BOARD_ROWS, GRID_COLS, GRID_ROWS, Catalogue

ROWS: Final = BOARD_ROWS * GRID_ROWS
COLS: Final = BOARD_COLS * GRID_COLS
SPACES: Final = ROWS * COLS
ROW_NAMES = "ABCDEFGH"


def space_name(space: int) -> str:
    row, col = divmod(space, COLS)
    return f"{ROW_NAMES[row]}{col + 1}"


def parse_space(text: str) -> int:
    """`C7` -> index; raises ValueError for anything that is not a space name."""
    if len(text) < 2 or text[0].upper() not in ROW_NAMES or not text[1:].isdigit():
        raise ValueError(f"not a space name: {text!r}")
    col = int(text[1:]) - 1
    if not 0 <= col < COLS:
        raise ValueError(f"not a space name: {text!r}")
    return ROW_NAMES.index(text[0].upper()) * COLS + col


def _manhattan(a: int, b: int) -> int:
    ra, ca = divmod(a, COLS)
    rb, cb = divmod(b, COLS)
    return abs(ra - rb) + abs(ca - cb)


# DISTANCE[a][b]: the grid never changes shape, so distances are a table lookup.
DISTANCE: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(_manhattan(a, b) for b in range(SPACES)) for a in range(SPACES)
)


def manhattan(a: int, b: int) -> int:
    return DISTANCE[a][b]


@dataclass(frozen=True, slots=True)
class Slot:
    """One board of the map: which side lies in grid slot `index`, and whether it is turned."""

    index: int  # grid slot, row-major: 0..5
    board_side: int  # index into Catalogue.boards
    rotated: bool  # turned by 180 degrees


class MapGeometry:
    """Per-space facts of one laid-out map; immutable and shared between cloned states."""

    __slots__ = (
        "adjacent",
        "centre_rank",
        "land",
        "land_spaces",
        "neighborhood",
        "neighborhood_spaces",
        "prime",
        "slots",
        "zoning_types",
        "zoning_vp",
    )

    def __init__(self, catalogue: Catalogue, slots: tuple[Slot, ...]) -> None:
        self.slots = slots
        self.land = [False] * SPACES
        self.prime = [0] * SPACES
        self.zoning_types = [0] * SPACES  # bit mask of BuildingType
        self.zoning_vp = [0] * SPACES
        self.neighborhood = [0] * SPACES
        # Squared distance (x4) from the space's centre to its board's centre, for the
        # Mayor's "centermost square with land".
        self.centre_rank = [0] * SPACES
        for slot in slots:
            side = catalogue.boards[slot.board_side]
            grid_row, grid_col = divmod(slot.index, GRID_COLS)
            for local, cell in enumerate(side.cells):
                r, c = divmod(local, BOARD_COLS)
                if slot.rotated:
                    r, c = BOARD_ROWS - 1 - r, BOARD_COLS - 1 - c
                space = (grid_row * BOARD_ROWS + r) * COLS + grid_col * BOARD_COLS + c
                self.land[space] = cell.land
                self.prime[space] = cell.prime
                self.zoning_types[space] = sum(1 << t for t in cell.zoning_types)
                self.zoning_vp[space] = cell.zoning_vp
                self.neighborhood[space] = slot.index
                self.centre_rank[space] = (2 * r - (BOARD_ROWS - 1)) ** 2 + (
                    2 * c - (BOARD_COLS - 1)
                ) ** 2
        self.adjacent: list[tuple[int, ...]] = []
        for space in range(SPACES):
            row, col = divmod(space, COLS)
            near = []
            for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
                if 0 <= row + dr < ROWS and 0 <= col + dc < COLS:
                    near.append((row + dr) * COLS + col + dc)
            self.adjacent.append(tuple(near))
        self.land_spaces = tuple(s for s in range(SPACES) if self.land[s])
        self.neighborhood_spaces = tuple(
            tuple(s for s in self.land_spaces if self.neighborhood[s] == n)
            for n in range(GRID_ROWS * GRID_COLS)
        )
