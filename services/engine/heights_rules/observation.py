"""What each viewer may see: a seat's observation, the public view, and the infoset.

A seat sees everything public plus its own Targets; nobody sees the order of the draw
piles, the other seats' Targets (until they are chosen at the end) or the seed: the
visibility of each field in `heights_rules.state_fields`. The `infoset` of an
observation is the state document with exactly those parts scrubbed;
a search bot rebuilds it with `heights_rules.game.from_infoset` and fills the hidden
parts with `determinize`, which draws them from a key of its own.
"""

from __future__ import annotations

from typing import Any

from heights_rules.actions import action_text
from heights_rules.catalogue import MARKET_SIZE
from heights_rules.components import CUBES, MEEPLES, N_BUCKETS, SCORES, Bucket, BuildingType, lower
from heights_rules.describe import describe_decision
from heights_rules.economy import MISC
from heights_rules.final import target_values
from heights_rules.geometry import space_name
from heights_rules.legal import legal_ids
from heights_rules.market import market_cost
from heights_rules.ranking import MAYOR_SEAT
from heights_rules.serialize import to_dict
from heights_rules.state import CHANCE, TERMINAL, Phase, State
from heights_rules.state_fields import STATE_FIELDS, Kind, Stored, Visibility

# The spectator's viewpoint. `observation(s, PUBLIC)` is the one definition of what a
# spectator sees (the engine's spectator view, the platform's replay steps): the public
# state, no hidden parts, and no list of legal actions.
PUBLIC = -1
HIDDEN = -1  # a hidden Target in an infoset

# What an infoset keeps of each stored field follows the table's visibility. The public
# lists stored as is are the state's own in `to_dict`, so they are copied: a view may be
# kept (as the base of the next observation patch) while the game goes on.
_STORED = [f for f in STATE_FIELDS if f.stored is not Stored.REBUILT]
_PUBLIC_LISTS = tuple(
    f.document_key
    for f in _STORED
    if f.visibility is Visibility.PUBLIC and f.stored is Stored.AS_IS and f.kind is Kind.LIST
)
_PUBLIC_ROWS = tuple(
    f.document_key
    for f in _STORED
    if f.visibility is Visibility.PUBLIC and f.stored is Stored.AS_IS and f.kind is Kind.ROWS
)
_FILL = next(f.document_key for f in _STORED if f.name == "fill")
_CONFIG = next(f.document_key for f in _STORED if f.name == "config")
_SECRET = tuple(f.document_key for f in _STORED if f.visibility is Visibility.NOBODY)
_CONTENTS = tuple((f.name, f.document_key) for f in _STORED if f.visibility is Visibility.CONTENTS)
_OWN_SEAT = tuple((f.name, f.document_key) for f in _STORED if f.visibility is Visibility.OWN_SEAT)


class ViewCache:
    """Parts of one game's earlier views, handed out again while their inputs are unchanged.

    The engine builds a view of the seat to move at every decision and sends it as a
    JSON Patch from that seat's last one; most of the document (the map, the state's
    public lists) is the same as before. Parts built from the same input objects are
    the same document, so they are reused as the same objects: building them again is
    skipped, and the patch skips them at its first `is` check instead of walking them.
    Inputs are compared by identity, element by element: an int or bool of the same
    value and type is one object (small ints and bools are singletons), tuples are
    immutable, and the state's lists of them are shallow-copied by `clone`, so an
    element that is the same object is the same value; anything else is rebuilt, never
    wrongly kept. Views built with a cache share those parts with each other: read-only.
    """

    __slots__ = (
        "cells",
        "completes",
        "config",
        "config_doc",
        "fill_doc",
        "fill_source",
        "fills",
        "lists",
        "map",
        "markets",
        "owners",
        "players",
        "rows",
        "statics",
        "tiles",
    )

    def __init__(self) -> None:
        self.statics: tuple[dict[str, Any], ...] = ()
        self.cells: list[dict[str, Any]] = []  # per land space, its last built cell
        # Per land space, what its cell was built from: the tile (-1: none), its owner,
        # fill and completion, compared by identity (see above).
        self.tiles: list[int] = []
        self.owners: list[Any] = []
        self.fills: list[Any] = []
        self.completes: list[Any] = []
        self.map: dict[str, Any] = {}
        self.lists: dict[str, list[Any]] = {}  # infoset key -> the last copy handed out
        self.rows: dict[str, list[list[Any]]] = {}
        self.fill_source: list[Any] = []  # the state's fill tuples the last fill_doc shows
        self.fill_doc: list[list[Any]] = []
        self.config: Any = None
        # Per market level: the strip's tiles and their wild tokens, and its view.
        self.markets: dict[int, tuple[list[Any], list[Any], list[dict[str, Any]]]] = {}
        # Per seat, its row of the players' view for the viewers who may not see its
        # Targets, and what it was built from.
        self.players: list[_KeptPlayer | None] = []
        self.config_doc: Any = None


