"""The state's fields, listed once: what each holds, how it is copied and stored, who sees it.

Every consumer derives from `STATE_FIELDS`: `State.__slots__` and its copies
(`heights_rules.state`), the state document and so the bytes and the state hash
(`heights_rules.serialize`), what a seat's infoset hides (`heights_rules.observation`),
and the table of fields in docs/engine.md (`heights catalogue --state-fields` prints it;
tests/rules/test_state_fields.py fails when the two disagree).

The order is the state document's: the stored fields appear in it in this order, after
`format` and `version`. The bytes are canonical JSON with sorted keys, so the order
does not change them, but an infoset keeps it, and so do the observation patches made
from infosets; a field that is rebuilt rather than stored comes after what it is
rebuilt from.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple


class Kind(Enum):
    """How a field is copied: what a clone may share and what it must copy."""

    VALUE = "value"  # a number, an enum, a tuple or a frozen object: clones share it
    LIST = "list"  # a list of immutable items: a clone copies the list
    ROWS = "rows"  # a list of lists (per player, level or space): a clone copies each row


class Stored(Enum):
    """How a field is kept in the state document (`heights_rules.serialize`)."""

    AS_IS = "as is"  # the value itself (a number, or lists of numbers and booleans)
    CONVERTED = "converted"  # a plain form that serialize's codec of that field makes and reads
    REBUILT = "rebuilt"  # not in the document: rebuilt on loading from what is


class Visibility(Enum):
    """Who may know a field: what a seat's infoset keeps of it (`heights_rules.observation`)."""

    PUBLIC = "everyone"
    OWN_SEAT = "each seat its own row; everyone once the game is over"
    CONTENTS = "the contents of each row, not their order"
    NOBODY = "nobody"  # a stored one is 0 in an infoset


class StateField(NamedTuple):
    """One field of `heights_rules.state.State`.

    A NamedTuple rather than a frozen dataclass: mypyc compiles the modules that read
    the table, and it reads a tuple's fields as fast as a class's.
    """

    name: str  # the attribute of State
    kind: Kind
    stored: Stored
    visibility: Visibility
    holds: str  # what it holds, for the docs
    key: str = ""  # its key in the state document, where that is not `name`

    @property
    def document_key(self) -> str:
        return self.key or self.name


_V, _L, _R = Kind.VALUE, Kind.LIST, Kind.ROWS
_AS_IS, _CONV, _REBUILT = Stored.AS_IS, Stored.CONVERTED, Stored.REBUILT
_PUB = Visibility.PUBLIC

