"""The Mayor, the solo opponent (RULES.md §8). Its "you choose" decisions are seat 0's."""

from __future__ import annotations

from typing import Final

from heights_rules.actions import MAX_STACKS, OFFSETS, ActionKind
from heights_rules.catalogue import MARKET_SIZE
from heights_rules.completion import complete_building
from heights_rules.components import CUBE_NAMES, Score
from heights_rules.economy import is_full, place_real_cube, supply_ran_out, wild_in_circulation
from heights_rules.frames import F, Purpose, frame
from heights_rules.geometry import space_name
from heights_rules.market import put_on_map, slide_and_refill
from heights_rules.ranking import MAYOR_SEAT
from heights_rules.state import State

_BUILD: Final = OFFSETS[ActionKind.BUILD]
_DIE_ATTEMPTS: Final = 1000  # re-rolls for a full neighborhood; then the lowest open one


def mayor_roll(s: State) -> None:
    """One die roll of the Mayor's turn: Step A or Step B in the rolled neighborhood."""
    slide_and_refill(s)  # "replenishing the market if needed between each roll"
    open_numbers = [n for n in range(6) if _empty_spaces(s, s.token_slot[n])]
    if not open_numbers:
        s.log("mayor_skip", MAYOR_SEAT, why="every neighborhood is full")
        return
    die = 0
    for attempt in range(_DIE_ATTEMPTS):
        die = 1 + s.rng.below(6, b"mayor", s.round, s.roll_idx, attempt)
        if die - 1 in open_numbers:
            break
    else:
        die = open_numbers[0] + 1
    s.roll_idx += 1
    slot = s.token_slot[die - 1]
    s.log("mayor_die", MAYOR_SEAT, die=die, neighborhood=die)
    here = [t for t in s.owned[MAYOR_SEAT] if s.geo.neighborhood[s.space_of[t]] == slot]
    unfinished = [t for t in here if not s.complete[t]]
    if unfinished:  # Step B
        s.stack.append(frame(F.MAYOR_BUILD, 0, unfinished[0], s.config.options.mayor_step_b_cubes))
        return
    _step_a(s, die, slot, here)


def _step_a(s: State, die: int, slot: int, here: list[int]) -> None:
    empty = _empty_spaces(s, slot)
    level = 1 if any(s.complete[t] for t in here) else 0
    candidates = _centermost(s, empty)
    if here:
        adjacent = [sp for sp in empty if _next_to_mayor(s, sp, slot)]
        if adjacent:
            candidates = adjacent
        else:
            level = 1  # cut off by water: a level-2 plan in the centermost space (§8.3)
    pos = 0 if die <= 2 else 1 if die <= 4 else 2
    tile = _take(s, level, pos)
    if tile < 0:
        s.log("mayor_skip", MAYOR_SEAT, why="both markets are empty")
        return
    if die >= 5:
        _sweeten_first_two(s, level)
    if len(candidates) == 1:
        put_on_map(s, MAYOR_SEAT, tile, candidates[0])
        mayor_placed(s, tile, candidates[0])
    else:
        s.stack.append(frame(F.PLACE, 0, Purpose.MAYOR, tile, tuple(candidates)))


def _sweeten_first_two(s: State, level: int) -> None:
    """A Wild Token on the first 2 spaces; from revision 2 within `wild_supply_limit`."""
    limit = s.config.options.wild_supply_limit if s.config.rules_revision >= 2 else 0
    for t in s.market[level][:2]:
        if t >= 0 and (not limit or wild_in_circulation(s) < limit):
            s.tile_wild[t] += 1


def _empty_spaces(s: State, slot: int) -> list[int]:
    return [sp for sp in s.geo.neighborhood_spaces[slot] if s.on_cell[sp] < 0]


def _centermost(s: State, spaces: list[int]) -> list[int]:
    best = min(s.geo.centre_rank[sp] for sp in spaces)
    return [sp for sp in spaces if s.geo.centre_rank[sp] == best]


def _next_to_mayor(s: State, space: int, slot: int) -> bool:
    for near in s.geo.adjacent[space]:
        tile = s.on_cell[near]
        if tile >= 0 and s.owner[tile] == MAYOR_SEAT and s.geo.neighborhood[near] == slot:
            return True
    return False


