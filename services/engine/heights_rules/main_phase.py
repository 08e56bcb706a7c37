"""The MAIN phase (RULES.md §4.3): activations, buying, trades, Wild Tokens, construction."""

from __future__ import annotations

from typing import Final

from heights_rules.actions import ACTIVATE_MODES, MAX_STACKS, OFFSETS, ActionKind
from heights_rules.catalogue import MARKET_SIZE
from heights_rules.completion import build_cube
from heights_rules.components import MEEPLE_NAMES, MEEPLES, N_BUCKETS, PRODUCES, Bucket, Meeple
from heights_rules.economy import (
    can_build_colour,
    gain_cube,
    score_politicians,
)
from heights_rules.effects import usable_buildings
from heights_rules.frames import F, Purpose, RollKind, frame
from heights_rules.market import (
    TRADE_PRICE,
    cheapest_place_cost,
    cheapest_prime_cost,
    market_cost,
    market_costs,
    start_trade,
    take_from_market,
)
from heights_rules.state import State

# Final: compiled code reads these as C values, not from the module's dict.
_ACT: Final = OFFSETS[ActionKind.ACTIVATE]
_BUY: Final = OFFSETS[ActionKind.BUY]
_TRADE: Final = OFFSETS[ActionKind.TRADE]
_WILD: Final = OFFSETS[ActionKind.WILD]
_BUILD: Final = OFFSETS[ActionKind.BUILD]
_END: Final = OFFSETS[ActionKind.END_TURN]
_N_MODES: Final = len(ACTIVATE_MODES)
_HARD: Final = int(Bucket.HARD)
_STEADY: Final = int(Bucket.STEADY)
_EXHAUSTED: Final = int(Bucket.EXHAUSTED)
_USED: Final = {Bucket.HARD: Bucket.USED_HARD, Bucket.STEADY: Bucket.USED_STEADY}
# The cube each colour of meeple produces, -1 for none, by colour: no Meeple(colour) to
# build (an enum call is Python code) at every activation.
_PRODUCES: Final = tuple(int(PRODUCES[m]) if m in PRODUCES else -1 for m in MEEPLES)
_ALWAYS: Final = frozenset(
    {Meeple.BROWN, Meeple.NAVY, Meeple.CLEAR, Meeple.BLUE, Meeple.YELLOW, Meeple.MAGENTA}
)


def main_legal(s: State, p: int) -> list[int]:
    out = [_END]
    m = s.meeples[p]
    for colour in range(len(MEEPLES)):
        hard = m[colour * N_BUCKETS + _HARD]
        steady = m[colour * N_BUCKETS + _STEADY]
        if not (hard or steady):
            continue
        base = _ACT + colour * _N_MODES
        if hard and _usable(s, p, colour, 1):
            out.append(base)
        if _usable(s, p, colour, 0):
            if hard:
                out.append(base + 1)
            if steady:
                out.append(base + 2)
    funds = s.funds(p)
    if not s.bought:
        cheapest = cheapest_place_cost(s, p)
        if cheapest >= 0:
            budget = funds - cheapest
            for level in (0, 1):
                prices = market_costs(s, level)
                base = _BUY + level * MARKET_SIZE
                for pos, tile in enumerate(s.market[level]):
                    if tile >= 0 and prices[pos] <= budget:
                        out.append(base + pos)
    for colour in range(4):
        if funds >= TRADE_PRICE[colour]:
            out.append(_TRADE + colour)
    if s.wild[p]:
        out.extend(range(_WILD, _WILD + 4))
    builds = build_options(s, p)  # the highest ids, in p's order of tiles
    if builds:
        builds.sort()
        out.extend(builds)
    return out  # sorted: every block above was appended in order


def build_options(s: State, p: int) -> list[int]:
    """BUILD ids for p's incomplete tiles; identical stacks of a tile are offered once."""
    held = s.cubes[p]
    if not (held[0] or held[1] or held[2] or held[3] or held[4] or held[5] or held[6] or held[7]):
        return []
    ok = [can_build_colour(s, p, c) for c in range(4)]
    if not (ok[0] or ok[1] or ok[2] or ok[3]):
        return []
    out: list[int] = []
    table = _stack_table(s)
    complete, fills, space_of = s.complete, s.fill, s.space_of
    for tile in s.owned[p]:
        if complete[tile]:
            continue
        fill = fills[tile]
        base = _BUILD + space_of[tile] * MAX_STACKS
        for i, colour, height, twins in table[tile]:
            f = fill[i]
            if f < height and ok[colour] and not (twins and _twin_at(fill, twins, f)):
                out.append(base + i)
    return out


def _twin_at(fill: tuple[int, ...], twins: tuple[int, ...], f: int) -> bool:
    """Whether an identical earlier stack stands at the same fill (one choice, not two)."""
    for j in twins:  # noqa: SIM110 (a loop, not any() over a generator: no generator per call)
        if fill[j] == f:
            return True
    return False