def _same_items(kept: list[Any], current: list[Any]) -> bool:
    """Whether `current` holds, position by position, the very objects `kept` holds."""
    if len(kept) != len(current):
        return False
    # A plain loop: mypyc compiles it to direct indexing, where all() over a generator
    # made the cached infoset slower than copying.
    for index in range(len(kept)):  # noqa: SIM110
        if kept[index] is not current[index]:
            return False
    return True


def _copy_of(kept: dict[str, list[Any]], key: str, current: list[Any]) -> list[Any]:
    """A copy of the list `current`: the one handed out last time when it still fits."""
    copy = kept.get(key)
    if copy is not None and _same_items(copy, current):
        return copy
    copy = kept[key] = list(current)
    return copy


def _rows_of(
    kept: dict[str, list[list[Any]]], key: str, current: list[list[Any]]
) -> list[list[Any]]:
    """A copy of the rows `current`, reusing each row's last copy (and the whole) if it fits."""
    rows = kept.get(key)
    if rows is None or len(rows) != len(current):
        rows = kept[key] = [list(row) for row in current]
        return rows
    fresh: list[list[Any]] | None = None  # the new list of rows once one row changed
    for index in range(len(rows)):
        if not _same_items(rows[index], current[index]):
            if fresh is None:
                fresh = list(rows)  # never edit the rows list earlier views hold
            fresh[index] = list(current[index])
    if fresh is None:
        return rows
    kept[key] = fresh
    return fresh


def seat_sees(s: State, owner: int, viewer: int) -> bool:
    """Whether `viewer` may see `owner`'s row of an OWN_SEAT field (its Targets)."""
    return owner == viewer or s.phase is Phase.OVER


def infoset(s: State, viewer: int, cache: ViewCache | None = None) -> dict[str, Any]:
    """The state document with what `viewer` must not know removed.

    With a `cache`, the copies of the public lists, the tiles' fill and the
    configuration are the cache's while unchanged (ViewCache).
    """
    data = to_dict(s)
    if cache is not None:
        _shared_parts(s, data, cache)
    else:
        for key in _PUBLIC_LISTS:
            data[key] = list(data[key])
        for key in _PUBLIC_ROWS:
            data[key] = [list(row) for row in data[key]]
    for key in _SECRET:
        data[key] = 0
    for name, key in _CONTENTS:
        data[key] = [sorted(row) for row in getattr(s, name)]
    for name, key in _OWN_SEAT:
        data[key] = [
            list(row) if seat_sees(s, p, viewer) else [HIDDEN] * len(row)
            for p, row in enumerate(getattr(s, name))
        ]
    data["redacted_for"] = viewer
    return data


