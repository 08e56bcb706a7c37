"""State <-> plain data <-> bytes, and the state hash.

The byte form is canonical JSON (sorted keys, no whitespace), so it is the same on
every machine and its BLAKE2b is the state hash. Geometry and the generator are not
stored: they are rebuilt from the layout and the seed.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from heights_rules.catalogue import canonical_json, load_catalogue
from heights_rules.errors import ReplayError
from heights_rules.frames import F, frame
from heights_rules.geometry import MapGeometry, Slot
from heights_rules.market import nearest_own
from heights_rules.options import GameConfig
from heights_rules.ranking import players_ranked
from heights_rules.rng import KeyedRng
from heights_rules.setup import cubes_in_play
from heights_rules.state import Phase, State, Termination

FORMAT = "rolling-heights-state"
FORMAT_VERSION = 1

_SCALARS = (
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
    "steps",
)
_LISTS = (
    "order",
    "supply",
    "on_buildings",
    "meeple_supply",
    "turn_no",
    "wild",
    "owner",
    "space_of",
    "complete",
    "tile_wild",
    "used_buildings",
    "sweeten",
    "target_choice",
    "score",
    "cubes",
    "meeples",
    "owned",
    "market",
    "piles",
    "targets",
)


def to_dict(s: State) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "config": s.config.to_dict(),
        "seed": s.seed,
        "slots": [[sl.board_side, sl.rotated] for sl in s.geo.slots],
        "token_slot": list(s.token_slot),
        "ads": list(s.ads),
        "phase": s.phase.value,
        "termination": s.termination.value if s.termination else None,
        "stack": [
            [int(k), p, a, b, list(c) if isinstance(c, tuple) else c] for k, p, a, b, c in s.stack
        ],
        "fill": [list(f) for f in s.fill],
    }
    for name in _SCALARS:
        data[name] = getattr(s, name)
    for name in _LISTS:
        data[name] = getattr(s, name)
    return data


# Map geometries are immutable and shared by every state laid out the same way; a bot
# that rebuilds its state at every decision (heights_bots.protocol_main) would otherwise
# recompute the same tables hundreds of times a game.
_GEOMETRIES: dict[tuple[str, tuple[Slot, ...]], MapGeometry] = {}
_GEOMETRY_CACHE_SIZE = 64


def _geometry(catalogue_sha256: str, catalogue: Any, slots: tuple[Slot, ...]) -> MapGeometry:
    key = (catalogue_sha256, slots)
    geo = _GEOMETRIES.get(key)
    if geo is None:
        if len(_GEOMETRIES) >= _GEOMETRY_CACHE_SIZE:
            _GEOMETRIES.clear()
        geo = _GEOMETRIES[key] = MapGeometry(catalogue, slots)
    return geo


_last_config: list[Any] = [None, None]  # (document, GameConfig) of the last rebuild


def _config(doc: dict[str, Any]) -> GameConfig:
    # Consecutive rebuilds are nearly always of the same game: skip re-validating options.
    if _last_config[0] != doc:
        _last_config[:] = [copy.deepcopy(doc), GameConfig.from_dict(doc)]
    config: GameConfig = _last_config[1]
    return config


def load_into(s: State, data: dict[str, Any], owned: bool = False) -> None:
    """Rebuild a state into `s`; raises ReplayError if the data does not fit this engine.

    With `owned`, the caller hands over `data` (freshly parsed JSON, say): its lists
    become the state's own instead of being deep-copied.
    """
    if data.get("format") != FORMAT or data.get("version") != FORMAT_VERSION:
        raise ReplayError(f"not a {FORMAT} v{FORMAT_VERSION} document")
    try:
        config = _config(data["config"])
        catalogue = load_catalogue(config.catalogue_id)
        s.config = config
        s.catalogue = catalogue
        s.seed = int(data["seed"])
        s.rng = KeyedRng(s.seed)
        s.solo = config.solo
        s.n_seats = config.players
        s.n_players = players_ranked(config.players, solo=config.solo)
        slots = tuple(Slot(i, int(b), bool(r)) for i, (b, r) in enumerate(data["slots"]))
        s.geo = _geometry(config.catalogue_sha256, catalogue, slots)
        s.total = cubes_in_play(config)
        s.token_slot = tuple(data["token_slot"])
        s.ads = tuple(data["ads"])
        s.phase = Phase(data["phase"])
        s.termination = Termination(data["termination"]) if data["termination"] else None
        s.stack = [
            frame(F(k), p, a, b, tuple(c) if isinstance(c, list) else c)
            for k, p, a, b, c in data["stack"]
        ]
        s.fill = [tuple(f) for f in data["fill"]]
        for name in _SCALARS:
            setattr(s, name, data[name])
        for name in _LISTS:
            setattr(s, name, data[name] if owned else copy.deepcopy(data[name]))
    except (KeyError, TypeError, ValueError) as err:
        raise ReplayError(f"malformed state document: {err}") from None
    s.on_cell = [-1] * len(s.geo.land)
    for tile, space in enumerate(s.space_of):
        if space >= 0:
            s.on_cell[space] = tile
    s.near = [nearest_own(s, p) for p in range(s.n_players)]


def to_bytes(s: State) -> bytes:
    return canonical_json(to_dict(s))


def document_from_bytes(blob: bytes) -> dict[str, Any]:
    """The state document in `blob`, checked to be a JSON object."""
    try:
        data = json.loads(blob)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ReplayError(f"state bytes are not JSON: {err}") from None
    if not isinstance(data, dict):
        raise ReplayError("state bytes are not a JSON object")
    return data


def state_hash(s: State) -> str:
    """A 128-bit hex digest of the canonical bytes."""
    return hashlib.blake2b(to_bytes(s), digest_size=16).hexdigest()