STATE_FIELDS: tuple[StateField, ...] = (
    # The game's set-up: fixed once the game is made.
    StateField("config", _V, _CONV, _PUB, "players, solo, rule options, catalogue id and hash"),
    StateField("catalogue", _V, _REBUILT, _PUB, "the components, loaded by the catalogue id"),
    StateField("seed", _V, _CONV, Visibility.NOBODY, "the game's 64-bit seed"),
    StateField("rng", _V, _REBUILT, Visibility.NOBODY, "the dice: draws keyed by the seed"),
    StateField("solo", _V, _REBUILT, _PUB, "a solo game against the Mayor"),
    StateField("n_seats", _V, _REBUILT, _PUB, "seats that decide (1 in solo)"),
    StateField("n_players", _V, _REBUILT, _PUB, "seats plus the Mayor in solo"),
    StateField("geo", _V, _CONV, _PUB, "the map: each board's side and rotation", key="slots"),
    StateField("total", _V, _REBUILT, _PUB, "cubes of each colour in play after set-up"),
    StateField("token_slot", _V, _CONV, _PUB, "solo: neighborhood number k+1 to its grid slot"),
    StateField("ads", _V, _CONV, _PUB, "the three Ads in play"),
    # Game flow.
    StateField("phase", _V, _CONV, _PUB, "START, TURN, MAYOR, TARGETS or OVER"),
    StateField("termination", _V, _CONV, _PUB, "how the game ended (TRIGGER, ROUND_CAP), or none"),
    StateField("stack", _L, _CONV, _PUB, "pending decisions as frames; the top one is asked"),
    StateField("fill", _L, _CONV, _PUB, "per tile: cubes on each of its stacks"),
    StateField("round", _V, _AS_IS, _PUB, "the round"),
    StateField("seat", _V, _AS_IS, _PUB, "whose turn it is"),
    StateField("start_seat", _V, _AS_IS, _PUB, "the start player"),
    StateField("roll_idx", _V, _AS_IS, _PUB, "rolls so far this turn (a key of the dice)"),
    StateField("sp", _V, _AS_IS, _PUB, "this turn's Spending Power"),
    StateField("bought", _V, _AS_IS, _PUB, "this turn's one purchase is made"),
    StateField("pol_vp", _V, _AS_IS, _PUB, "Politician VP this turn (City Tribune)"),
    StateField("pol_mult", _V, _AS_IS, _PUB, "the Politician VP multiplier this turn"),
    StateField("misc_in_play", _V, _AS_IS, _PUB, "misc cubes are in play (a colour ran out)"),
    StateField("end_round", _V, _AS_IS, _PUB, "0, or the last round once the end is triggered"),
    StateField("steps", _V, _AS_IS, _PUB, "actions applied so far, chance steps included"),
    StateField("order", _L, _AS_IS, _PUB, "starting placement: seats still to place, next first"),
    # Supplies and per-player counts.
    StateField("supply", _L, _AS_IS, _PUB, "real cubes in the supply, per colour"),
    StateField("on_buildings", _L, _AS_IS, _PUB, "real cubes on tiles, per colour"),
    StateField("meeple_supply", _L, _AS_IS, _PUB, "meeples in the supply, per colour"),
    StateField("turn_no", _L, _AS_IS, _PUB, "turns started, per player (a key of the dice)"),
    StateField("wild", _L, _AS_IS, _PUB, "Wild Tokens, per player"),
    # Tiles, by catalogue index.
    StateField("owner", _L, _AS_IS, _PUB, "per tile: its owner, or -1"),
    StateField("space_of", _L, _AS_IS, _PUB, "per tile: the land space it stands on, or -1"),
    StateField("complete", _L, _AS_IS, _PUB, "per tile: every stack is full"),
    StateField("tile_wild", _L, _AS_IS, _PUB, "per tile: Wild Tokens on it in a market"),
    # The turn in progress.
    StateField("used_buildings", _L, _AS_IS, _PUB, "tiles whose purple ability was used"),
    StateField("sweeten", _L, _AS_IS, _PUB, "tiles to get a Wild Token at the end of the turn"),
    StateField("target_choice", _L, _AS_IS, _PUB, "per player: the Target kept, or -1"),
    # Per player.
    StateField("score", _R, _AS_IS, _PUB, "[player][score category]: VP"),
    StateField("cubes", _R, _AS_IS, _PUB, "[player]: 4 real colours, then 4 misc"),
    StateField("meeples", _R, _AS_IS, _PUB, "[player][colour * buckets + bucket]: meeples"),
    StateField("owned", _R, _AS_IS, _PUB, "[player]: tiles in the order placed"),
    StateField("market", _R, _AS_IS, _PUB, "[level][position]: tile, or -1"),
    StateField("piles", _R, _AS_IS, Visibility.CONTENTS, "[level]: the draw pile, top last"),
    StateField("targets", _R, _AS_IS, Visibility.OWN_SEAT, "[player]: the two Targets dealt"),
    # Worked out from the rest on loading.
    StateField("on_cell", _L, _REBUILT, _PUB, "per land space: the tile on it, or -1"),
    StateField("near", _R, _REBUILT, _PUB, "[player][space]: distance to the nearest own tile"),
)


def names(kind: Kind | None = None, stored: Stored | None = None) -> tuple[str, ...]:
    """The names of the fields of `kind` and `stored` (either, or both), in table order."""
    return tuple(
        f.name
        for f in STATE_FIELDS
        if (kind is None or f.kind is kind) and (stored is None or f.stored is stored)
    )
