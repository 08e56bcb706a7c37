"""State <-> plain data <-> bytes, and the state hash.

The document's fields, their order and how each is kept (as is, converted by a codec
below, or rebuilt on loading) come from the table in `heights_rules.state_fields`.
The byte form is canonical JSON (sorted keys, no whitespace), so it is the same on
every machine and its BLAKE2b is the state hash. Geometry and the generator are not
stored: they are rebuilt from the layout and the seed.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from heights_rules.catalogue import canonical_json, load_catalogue
from heights_rules.digests import blake2b
from heights_rules.errors import ReplayError
from heights_rules.frames import F, Frame, frame
from heights_rules.geometry import MapGeometry, Slot
from heights_rules.market import nearest_own
from heights_rules.options import GameConfig
from heights_rules.ranking import players_ranked
from heights_rules.rng import KeyedRng
from heights_rules.setup import cubes_in_play
from heights_rules.state import Phase, State, Termination
from heights_rules.state_fields import STATE_FIELDS, Kind, Stored, names

FORMAT = "rolling-heights-state"
FORMAT_VERSION = 1


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


def _stack_doc(stack: list[Frame]) -> list[list[Any]]:
    # int(a), int(b): a frame's values may be IntEnum members (Purpose.START). They print
    # as their numbers, but a patch compares types, so the pure-Python build sent a
    # `replace` of 0 by 0 where the compiled one (whose frames hold plain ints) did not.
    return [
        [int(k), p, int(a), int(b), list(c) if isinstance(c, tuple) else c]
        for k, p, a, b, c in stack
    ]


def _stack(s: State, doc: Any) -> list[Frame]:
    return [frame(F(k), p, a, b, tuple(c) if isinstance(c, list) else c) for k, p, a, b, c in doc]


def _geo(s: State, doc: Any) -> MapGeometry:
    slots = tuple(Slot(i, int(b), bool(r)) for i, (b, r) in enumerate(doc))
    return _geometry(s.config.catalogue_sha256, s.catalogue, slots)


def _on_cell(s: State) -> list[int]:
    on_cell = [-1] * len(s.geo.land)
    for tile, space in enumerate(s.space_of):
        if space >= 0:
            on_cell[space] = tile
    return on_cell


# The fields the table stores CONVERTED: how each is written into the document, and how
# it is read back, given the state loaded so far (the fields before it in the table).
# None where the value is written as it is; otherwise small native-friendly functions
# (mypyc compiles the lambdas and comprehensions, which beat attrgetter and map there).
_ENCODE: dict[str, Callable[[Any], Any] | None] = {
    "config": GameConfig.to_dict,
    "seed": None,  # an int, written as it is (and read back through int())
    "geo": lambda geo: [[sl.board_side, sl.rotated] for sl in geo.slots],
    "token_slot": list,
    "ads": list,
    "phase": lambda phase: phase.value,
    "termination": lambda termination: termination.value if termination else None,
    "stack": _stack_doc,
    "fill": lambda fill: [list(f) for f in fill],
}
_DECODE: dict[str, Callable[[State, Any], Any]] = {
    "config": lambda s, doc: _config(doc),
    "seed": lambda s, doc: int(doc),
    "geo": _geo,
    "token_slot": lambda s, doc: tuple(doc),
    "ads": lambda s, doc: tuple(doc),
    "phase": lambda s, doc: Phase(doc),
    "termination": lambda s, doc: Termination(doc) if doc else None,
    "stack": _stack,
    "fill": lambda s, doc: [tuple(f) for f in doc],
}
# The fields the table REBUILDS on loading, from the fields before them in the table.
_REBUILD: dict[str, Callable[[State], Any]] = {
    "catalogue": lambda s: load_catalogue(s.config.catalogue_id),
    "rng": lambda s: KeyedRng(s.seed),
    "solo": lambda s: s.config.solo,
    "n_seats": lambda s: s.config.players,
    "n_players": lambda s: players_ranked(s.config.players, solo=s.config.solo),
    "total": lambda s: cubes_in_play(s.config),
    "on_cell": _on_cell,
    "near": lambda s: [nearest_own(s, p) for p in range(s.n_players)],
}


# What each REBUILT field's function above reads of the fields before it: with a base
# (load_into), a field whose inputs are the base document's own objects is the base
# state's, not rebuilt.
_REBUILT_FROM: dict[str, tuple[str, ...]] = {
    "catalogue": ("config",),
    "rng": ("seed",),
    "solo": ("config",),
    "n_seats": ("config",),
    "n_players": ("config",),
    "total": ("config",),
    "on_cell": ("space_of", "geo"),
    "near": ("space_of", "owned", "config"),
}


def _check_codecs() -> None:
    """A field added to the table without its codec here fails at import, naming it."""
    for codecs, stored in ((_ENCODE, Stored.CONVERTED), (_DECODE, Stored.CONVERTED)):
        if set(codecs) != set(names(stored=stored)):
            raise AssertionError(f"codecs {sorted(codecs)} != the table's {stored.name} fields")
    for rebuilt in (_REBUILD, _REBUILT_FROM):
        if set(rebuilt) != set(names(stored=Stored.REBUILT)):
            raise AssertionError(f"rebuilds {sorted(rebuilt)} != the table's REBUILT fields")


_check_codecs()

# Writing, in table order: (attribute, document key, encoder or None for as-is).
_WRITE = tuple(
    (f.name, f.document_key, _ENCODE.get(f.name))
    for f in STATE_FIELDS
    if f.stored is not Stored.REBUILT
)
# Loading, in table order: how each field is set (values as is; lists stored as is are
# deep-copied unless the caller hands the document over).
_AS_IS_VALUE, _AS_IS_LISTS, _CONVERTED, _REBUILT = range(4)
_READ = tuple(
    (
        f.name,
        f.document_key,
        _CONVERTED
        if f.stored is Stored.CONVERTED
        else _REBUILT
        if f.stored is Stored.REBUILT
        else _AS_IS_VALUE
        if f.kind is Kind.VALUE
        else _AS_IS_LISTS,
    )
    for f in STATE_FIELDS
)


_DOCUMENT_KEY = {f.name: f.document_key for f in STATE_FIELDS}
# Per CONVERTED or REBUILT field: the document keys it is made from, and how a state
# rebuilt on a base takes the base's value (as clones do: shared, copied, rows copied).
_INPUTS = {
    f.name: tuple(_DOCUMENT_KEY[n] for n in _REBUILT_FROM[f.name])
    if f.stored is Stored.REBUILT
    else (f.document_key,)
    for f in STATE_FIELDS
    if f.stored is not Stored.AS_IS
}
_SHARE, _COPY_LIST, _COPY_ROWS = range(3)
_REUSE = {
    f.name: _SHARE if f.kind is Kind.VALUE else _COPY_LIST if f.kind is Kind.LIST else _COPY_ROWS
    for f in STATE_FIELDS
}


def to_dict(s: State) -> dict[str, Any]:
    """The state document; its as-is lists are the state's own (not copies)."""
    data: dict[str, Any] = {"format": FORMAT, "version": FORMAT_VERSION}
    for name, key, encode in _WRITE:
        value = getattr(s, name)
        data[key] = value if encode is None else encode(value)
    return data


