"""The game's data: plain counts and lists, mutated in place by the rule modules.

`State` holds the data of one game and small helpers on it; it imports no rule module.
The rules live in small modules (`turn`, `main_phase`, `market`, `effects`, `solo`,
`scoring`) that act on a `State`; `heights_rules.game.GameState` is the playable state
on top of them all (legal actions, apply, serialization, observations). Everything
mutable is a list of ints or of immutable values, so a copy is a handful of list copies.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final, NamedTuple

from heights_rules.catalogue import Catalogue, load_catalogue
from heights_rules.components import CUBES, MEEPLES, N_BUCKETS, SCORES, Score
from heights_rules.frames import F, Frame
from heights_rules.geometry import MapGeometry
from heights_rules.options import GameConfig
from heights_rules.rng import KeyedRng
from heights_rules.state_fields import Kind, names

CHANCE = -1
TERMINAL = -2


class Phase(StrEnum):
    START = "START"  # starting placement
    TURN = "TURN"  # a player's turn (PREP, RISK, MAIN)
    MAYOR = "MAYOR"  # solo: the Mayor's turn
    TARGETS = "TARGETS"  # final scoring: players choose their Target
    OVER = "OVER"


class Termination(StrEnum):
    TRIGGER = "TRIGGER"  # the real game-end trigger and its final round
    ROUND_CAP = "ROUND_CAP"  # the safety valve (must never fire in normal play)


class Event(NamedTuple):
    """Something that happened during one step; VP events account for every point.

    A NamedTuple rather than a frozen dataclass: events are made on the hot path.
    """

    kind: str
    player: int
    data: dict[str, Any]


_new_event: Final = tuple.__new__


class State:
    """The data of one game in progress (see `heights_rules.game.GameState` to play it)."""

    # The fields of the table (heights_rules.state_fields) plus working storage that is
    # no part of the game: the legal-action and placement caches and the last step's events.
    __slots__ = (*names(), "_legal", "_place_cache", "events")

    # The types of the table's fields; what each holds, how it is copied and stored and
    # who may see it are in heights_rules.state_fields (tests/rules/test_state_fields.py
    # holds these names to it).

    # Immutable per game, shared by clones.
    config: GameConfig
    catalogue: Catalogue
    geo: MapGeometry
    rng: KeyedRng
    seed: int
    solo: bool
    n_seats: int  # seats that decide (1 in solo)
    n_players: int  # seats plus the Mayor in solo
    total: tuple[int, ...]  # cubes of each colour in play (after setup removal)
    ads: tuple[int, ...]
    token_slot: tuple[int, ...]  # solo: neighborhood number k+1 -> grid slot

    # Game flow.
    phase: Phase
    termination: Termination | None
    stack: list[Frame]  # pending decisions, the top one is asked
    order: list[int]  # starting placement: seats still to place, next first
    round: int
    seat: int  # whose turn it is
    start_seat: int
    turn_no: list[int]  # turns started, per player (a key of the dice)
    roll_idx: int  # rolls so far this turn (a key of the dice)
    end_round: int  # 0, or the last round once the end is triggered
    steps: int  # actions applied so far

    # The turn in progress.
    sp: int  # Spending Power
    bought: bool  # the one purchase of the turn is made
    pol_vp: int  # politician VP this turn (City Tribune)
    pol_mult: int
    used_buildings: list[int]  # tiles whose purple ability was used this turn
    sweeten: list[int]  # tiles to receive a Wild Token at the end of the turn

    # Supplies.
    supply: list[int]  # real cubes per colour
    on_buildings: list[int]  # real cubes per colour on tiles
    misc_in_play: bool
    meeple_supply: list[int]

    # Per player.
    score: list[list[int]]  # [player][Score]
    cubes: list[list[int]]  # [player][4 real colours + 4 misc tags]
    meeples: list[list[int]]  # [player][colour * N_BUCKETS + bucket]
    wild: list[int]
    owned: list[list[int]]  # tiles in placement order
    near: list[list[int]]  # [player][space]: distance to the nearest own tile
    targets: list[list[int]]
    target_choice: list[int]

    # Tiles (by catalogue index) and the map.
    owner: list[int]
    space_of: list[int]
    complete: list[bool]
    fill: list[tuple[int, ...]]  # cubes per stack
    tile_wild: list[int]  # Wild Tokens on a tile in a market
    on_cell: list[int]  # [space] -> tile or -1
    market: list[list[int]]  # [level][position] -> tile or -1
    piles: list[list[int]]  # [level], top of the pile last

    def __init__(self) -> None:
        self._legal: list[int] | None = None
        self._place_cache: dict[int, tuple[tuple[int, int], ...]] = {}
        self.events: list[Event] = []

    # ----------------------------------------------------------------- public surface
    def current_player(self) -> int:
        """The seat to decide, or CHANCE (the engine rolls), or TERMINAL."""
        if self.phase is Phase.OVER:
            return TERMINAL
        top = self.stack[-1]
        return CHANCE if top[0] is F.ROLL else top[1]

    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    # ----------------------------------------------------------------- small helpers
    @property
    def top(self) -> Frame:
        return self.stack[-1]

    def funds(self, p: int) -> int:
        """What player p can pay with: Spending Power plus every held cube."""
        return self.sp + sum(self.cubes[p])

    def meeple_count(self, p: int) -> int:
        return sum(self.meeples[p])

    def totals(self) -> list[int]:
        return [sum(row) for row in self.score]

    def add_score(self, p: int, category: Score, vp: int, why: str) -> None:
        if vp:
            self.score[p][category] += vp
            data = {"vp": vp, "category": category.name, "why": why}
            self.events.append(_new_event(Event, ("score", p, data)))

    def log(self, kind: str, player: int, **data: Any) -> None:
        # tuple.__new__ straight away: a NamedTuple's own __new__ is Python code.
        self.events.append(_new_event(Event, (kind, player, data)))

    def invalidate_map(self) -> None:
        self._place_cache = {}


# Copies follow the table's kinds: values are shared, lists copied, rows copied one by one.
_SHARED = names(Kind.VALUE)
_LISTS = names(Kind.LIST)
_ROWS = names(Kind.ROWS)


def copy_fields(src: State, dst: State) -> None:
    """Make `dst` an independent copy of `src`; immutable parts are shared."""
    for name in _SHARED:
        setattr(dst, name, getattr(src, name))
    for name in _LISTS:
        setattr(dst, name, getattr(src, name)[:])
    for name in _ROWS:
        setattr(dst, name, [row[:] for row in getattr(src, name)])
    dst._legal = src._legal
    dst._place_cache = dict(src._place_cache)
    dst.events = []


def empty_lists(n_players: int, spaces: int) -> dict[str, Any]:
    """Fresh per-player arrays for a new game."""
    return {
        "score": [[0] * len(SCORES) for _ in range(n_players)],
        "cubes": [[0] * (2 * len(CUBES)) for _ in range(n_players)],
        "meeples": [[0] * (len(MEEPLES) * N_BUCKETS) for _ in range(n_players)],
        "owned": [[] for _ in range(n_players)],
        "near": [[1] * spaces for _ in range(n_players)],
        "wild": [0] * n_players,
    }


def catalogue_for(config: GameConfig) -> Catalogue:
    return load_catalogue(config.catalogue_id)