def _shared_parts(s: State, data: dict[str, Any], cache: ViewCache) -> None:
    lists = cache.lists
    for key in _PUBLIC_LISTS:
        data[key] = _copy_of(lists, key, data[key])
    for key in _PUBLIC_ROWS:
        data[key] = _rows_of(cache.rows, key, data[key])
    # The fill is written as fresh lists of the state's tuples (serialize's encoder); a
    # tile's tuple is replaced when its fill changes, so the tuples are compared.
    fills = s.fill
    if not _same_items(cache.fill_source, fills):
        if len(cache.fill_source) != len(fills):
            cache.fill_doc = [list(row) for row in fills]
        else:
            doc = list(cache.fill_doc)  # never edit the list earlier views hold
            for index in range(len(fills)):
                if cache.fill_source[index] is not fills[index]:
                    doc[index] = list(fills[index])
            cache.fill_doc = doc
        cache.fill_source = list(fills)
    data[_FILL] = cache.fill_doc
    if cache.config is not s.config:  # frozen, and one per game
        cache.config, cache.config_doc = s.config, data[_CONFIG]
    data[_CONFIG] = cache.config_doc


# Lower-case names for the view's keys, worked out once rather than at every decision.
_CUBE_NAMES = tuple((c, lower(c.name)) for c in CUBES)
_MISC_NAMES = tuple((MISC + c, lower(c.name)) for c in CUBES)
_SCORE_NAMES = tuple((c, c.name) for c in SCORES)
_BUCKET_NAMES = tuple((b, lower(b.name)) for b in Bucket)
_MEEPLE_NAMES = tuple((colour * N_BUCKETS, lower(colour.name)) for colour in MEEPLES)
_MEEPLE_SUPPLY_NAMES = tuple((colour, lower(colour.name)) for colour in MEEPLES)


def observation(s: State, viewer: int = PUBLIC, cache: ViewCache | None = None) -> dict[str, Any]:
    """A readable view for `viewer` (a seat, or PUBLIC) plus its infoset.

    With a `cache` (one per game), unchanged parts are shared with the game's earlier
    views built with it, and must not be edited (ViewCache).
    """
    to_move = s.current_player()
    view: dict[str, Any] = {
        "viewer": viewer,
        "to_move": {CHANCE: "chance", TERMINAL: "terminal"}.get(to_move, to_move),
        "decision": describe_decision(s),
        "legal": [],
        "phase": s.phase.value,
        "round": s.round,
        "start_seat": s.start_seat,
        "turn_seat": s.seat,
        "end_triggered": bool(s.end_round),
        "final_round": s.end_round or None,
        "turn": {"sp": s.sp, "bought": s.bought, "politician_vp": s.pol_vp},
        "players": [_player_row(s, p, viewer, cache) for p in range(s.n_players)],
        "markets": [_market_row(s, level, cache) for level in (0, 1)],
        "draw_piles": [len(pile) for pile in s.piles],
        "supply": {
            "cubes": {name: s.supply[c] for c, name in _CUBE_NAMES},
            "cubes_in_play": {name: s.total[c] for c, name in _CUBE_NAMES},
            "on_buildings": {name: s.on_buildings[c] for c, name in _CUBE_NAMES},
            "misc_in_play": s.misc_in_play,
            "meeples": {name: s.meeple_supply[m] for m, name in _MEEPLE_SUPPLY_NAMES},
        },
        "ads": [s.catalogue.ads[a].id for a in s.ads],
        "map": _map_view(s) if cache is None else _cached_map_view(s, cache),
        "infoset": infoset(s, viewer, cache),
    }
    # Only the seat to move is shown its choices; never a spectator (nor chance's, whose
    # CHANCE is PUBLIC's number).
    if to_move == viewer != PUBLIC:
        view["legal"] = [{"id": a, "text": action_text(a)} for a in legal_ids(s)]
    return view


