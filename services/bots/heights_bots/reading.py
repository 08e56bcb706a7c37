"""Reading one seat's position from what that seat may know.

Everything here reads public state only (the map, the markets, cubes and meeples on
the table, scores, the round) and never the draw piles, the seed or anyone's Targets,
so it gives the same answer on the true state and on any determinization of it.
"""

from __future__ import annotations

from heights_bots.tables import (
    EXPECTED_ROUNDS,
    MAX_ACTIVE,
    MEEPLE_RATE,
    NB,
    PURPLE,
    PURPLE_RATE_WITH_BUILDING,
    TRADE_PRICE,
    WILD_VP,
    tile_facts,
)
from heights_rules import GameState

MISC = 4  # misc cubes are held at cubes[p][4 + colour]


Remaining = tuple[int, int, int, int]
# (catalogue hash, tile, fill) -> cubes of each colour still needed. Fills are
# immutable tuples and each tile has at most a few hundred of them, so this stays small.
_REMAINING: dict[tuple[str, int, tuple[int, ...]], Remaining] = {}


def tile_remaining(s: GameState, tile: int) -> Remaining:
    """Cubes of each colour the plan still needs."""
    key = (s.catalogue.sha256, tile, s.fill[tile])
    left = _REMAINING.get(key)
    if left is None:
        out = [0, 0, 0, 0]
        for (colour, height), filled in zip(s.catalogue.tiles[tile].stacks, key[2], strict=True):
            out[colour] += height - filled
        left = _REMAINING[key] = (out[0], out[1], out[2], out[3])
    return left


def needs(s: GameState, p: int) -> list[int]:
    """Cubes of each colour that p's incomplete plans still need."""
    w = c = g = st = 0
    for tile in s.owned[p]:
        if not s.complete[tile]:
            left = tile_remaining(s, tile)
            w += left[0]
            c += left[1]
            g += left[2]
            st += left[3]
    return [w, c, g, st]


def buildable(s: GameState, p: int, colour: int) -> int:
    """Cubes of a colour p holds that could go on a building now (misc only after §5.4)."""
    held = s.cubes[p]
    if s.on_buildings[colour] == s.total[colour]:
        return held[colour] + held[MISC + colour]
    return held[colour]


def spare_funds(s: GameState, p: int, need: list[int]) -> int:
    """What p can pay without touching a cube its plans need: SP, surplus and misc cubes."""
    held = s.cubes[p]
    spare = s.sp
    for colour in range(4):
        usable = buildable(s, p, colour)
        spare += max(0, usable - need[colour]) + held[MISC + colour] + held[colour] - usable
    return spare


def turns_left(s: GameState) -> int:
    """An estimate of each seat's remaining turns, this one included.

    Before the trigger it extrapolates from the colour closest to being fully built;
    the expected length by player count dominates early, when that says little.
    """
    if s.end_round:
        return max(1, s.end_round - max(s.round, 1) + 1)
    built, cubes = s.on_buildings, s.total
    progress = max(
        built[0] / cubes[0], built[1] / cubes[1], built[2] / cubes[2], built[3] / cubes[3]
    )
    base = EXPECTED_ROUNDS.get(s.n_seats, 15)
    rounds = float(base)
    if progress > 0.05 and s.round > 0:
        weight = min(1.0, 2.0 * progress)
        rounds = base * (1.0 - weight) + (s.round / progress) * weight
    return max(2, min(25, round(rounds - max(s.round, 1) + 2)))


def production(s: GameState, p: int) -> float:
    """Expected cubes a turn from p's resource meeples (about 0.6 each, up to 10 active)."""
    producers = sum(s.meeples[p][: 4 * NB])  # the four resource colours come first
    return 0.62 * min(producers, MAX_ACTIVE) + 0.6


def effort(s: GameState, p: int) -> tuple[float, float, float, float]:
    """Payment units one cube of each colour costs p: 1 if p produces it, else a trade."""
    m = s.meeples[p]
    out = []
    for colour in range(4):
        produces = any(m[colour * NB : (colour + 1) * NB])
        out.append(1.0 if produces else 0.75 * TRADE_PRICE[colour])
    return out[0], out[1], out[2], out[3]


def meeple_rate(s: GameState, p: int, colour: int) -> float:
    """VP per own turn one more meeple of this colour is worth to p."""
    rate = MEEPLE_RATE[colour]
    if colour == PURPLE:
        facts = tile_facts(s.catalogue)
        purple_buildings = sum(1 for t in s.owned[p] if s.complete[t] and facts[t].has_purple)
        purples = sum(s.meeples[p][PURPLE * NB : (PURPLE + 1) * NB])
        if purple_buildings > purples:
            rate += PURPLE_RATE_WITH_BUILDING
    if sum(s.meeples[p]) >= MAX_ACTIVE:
        rate *= 0.35  # only 10 meeples roll a turn: extra ones mostly sit aside
    return rate


def wild_value(s: GameState, p: int) -> float:
    """A Wild Token's end value to p, counting p's own Targets that pay per token."""
    extra = 0.0
    for target in s.targets[p]:
        if target < 0:
            continue
        scoring = s.catalogue.targets[target].scoring
        if scoring.fn == "per_wild_token":
            extra = max(extra, 0.5 * int(scoring.params["per"]))
    return WILD_VP + extra
