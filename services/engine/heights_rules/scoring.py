"""The scoring-function library used by variable VP, end bonuses, abilities, Ads and Targets.

Each function is `fn(state, owner, params, anchor) -> VP`; `anchor` is the space of the
building a tile-based function is printed on (-1 for Ads and Targets). See
docs/catalogue.md for the parameters. Adjacency is orthogonal on the global map.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from heights_rules.catalogue import GRID_COLS, GRID_ROWS, ScoringRef
from heights_rules.components import N_BUCKETS, Bucket, BuildingType, Meeple
from heights_rules.geometry import manhattan
from heights_rules.state import State

Params = dict[str, Any]
N_NEIGHBORHOODS: Final = GRID_ROWS * GRID_COLS
_POSITION_BUCKETS: Final = {
    "HARD": (Bucket.HARD, Bucket.USED_HARD),
    "STEADY": (Bucket.STEADY, Bucket.USED_STEADY),
    "EXHAUSTED": (Bucket.EXHAUSTED, Bucket.EXHAUSTED),
}


def evaluate(s: State, owner: int, ref: ScoringRef, anchor: int = -1) -> int:
    return _FUNCTIONS[ref.fn](s, owner, ref.params, anchor)


def _type_mask(types: Any) -> int:
    if types == "ANY":
        return (1 << len(BuildingType)) - 1
    return sum(1 << BuildingType[t] for t in types)


def _whose_ok(whose: str, owner: int, tile_owner: int) -> bool:
    if whose == "own":
        return tile_owner == owner
    if whose == "opponent":
        return tile_owner != owner
    return True


def _matches(s: State, tile: int, owner: int, params: Params, mask: int) -> bool:
    if params.get("completed", True) and not s.complete[tile]:
        return False
    if not _whose_ok(params.get("whose", "any"), owner, s.owner[tile]):
        return False
    return bool(mask >> s.catalogue.tiles[tile].type & 1)


def _placed(s: State) -> list[int]:
    return [t for t in range(len(s.owner)) if s.owner[t] >= 0]


def _own_completed(s: State, owner: int, mask: int) -> list[int]:
    tiles = s.catalogue.tiles
    return [t for t in s.owned[owner] if s.complete[t] and mask >> tiles[t].type & 1]


def per_adjacent(s: State, owner: int, params: Params, anchor: int) -> int:
    mask = _type_mask(params.get("types", "ANY"))
    n = 0
    for near in s.geo.adjacent[anchor]:
        tile = s.on_cell[near]
        if tile >= 0:
            n += _matches(s, tile, owner, params, mask)
        elif params.get("water", False) and not s.geo.land[near]:
            n += 1
    return n * int(params["per"])


def per_adjacent_empty(s: State, owner: int, params: Params, anchor: int) -> int:
    """Water counts as empty; the map edge does not (Gambrel Museum)."""
    empty = sum(1 for near in s.geo.adjacent[anchor] if s.on_cell[near] < 0)
    return min(empty, int(params.get("max", 4))) * int(params["per"])


def per_within(s: State, owner: int, params: Params, anchor: int) -> int:
    mask = _type_mask(params.get("types", "ANY"))
    distance = int(params["distance"])
    n = sum(
        1
        for t in _placed(s)
        if 1 <= manhattan(anchor, s.space_of[t]) <= distance and _matches(s, t, owner, params, mask)
    )
    return n * int(params["per"])


def per_own_building(s: State, owner: int, params: Params, anchor: int) -> int:
    mask = _type_mask(params.get("types", "ANY"))
    own = {**params, "whose": "own"}
    return sum(_matches(s, t, owner, own, mask) for t in s.owned[owner]) * int(params["per"])


def per_meeple(s: State, owner: int, params: Params, anchor: int) -> int:
    colours = params.get("colours", "ANY")
    chosen = list(Meeple) if colours == "ANY" else [Meeple[c] for c in colours]
    m = s.meeples[owner]
    positions = params.get("positions")
    n = 0
    for colour in chosen:
        base = colour * N_BUCKETS
        if positions is None:
            n += sum(m[base : base + N_BUCKETS])
            continue
        for position in positions:
            fresh, used = _POSITION_BUCKETS[position]
            n += m[base + fresh]
            if used != fresh and s.config.options.count_activated_architects:
                n += m[base + used]
    return n * int(params["per"])


def per_wild_token(s: State, owner: int, params: Params, anchor: int) -> int:
    return s.wild[owner] * int(params["per"])


def _neighbour_tiles(s: State, space: int) -> list[int]:
    return [s.on_cell[n] for n in s.geo.adjacent[space] if s.on_cell[n] >= 0]


def each_own_adjacent(s: State, owner: int, params: Params, anchor: int) -> int:
    own_mask = _type_mask(params.get("own_types", "ANY"))
    adj_mask = _type_mask(params.get("adjacent_types", []))
    test = {"completed": True, "whose": params.get("whose", "any")}
    per = int(params["per"])
    vp = 0
    for tile in _own_completed(s, owner, own_mask):
        space = s.space_of[tile]
        n = sum(_matches(s, t, owner, test, adj_mask) for t in _neighbour_tiles(s, space))
        if params.get("water", False):
            n += sum(1 for near in s.geo.adjacent[space] if not s.geo.land[near])
        vp += (per if n else 0) if params.get("cap_once", False) else per * n
    return vp


def each_adjacent_to_own(s: State, owner: int, params: Params, anchor: int) -> int:
    mask = _type_mask(params.get("types", "ANY"))
    own_mask = _type_mask(params.get("own_types", "ANY"))
    test = {"completed": True, "whose": params.get("whose", "any")}
    own = set(_own_completed(s, owner, own_mask))
    n = 0
    for tile in _placed(s):
        if _matches(s, tile, owner, test, mask) and any(
            t in own for t in _neighbour_tiles(s, s.space_of[tile])
        ):
            n += 1
    return n * int(params["per"])


def largest_group(s: State, owner: int, params: Params, anchor: int) -> int:
    mask = _type_mask(params.get("types", "ANY"))
    test = {"completed": params.get("completed", True), "whose": "own"}
    members = {s.space_of[t] for t in s.owned[owner] if _matches(s, t, owner, test, mask)}
    best = 0
    seen: set[int] = set()
    for start in sorted(members):
        if start in seen:
            continue
        size, todo = 0, [start]
        seen.add(start)
        while todo:
            space = todo.pop()
            size += 1
            for near in s.geo.adjacent[space]:
                if near in members and near not in seen:
                    seen.add(near)
                    todo.append(near)
        best = max(best, size)
    return best * int(params["per"])


def type_sets(s: State, owner: int, params: Params, anchor: int) -> int:
    counts = [len(_own_completed(s, owner, _type_mask([t]))) for t in params["types"]]
    return min(counts, default=0) * int(params["per"])


def rescore_half(s: State, owner: int, params: Params, anchor: int) -> int:
    tiles = s.catalogue.tiles
    mask = _type_mask(params.get("types", "ANY"))
    return sum(tiles[t].vp for t in _own_completed(s, owner, mask)) // 2


def _neighborhood_counts(s: State, mask: int) -> list[int]:
    counts = [0] * N_NEIGHBORHOODS
    for tile in _placed(s):
        if mask >> s.catalogue.tiles[tile].type & 1:
            counts[s.geo.neighborhood[s.space_of[tile]]] += 1
    return counts


def _most(counts: list[int]) -> list[int]:
    top = max(counts)
    return [n for n, c in enumerate(counts) if c == top] if top > 0 else []


def neighborhood_majority_penalty(s: State, owner: int, params: Params, anchor: int) -> int:
    worst = _most(_neighborhood_counts(s, _type_mask(params["types"])))
    mine = sum(1 for t in s.owned[owner] if s.geo.neighborhood[s.space_of[t]] in worst)
    return mine * int(params["per"])


def neighborhood_majority_rescore(s: State, owner: int, params: Params, anchor: int) -> int:
    best = _most(_neighborhood_counts(s, _type_mask(params["types"])))
    vp = 0
    for n in best:
        here = [
            _rescore_value(s, owner, t)
            for t in _own_completed(s, owner, _type_mask("ANY"))
            if s.geo.neighborhood[s.space_of[t]] == n
        ]
        vp += max(here, default=0)
    return vp


def _rescore_value(s: State, owner: int, tile: int) -> int:
    """What re-scoring a building earns (Ad 10): its printed VP and, from rules revision 2,
    its variable VP recomputed on the board at game end (RULES.md §10.1)."""
    t = s.catalogue.tiles[tile]
    if t.variable_vp is None or s.config.rules_revision < 2:
        return t.vp
    return t.vp + evaluate(s, owner, t.variable_vp, s.space_of[tile])


def neighborhood_most_completed(s: State, owner: int, params: Params, anchor: int) -> int:
    vp = 0
    for n in range(N_NEIGHBORHOODS):
        counts = [0] * s.n_players
        for t in _placed(s):
            if s.complete[t] and s.geo.neighborhood[s.space_of[t]] == n:
                counts[s.owner[t]] += 1
        if counts[owner] and counts[owner] == max(counts):
            vp += int(params["vp"])
    return vp


def neighborhood_tallest(s: State, owner: int, params: Params, anchor: int) -> int:
    tiles = s.catalogue.tiles
    vp = 0
    for n in range(N_NEIGHBORHOODS):
        here = [t for t in _placed(s) if s.complete[t] and s.geo.neighborhood[s.space_of[t]] == n]
        if not here:
            continue
        top = max(tiles[t].height for t in here)
        if any(s.owner[t] == owner and tiles[t].height == top for t in here):
            vp += int(params["vp"])
    return vp


def neighborhoods_present(s: State, owner: int, params: Params, anchor: int) -> int:
    test = {"completed": params.get("completed", True), "whose": "own"}
    mask = _type_mask(params.get("types", "ANY"))
    present = {
        s.geo.neighborhood[s.space_of[t]]
        for t in s.owned[owner]
        if _matches(s, t, owner, test, mask)
    }
    return len(present) * int(params["per"])


def stack_height_at_least(s: State, owner: int, params: Params, anchor: int) -> int:
    tiles = s.catalogue.tiles
    tall = [
        t
        for t in _own_completed(s, owner, _type_mask("ANY"))
        if tiles[t].height >= int(params["height"])
    ]
    return len(tall) * int(params["per"])


_FUNCTIONS: Final[dict[str, Callable[[State, int, Params, int], int]]] = {
    "per_adjacent": per_adjacent,
    "per_adjacent_empty": per_adjacent_empty,
    "per_within": per_within,
    "per_own_building": per_own_building,
    "per_meeple": per_meeple,
    "per_wild_token": per_wild_token,
    "each_own_adjacent": each_own_adjacent,
    "each_adjacent_to_own": each_adjacent_to_own,
    "largest_group": largest_group,
    "type_sets": type_sets,
    "rescore_half": rescore_half,
    "neighborhood_majority_penalty": neighborhood_majority_penalty,
    "neighborhood_majority_rescore": neighborhood_majority_rescore,
    "neighborhood_most_completed": neighborhood_most_completed,
    "neighborhood_tallest": neighborhood_tallest,
    "neighborhoods_present": neighborhoods_present,
    "stack_height_at_least": stack_height_at_least,
}