def _player_view(s: State, p: int, viewer: int) -> dict[str, Any]:
    m = s.meeples[p]
    cubes = s.cubes[p]
    score = s.score[p]
    meeples: dict[str, Any] = {}
    for base, colour in _MEEPLE_NAMES:
        counts = {bucket: m[base + b] for b, bucket in _BUCKET_NAMES if m[base + b]}
        if counts:
            meeples[colour] = counts
    tiles = s.catalogue.tiles
    view: dict[str, Any] = {
        "player": p,
        "mayor": s.solo and p == MAYOR_SEAT,
        "score": sum(score),
        "score_by_category": {name: score[c] for c, name in _SCORE_NAMES},
        "wild_tokens": s.wild[p],
        "cubes": {name: cubes[c] for c, name in _CUBE_NAMES},
        "misc_cubes": {name: cubes[i] for i, name in _MISC_NAMES},
        "meeples": meeples,
        "tiles": [tiles[t].id for t in s.owned[p]],
    }
    if s.target_choice[p] >= 0:
        view["chosen_target"] = s.catalogue.targets[s.target_choice[p]].id
    if seat_sees(s, p, viewer):
        view["targets"] = [s.catalogue.targets[t].id for t in s.targets[p]]
        if p == viewer:
            view["target_values"] = target_values(s, p)
    return view


class _KeptPlayer:
    """A seat's row of the players' view as a viewer who may not see its Targets sees it,
    with copies of the lists it was built from."""

    __slots__ = ("cubes", "meeples", "owned", "score", "target_choice", "view", "wild")

    def __init__(self, s: State, p: int, view: dict[str, Any]) -> None:
        self.meeples: list[Any] = list(s.meeples[p])
        self.cubes: list[Any] = list(s.cubes[p])
        self.score: list[Any] = list(s.score[p])
        self.owned: list[Any] = list(s.owned[p])
        self.wild: Any = s.wild[p]
        self.target_choice: Any = s.target_choice[p]
        self.view = view

    def fits(self, s: State, p: int) -> bool:
        return (
            self.wild is s.wild[p]
            and self.target_choice is s.target_choice[p]
            and _same_items(self.cubes, s.cubes[p])
            and _same_items(self.score, s.score[p])
            and _same_items(self.meeples, s.meeples[p])
            and _same_items(self.owned, s.owned[p])
        )


def _player_row(s: State, p: int, viewer: int, cache: ViewCache | None) -> dict[str, Any]:
    """`_player_view`, reused while the seat's rows are unchanged; a row showing Targets
    (the viewer's own, every row once the game is over) is built afresh every time."""
    if cache is None or seat_sees(s, p, viewer):
        return _player_view(s, p, viewer)
    while len(cache.players) <= p:
        cache.players.append(None)
    kept = cache.players[p]
    if kept is not None and kept.fits(s, p):
        return kept.view
    view = _player_view(s, p, viewer)
    cache.players[p] = _KeptPlayer(s, p, view)
    return view


def _market_view(s: State, level: int) -> list[dict[str, Any]]:
    row = s.market[level]
    return [
        {
            "position": pos + 1,
            "tile": s.catalogue.tiles[row[pos]].id if row[pos] >= 0 else None,
            "cost": market_cost(s, level, pos),
            "wild_tokens": s.tile_wild[row[pos]] if row[pos] >= 0 else 0,
        }
        for pos in range(MARKET_SIZE)
    ]


def _market_row(s: State, level: int, cache: ViewCache | None) -> list[dict[str, Any]]:
    """`_market_view`, reused while the strip holds the same tiles with the same wild
    tokens (its costs are the catalogue's and the game's options: fixed for a game)."""
    if cache is None:
        return _market_view(s, level)
    row = s.market[level]
    wild = [s.tile_wild[tile] if tile >= 0 else None for tile in row]
    kept = cache.markets.get(level)
    if kept is not None and _same_items(kept[0], row) and _same_items(kept[1], wild):
        return kept[2]
    view = _market_view(s, level)
    cache.markets[level] = (list(row), wild, view)
    return view


