"""The two market strips and placing plans on the map (RULES.md §3, §4.3.8, §4.4).

Market position 0 is the space farthest from the draw pile: tiles slide toward it and
new tiles enter at position 8 (A-08).
"""

from __future__ import annotations

from typing import Final

from heights_rules.catalogue import MARKET_SIZE
from heights_rules.components import Score
from heights_rules.economy import gain_cube
from heights_rules.frames import F, Purpose, frame
from heights_rules.geometry import COLS, DISTANCE, SPACES, manhattan, space_name
from heights_rules.options import StartSpacing
from heights_rules.state import State

TRADE_PRICE: Final = (2, 2, 2, 3)  # wood, concrete, glass: 2 any; steel: 3 any (§4.3.7)


def market_costs(s: State, level: int) -> tuple[int, ...]:
    """The cost of each position of a strip (A-07; reversed under the alternate preset)."""
    costs = s.catalogue.market_costs[level]
    return costs[::-1] if s.config.options.market_costs_reversed else costs


def market_cost(s: State, level: int, pos: int) -> int:
    return market_costs(s, level)[pos]


def place_costs(s: State, p: int) -> tuple[tuple[int, int], ...]:
    """(space, prime + distance cost) for every empty land space, cheapest first.

    Cached until the map changes: the map changes about once a turn, legal actions are
    asked for at every decision.
    """
    cached = s._place_cache.get(p)
    if cached is not None:
        return cached
    on_cell, prime, near = s.on_cell, s.geo.prime, s.near[p]
    # cost * 128 + space sorts as (cost, space) with no key function (spaces < 128).
    codes = []
    for space in s.geo.land_spaces:
        if on_cell[space] < 0:
            d = near[space]
            codes.append((prime[space] + (d - 1 if d > 1 else 0)) << 7 | space)
    codes.sort()
    result = tuple([(code & 127, code >> 7) for code in codes])
    s._place_cache[p] = result
    return result


def cheapest_place_cost(s: State, p: int) -> int:
    """The cost of p's cheapest empty land space (`place_costs(s, p)[0][1]`), or -1 when
    none is left. The MAIN decision needs only this: a scan that stops at the first free
    space costs less than the sorted list (measured, docs/engine.md), which waits for a
    purchase."""
    cached = s._place_cache.get(p)
    if cached is not None:
        return cached[0][1] if cached else -1
    on_cell, prime, near = s.on_cell, s.geo.prime, s.near[p]
    best = -1
    for space in s.geo.land_spaces:
        if on_cell[space] < 0:
            d = near[space]
            cost = prime[space] + (d - 1 if d > 1 else 0)
            if cost < best or best < 0:
                best = cost
                if cost == 0:
                    break
    return best


def cheapest_prime_cost(s: State) -> int:
    """The prime cost of the cheapest empty land space (`prime_costs(s)[0][1]`), or -1."""
    cached = s._place_cache.get(-1)
    if cached is not None:
        return cached[0][1] if cached else -1
    on_cell, prime = s.on_cell, s.geo.prime
    best = -1
    for space in s.geo.land_spaces:
        if on_cell[space] < 0 and (prime[space] < best or best < 0):
            best = prime[space]
            if best == 0:
                break
    return best


def affordable_spaces(s: State, p: int, budget: int) -> list[int]:
    """The empty land spaces p can place a bought plan on within `budget`, in order."""
    on_cell, prime, near = s.on_cell, s.geo.prime, s.near[p]
    out = []
    for space in s.geo.land_spaces:
        if on_cell[space] < 0:
            d = near[space]
            if prime[space] + (d - 1 if d > 1 else 0) <= budget:
                out.append(space)
    return out


# nearest_own by the spaces a player's tiles stand on. A state rebuilt from a document
# (a bot's at every decision, a replica catching up) recomputes it for every player, and
# the same few layouts recur all game: uncached this was most of `from_dict`'s time.
_NEAREST: Final[dict[tuple[int, ...], tuple[int, ...]]] = {}
_NEAREST_CACHE_SIZE: Final = 4096


def nearest_own(s: State, p: int) -> list[int]:
    """Distance from every space to p's nearest tile (all 1 when p has none yet)."""
    spaces = tuple(sorted(s.space_of[tile] for tile in s.owned[p]))
    near = _NEAREST.get(spaces)
    if near is None:
        if len(_NEAREST) >= _NEAREST_CACHE_SIZE:
            _NEAREST.clear()
        rows = [DISTANCE[space] for space in spaces]
        near = tuple(min(column) for column in zip(*rows, strict=True)) if rows else (1,) * SPACES
        _NEAREST[spaces] = near
    return list(near)  # the caller's own copy: put_on_map updates it in place


def prime_costs(s: State) -> tuple[tuple[int, int], ...]:
    """(space, prime cost) of every empty land space, cheapest first (City Planner takes)."""
    cached = s._place_cache.get(-1)
    if cached is None:
        on_cell, prime = s.on_cell, s.geo.prime
        codes = sorted([prime[sp] << 7 | sp for sp in s.geo.land_spaces if on_cell[sp] < 0])
        cached = tuple([(code & 127, code >> 7) for code in codes])
        s._place_cache[-1] = cached
    return cached