def _take(s: State, level: int, pos: int) -> int:
    """The tile at `pos`, or the nearest one if that space is empty (markets run dry)."""
    for row in (s.market[level], s.market[1 - level]):
        order = list(range(pos, MARKET_SIZE)) + list(range(pos - 1, -1, -1))
        for i in order:
            if row[i] >= 0:
                tile = row[i]
                row[i] = -1
                tokens = s.tile_wild[tile]
                s.tile_wild[tile] = 0
                s.wild[MAYOR_SEAT] += tokens
                s.log("take", MAYOR_SEAT, tile=s.catalogue.tiles[tile].id, wild=tokens)
                return tile
    return -1


def mayor_placed(s: State, tile: int, space: int) -> None:
    """After placing: the space's zoning VP, then 3 cubes from the supply (§8.3 Step A)."""
    t = s.catalogue.tiles[tile]
    if s.geo.zoning_types[space] >> t.type & 1:
        s.add_score(
            MAYOR_SEAT, Score.ZONING, s.geo.zoning_vp[space], f"zoning at {space_name(space)}"
        )
    s.stack.append(frame(F.MAYOR_BUILD, 0, tile, s.config.options.mayor_step_a_cubes))


def _placeable(s: State, tile: int) -> dict[int, int]:
    """Colour -> how many cubes of it the Mayor could still place on the tile."""
    t = s.catalogue.tiles[tile]
    need: dict[int, int] = {}
    for (colour, height), filled in zip(t.stacks, s.fill[tile], strict=True):
        if filled < height:
            need[colour] = need.get(colour, 0) + height - filled
    out: dict[int, int] = {}
    for colour, n in need.items():
        if s.on_buildings[colour] == s.total[colour]:
            out[colour] = n  # misc cubes may be built (§5.4)
        elif s.supply[colour]:
            out[colour] = min(n, s.supply[colour])
    return out


def mayor_build_auto(s: State) -> bool:
    """Place the Mayor's cubes while no choice is needed; False when seat 0 must choose."""
    _, _, tile, left, _ = s.stack[-1]
    placeable = _placeable(s, tile) if left and not s.complete[tile] else {}
    if not placeable:
        s.stack.pop()
        return True
    if len(placeable) > 1 and sum(placeable.values()) > left:
        return False
    _place(s, tile, _first_stack(s, tile, min(placeable)))
    return True


def mayor_build_options(s: State) -> list[int]:
    _, _, tile, _, _ = s.stack[-1]
    base = _BUILD + s.space_of[tile] * MAX_STACKS
    return sorted(base + _first_stack(s, tile, colour) for colour in _placeable(s, tile))


def mayor_build_choice(s: State, stack: int) -> None:
    _, _, tile, _, _ = s.stack[-1]
    _place(s, tile, stack)


def _first_stack(s: State, tile: int, colour: int) -> int:
    for i, ((c, height), filled) in enumerate(
        zip(s.catalogue.tiles[tile].stacks, s.fill[tile], strict=True)
    ):
        if c == colour and filled < height:
            return i
    raise AssertionError("no open stack of that colour")


def _place(s: State, tile: int, stack: int) -> None:
    colour = s.catalogue.tiles[tile].stacks[stack][0]
    if s.supply[colour]:
        s.supply[colour] -= 1
        if s.supply[colour] == 0:
            supply_ran_out(s, colour)
        place_real_cube(s, colour)
    fill = list(s.fill[tile])
    fill[stack] += 1
    s.fill[tile] = tuple(fill)
    s.log("build", MAYOR_SEAT, tile=s.catalogue.tiles[tile].id, colour=CUBE_NAMES[colour])
    _, p, _, left, _ = s.stack.pop()
    s.stack.append(frame(F.MAYOR_BUILD, p, tile, left - 1))
    if is_full(s, tile):
        complete_building(s, tile)


def mayor_on_place(s: State, space: int) -> None:
    """The Mayor's PLACE decision: seat 0 chose the space, but the tile is the Mayor's."""
    tile = s.stack.pop()[3]
    put_on_map(s, MAYOR_SEAT, tile, space)
    mayor_placed(s, tile, space)