# The map's fixed part (each land space's name, neighbourhood, prime value and zoning) by
# layout: it never changes during a game, and it is most of the map's view.
_STATIC_MAPS: dict[tuple[str, tuple[Any, ...]], tuple[dict[str, Any], ...]] = {}
_STATIC_MAP_CACHE_SIZE = 256


def _static_cells(s: State) -> tuple[dict[str, Any], ...]:
    geo = s.geo
    key = (s.config.catalogue_sha256, tuple(geo.slots))
    cells = _STATIC_MAPS.get(key)
    if cells is None:
        built = []
        for space in geo.land_spaces:
            cell: dict[str, Any] = {
                "space": space_name(space),
                "neighborhood": geo.neighborhood[space],
            }
            if geo.prime[space]:
                cell["prime"] = geo.prime[space]
            if geo.zoning_vp[space]:
                cell["zoning"] = {
                    "types": [t.name for t in _types(geo.zoning_types[space])],
                    "vp": geo.zoning_vp[space],
                }
            built.append(cell)
        if len(_STATIC_MAPS) >= _STATIC_MAP_CACHE_SIZE:
            _STATIC_MAPS.clear()
        cells = _STATIC_MAPS[key] = tuple(built)
    return cells


def _map_view(s: State) -> dict[str, Any]:
    geo = s.geo
    tiles = s.catalogue.tiles
    spaces = []
    for space, static in zip(geo.land_spaces, _static_cells(s), strict=True):
        # A copy, so a caller may edit its cells; the nested zoning stays shared, read-only.
        cell = dict(static)
        spaces.append(cell)
        tile = s.on_cell[space]
        if tile >= 0:
            cell["building"] = {
                "tile": tiles[tile].id,
                "owner": s.owner[tile],
                "fill": list(s.fill[tile]),
                "complete": s.complete[tile],
            }
    return {
        "boards": [
            s.catalogue.boards[sl.board_side].id + ("r" if sl.rotated else "") for sl in geo.slots
        ],
        "land": spaces,
    }


def _cached_map_view(s: State, cache: ViewCache) -> dict[str, Any]:
    """`_map_view`, rebuilding only the cells whose tile, owner, fill or completion changed."""
    geo = s.geo
    statics = _static_cells(s)
    n = len(statics)
    if cache.statics is not statics:  # the first view (or another layout): start afresh
        cache.statics = statics
        cache.cells = [dict(static) for static in statics]
        cache.tiles = [-1] * n
        cache.owners = [None] * n
        cache.fills = [None] * n
        cache.completes = [None] * n
        cache.map = {}
    tiles = s.catalogue.tiles
    land, on_cell, owner, fill, complete = geo.land_spaces, s.on_cell, s.owner, s.fill, s.complete
    changed = not cache.map
    for index in range(n):
        tile = on_cell[land[index]]
        if tile < 0:
            if cache.tiles[index] < 0:
                continue
        elif (
            cache.tiles[index] == tile  # an index: only the tile's id is shown
            and cache.fills[index] is fill[tile]  # a tuple, replaced when it changes
            and cache.owners[index] is owner[tile]
            and cache.completes[index] is complete[tile]
        ):
            continue
        changed = True
        cell = dict(statics[index])
        if tile >= 0:
            cell["building"] = {
                "tile": tiles[tile].id,
                "owner": owner[tile],
                "fill": list(fill[tile]),
                "complete": complete[tile],
            }
            cache.owners[index] = owner[tile]
            cache.fills[index] = fill[tile]
            cache.completes[index] = complete[tile]
        cache.cells[index] = cell
        cache.tiles[index] = tile
    if changed:
        cache.map = {
            "boards": [
                s.catalogue.boards[sl.board_side].id + ("r" if sl.rotated else "")
                for sl in geo.slots
            ],
            "land": list(cache.cells),
        }
    return cache.map


def _types(mask: int) -> list[Any]:
    return [t for t in BuildingType if mask >> t & 1]