def start_spaces(s: State, p: int) -> list[int]:
    """Empty land without a prime cost, away from other players' tiles (§3, A-05)."""
    others = [s.space_of[t] for q in range(s.n_players) if q != p for t in s.owned[q]]
    rule = s.config.options.start_spacing
    out = []
    for space in s.geo.land_spaces:
        if s.on_cell[space] >= 0 or s.geo.prime[space]:
            continue
        if not any(_too_close(rule, space, o) for o in others):
            out.append(space)
    return out


def _too_close(rule: StartSpacing, a: int, b: int) -> bool:
    d = manhattan(a, b)
    if rule is StartSpacing.MANHATTAN_LE_2:
        return d <= 2
    if rule is StartSpacing.MANHATTAN_LE_3:
        return d <= 3
    same_line = a // COLS == b // COLS or a % COLS == b % COLS
    return same_line and d <= 2


def take_from_market(s: State, p: int, level: int, pos: int, sweetens: bool) -> int:
    """Remove the tile at (level, pos); record sweetening for a position >= 3 (§4.3.8)."""
    row = s.market[level]
    tile = row[pos]
    row[pos] = -1
    if sweetens and pos >= 2:
        s.sweeten.extend(t for t in row[:2] if t >= 0)
    s.log("take", p, tile=s.catalogue.tiles[tile].id, level=level + 1, position=pos + 1)
    return tile


def put_on_map(s: State, p: int, tile: int, space: int) -> None:
    s.owner[tile] = p
    s.space_of[tile] = space
    s.on_cell[space] = tile
    s.owned[p].append(tile)
    near, row = s.near[p], DISTANCE[space]
    first = len(s.owned[p]) == 1  # before any tile every space reads 1 (no distance cost)
    for x in range(SPACES):
        if first or row[x] < near[x]:
            near[x] = row[x]
    s.invalidate_map()
    s.log("place", p, tile=s.catalogue.tiles[tile].id, space=space_name(space))


def zoning_bonus(s: State, p: int, tile: int, space: int) -> None:
    t = s.catalogue.tiles[tile]
    if s.geo.zoning_types[space] >> t.type & 1:
        s.add_score(p, Score.ZONING, s.geo.zoning_vp[space], f"zoning at {space_name(space)}")


def on_place(s: State, p: int, space: int) -> None:
    """The PLACE decision: put the tile down, then pay what the space costs."""
    _, _, purpose, tile, extra = s.stack.pop()
    cost = extra + _space_cost(s, p, space) if purpose == Purpose.BUY else s.geo.prime[space]
    put_on_map(s, p, tile, space)
    if purpose == Purpose.START:
        zoning_bonus(s, p, tile, space)
    else:  # a purchase pays market + prime + distance, a City Planner's take only prime
        start_payment(s, p, cost, purpose, (tile, space))


def _space_cost(s: State, p: int, space: int) -> int:
    """Prime cost plus one per space between it and p's nearest tile (§4.3.8, A-06)."""
    near = s.near[p][space]
    return s.geo.prime[space] + (near - 1 if near > 1 else 0)


def start_payment(s: State, p: int, units: int, purpose: int, ctx: tuple[int, int]) -> None:
    """Push the unit-by-unit payment of `units`; finishing it runs the purpose's effect."""
    if units > 0:
        s.stack.append(frame(F.PAY, p, units, purpose, ctx))
    else:
        finish_payment(s, p, purpose, ctx)


def finish_payment(s: State, p: int, purpose: int, ctx: tuple[int, int]) -> None:
    """What a completed payment buys: a placed plan's rewards, or a traded cube."""
    if purpose == Purpose.TRADE:
        gain_cube(s, p, ctx[0])
        return
    tile, space = ctx
    zoning_bonus(s, p, tile, space)
    tokens = s.tile_wild[tile]
    if tokens:
        s.tile_wild[tile] = 0
        s.wild[p] += tokens  # the tile's tokens move with it, whatever the limit
        s.log("wild", p, gained=tokens, source="tile")


def slide_and_refill(s: State) -> None:
    """Slide each strip toward position 0, refill from its pile, then the other (§4.4)."""
    for level in (0, 1):
        row = [t for t in s.market[level] if t >= 0]
        while len(row) < MARKET_SIZE:
            pile = s.piles[level] or s.piles[1 - level]
            if not pile:
                break
            row.append(pile.pop())
        s.market[level] = row + [-1] * (MARKET_SIZE - len(row))


def start_trade(s: State, p: int, colour: int) -> None:
    start_payment(s, p, TRADE_PRICE[colour], Purpose.TRADE, (colour, 0))


def place_tokens(s: State) -> None:
    """End of turn: a Wild Token on each recorded tile still in a market (§4.3.8)."""
    if not s.sweeten:
        return
    in_market = set(s.market[0]) | set(s.market[1])
    for tile in s.sweeten:
        if tile in in_market:
            before = s.tile_wild[tile]
            limit = s.config.options.wild_supply_limit
            if not limit or sum(s.wild) + sum(s.tile_wild) < limit:
                s.tile_wild[tile] = before + 1
    s.sweeten = []