def load_into(
    s: State,
    data: dict[str, Any],
    owned: bool = False,
    base: tuple[dict[str, Any], State] | None = None,
) -> None:
    """Rebuild a state into `s`; raises ReplayError if the data does not fit this engine.

    With `owned`, the caller hands over `data` (freshly parsed JSON, say): its lists
    become the state's own instead of being deep-copied.

    With `base`, an earlier (document, state loaded from it) whose document is unchanged
    since: the fields converted or rebuilt from values that are the very objects of the
    base document (a JSON Patch's result shares what it did not change) are taken from
    the base state rather than made again (~half of a bot's rebuild each decision).
    """
    if data.get("format") != FORMAT or data.get("version") != FORMAT_VERSION:
        raise ReplayError(f"not a {FORMAT} v{FORMAT_VERSION} document")
    try:
        for name, key, how in _READ:
            if how == _AS_IS_VALUE:
                setattr(s, name, data[key])
            elif how == _AS_IS_LISTS:
                setattr(s, name, data[key] if owned else copy.deepcopy(data[key]))
            elif base is not None and _unchanged(data, base[0], _INPUTS[name]):
                setattr(s, name, _reused(getattr(base[1], name), _REUSE[name]))
            elif how == _CONVERTED:
                setattr(s, name, _DECODE[name](s, data[key]))
            else:
                setattr(s, name, _REBUILD[name](s))
    except (KeyError, TypeError, ValueError) as err:
        raise ReplayError(f"malformed state document: {err}") from None


def _unchanged(data: dict[str, Any], before: dict[str, Any], keys: tuple[str, ...]) -> bool:
    return all(data[key] is before[key] for key in keys)


def _reused(value: Any, how: int) -> Any:
    if how == _SHARE:
        return value
    if how == _COPY_LIST:
        return list(value)
    return [list(row) for row in value]


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
    return blake2b(to_bytes(s), digest_size=16).hexdigest()
