"""The game state: plain counts and lists, mutated in place by `apply`.

`GameState` holds data and the public surface (current player, legal actions,
apply, clone, outcome); the rules live in small modules (`turn`, `main_phase`,
`market`, `effects`, `solo`, `scoring`) that act on it. Everything mutable is a list
of ints or of immutable values, so `clone` is a handful of list copies.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, NamedTuple

from heights_rules.actions import NUM_ACTIONS, Action
from heights_rules.catalogue import Catalogue, load_catalogue
from heights_rules.components import CUBES, MEEPLES, N_BUCKETS, SCORES, Score
from heights_rules.errors import IllegalActionError, InvalidActionError
from heights_rules.frames import F, Frame
from heights_rules.geometry import MapGeometry
from heights_rules.options import GameConfig
from heights_rules.rng import KeyedRng

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


class GameState:
    """One game in progress. Build with `heights_rules.new_game`."""

    __slots__ = (
        "_legal",
        "_place_cache",
        "ads",
        "bought",
        "catalogue",
        "complete",
        "config",
        "cubes",
        "end_round",
        "events",
        "fill",
        "geo",
        "market",
        "meeple_supply",
        "meeples",
        "misc_in_play",
        "n_players",
        "n_seats",
        "near",
        "on_buildings",
        "on_cell",
        "order",
        "owned",
        "owner",
        "phase",
        "piles",
        "pol_mult",
        "pol_vp",
        "rng",
        "roll_idx",
        "round",
        "score",
        "seat",
        "seed",
        "solo",
        "sp",
        "space_of",
        "stack",
        "start_seat",
        "steps",
        "supply",
        "sweeten",
        "target_choice",
        "targets",
        "termination",
        "tile_wild",
        "token_slot",
        "total",
        "turn_no",
        "used_buildings",
        "wild",
    )

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

    def legal_actions(self) -> list[int]:
        """The sorted ids of every legal action (empty when the game is over)."""
        if self._legal is None:
            self._legal = _RULES.legal(self)
        return self._legal

    def legal_action_objects(self) -> list[Action]:
        return [Action.from_id(a) for a in self.legal_actions()]

    def apply(self, action: int | Action | str, seat: int | None = None) -> list[Event]:
        """Apply one action (id, Action or text) and return the events it caused.

        Raises InvalidActionError for a malformed action and IllegalActionError for one
        that is not legal now (or not `seat`'s decision); the state is then unchanged.
        """
        action_id = _to_id(action)
        if seat is not None and seat != self.current_player():
            raise IllegalActionError(
                f"seat {seat} cannot act now: it is {_who(self.current_player())}'s decision"
            )
        if action_id not in self.legal_actions():
            raise IllegalActionError(
                f"{Action.from_id(action_id).text()!r} is not legal now ({self.decision_text()})"
            )
        self.events = []
        self._legal = None
        self.steps += 1
        _RULES.apply(self, action_id)
        return self.events

    def clone(self) -> GameState:
        """An independent copy; immutable parts are shared."""
        c = GameState.__new__(GameState)
        for name in _SHARED:
            setattr(c, name, getattr(self, name))
        for name in FLAT_LISTS:
            setattr(c, name, getattr(self, name)[:])
        for name in NESTED_LISTS:
            setattr(c, name, [row[:] for row in getattr(self, name)])
        c._legal = self._legal
        c._place_cache = dict(self._place_cache)
        c.events = []
        return c

    def to_bytes(self) -> bytes:
        from heights_rules.serialize import to_bytes

        return to_bytes(self)

    @staticmethod
    def from_bytes(blob: bytes) -> GameState:
        from heights_rules.serialize import from_bytes

        return from_bytes(blob)

    def state_hash(self) -> str:
        from heights_rules.serialize import state_hash

        return state_hash(self)

    def observation(self, viewer: int = -1) -> dict[str, Any]:
        """What `viewer` (a seat, or -1 for a spectator) may see, as plain data."""
        from heights_rules.observation import observation

        return observation(self, viewer)

    def decision_text(self) -> str:
        from heights_rules.describe import describe_decision

        return describe_decision(self)

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
            self.events.append(Event("score", p, {"vp": vp, "category": category.name, "why": why}))

    def log(self, kind: str, player: int, **data: Any) -> None:
        self.events.append(Event(kind, player, data))

    def invalidate_map(self) -> None:
        self._place_cache = {}


class _Rules:
    """The rule modules' entry points, bound on first use.

    The rule modules import this one, so they cannot be imported at its top; binding
    them once here keeps an import statement off the per-step path.
    """

    def __init__(self) -> None:
        self._bound = False

    def _bind(self) -> None:
        from heights_rules.dispatch import apply_action
        from heights_rules.legal import legal_actions

        self.legal_fn: Callable[[GameState], list[int]] = legal_actions
        self.apply_fn: Callable[[GameState, int], None] = apply_action
        self._bound = True

    def legal(self, state: GameState) -> list[int]:
        if not self._bound:
            self._bind()
        return self.legal_fn(state)

    def apply(self, state: GameState, action_id: int) -> None:
        if not self._bound:
            self._bind()
        self.apply_fn(state, action_id)


_RULES = _Rules()

_SHARED = (
    "config",
    "catalogue",
    "geo",
    "rng",
    "seed",
    "solo",
    "n_seats",
    "n_players",
    "total",
    "ads",
    "token_slot",
    "phase",
    "round",
    "seat",
    "start_seat",
    "roll_idx",
    "sp",
    "bought",
    "pol_vp",
    "pol_mult",
    "misc_in_play",
    "end_round",
    "termination",
    "steps",
)
FLAT_LISTS = (
    "stack",
    "order",
    "supply",
    "on_buildings",
    "meeple_supply",
    "turn_no",
    "wild",
    "owner",
    "space_of",
    "complete",
    "fill",
    "on_cell",
    "tile_wild",
    "used_buildings",
    "sweeten",
    "target_choice",
)
NESTED_LISTS = ("score", "cubes", "meeples", "owned", "market", "piles", "targets", "near")


def _to_id(action: int | Action | str) -> int:
    if type(action) is int and 0 <= action < NUM_ACTIONS:
        return action
    if isinstance(action, Action):
        return action.id
    if isinstance(action, str):
        return Action.parse(action).id
    if isinstance(action, bool) or not isinstance(action, int):
        raise InvalidActionError(f"an action is an id, an Action or a text, not {action!r}")
    if not 0 <= action < NUM_ACTIONS:
        raise InvalidActionError(f"action id {action} is not in [0, {NUM_ACTIONS})")
    return action


def _who(player: int) -> str:
    if player == CHANCE:
        return "chance"
    if player == TERMINAL:
        return "nobody (the game is over)"
    return f"seat {player}"


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