_TABLES: Final[dict[str, tuple[tuple[tuple[int, int, int, tuple[int, ...]], ...], ...]]] = {}


def _stack_table(s: State) -> tuple[tuple[tuple[int, int, int, tuple[int, ...]], ...], ...]:
    """Per tile: (stack index, colour, height, earlier identical stacks), once per catalogue."""
    key = s.catalogue.sha256
    table = _TABLES.get(key)
    if table is None:
        table = tuple(
            tuple((i, c, h, t.twins[i]) for i, (c, h) in enumerate(t.stacks))
            for t in s.catalogue.tiles
        )
        _TABLES[key] = table
    return table


def _usable(s: State, p: int, colour: int, level: int) -> bool:
    """Whether activating `colour` at `level` can do anything (so no dead ends)."""
    if colour in _ALWAYS:
        return True
    if colour == Meeple.PURPLE:
        return bool(usable_buildings(s, p, level))
    if colour == Meeple.BLACK:
        if level == 0:
            return any(s.meeples[p][_EXHAUSTED::N_BUCKETS])
        return can_take(s, p)
    return _any_upgrade(s.meeples[p])  # GREEN


def _any_upgrade(m: list[int]) -> bool:
    """Whether `upgrade_targets` would list anything, without building the list."""
    for colour in range(len(MEEPLES)):
        if colour != Meeple.GREEN and (
            m[colour * N_BUCKETS + _STEADY] or m[colour * N_BUCKETS + _EXHAUSTED]
        ):
            return True
    return False


def can_take(s: State, p: int) -> bool:
    cheapest = cheapest_prime_cost(s)
    return 0 <= cheapest <= s.funds(p) and any(t >= 0 for row in s.market for t in row)


def upgrade_targets(s: State, p: int) -> list[tuple[int, int]]:
    """(colour, bucket) a Public Servant may upgrade: active, not used, not green (§4.3.3)."""
    m = s.meeples[p]
    out: list[tuple[int, int]] = []
    for colour in range(len(MEEPLES)):
        if colour == Meeple.GREEN:
            continue
        for bucket in (_STEADY, _EXHAUSTED):
            if m[colour * N_BUCKETS + bucket]:
                out.append((colour, bucket))
    return out


def activate(s: State, p: int, colour: int, mode: int) -> None:
    bucket, level = ACTIVATE_MODES[mode]
    m = s.meeples[p]
    m[colour * N_BUCKETS + bucket] -= 1
    m[colour * N_BUCKETS + _USED[bucket]] += 1
    s.log("activate", p, colour=MEEPLE_NAMES[colour], level=level)
    cube = _PRODUCES[colour]
    if cube >= 0:
        for _ in range(level + 1):
            gain_cube(s, p, cube)
    elif colour == Meeple.YELLOW:
        score_politicians(s, p, level + 1)
    elif colour == Meeple.MAGENTA:
        s.sp += 2 * (level + 1)
    elif colour == Meeple.PURPLE:
        s.stack.append(frame(F.USE, p, level))
    elif colour == Meeple.BLACK:
        if level:
            s.stack.append(frame(F.TAKE, p))
        else:
            s.stack.append(frame(F.ROLL, p, RollKind.PLANNER))
    else:
        s.stack.append(frame(F.UPGRADE, p, level + 1, 0))


def upgrade(s: State, p: int, colour: int, bucket: int) -> None:
    m = s.meeples[p]
    m[colour * N_BUCKETS + bucket] -= 1
    m[colour * N_BUCKETS + (bucket - 1)] += 1  # EXHAUSTED -> STEADY -> HARD
    _, _, left, taken, _ = s.stack.pop()
    if left > 1 and upgrade_targets(s, p):
        s.stack.append(frame(F.UPGRADE, p, left - 1, taken + 1))


def buy(s: State, p: int, level: int, pos: int) -> None:
    s.bought = True
    cost = market_cost(s, level, pos)
    tile = take_from_market(s, p, level, pos, sweetens=True)
    s.stack.append(frame(F.PLACE, p, Purpose.BUY, tile, cost))


def take(s: State, p: int, level: int, pos: int) -> None:
    s.stack.pop()
    tile = take_from_market(s, p, level, pos, s.config.options.sweeten_on_free_take)
    s.stack.append(frame(F.PLACE, p, Purpose.TAKE, tile, 0))


def build(s: State, p: int, space: int, stack: int) -> None:
    build_cube(s, p, s.on_cell[space], stack)


def trade(s: State, p: int, colour: int) -> None:
    start_trade(s, p, colour)


def use_wild(s: State, p: int, colour: int) -> None:
    s.wild[p] -= 1
    gain_cube(s, p, colour)
