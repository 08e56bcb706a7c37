"""The greedy MAIN phase: one fixed order of priorities, re-read at every decision.

City Planner (a free plan, else a re-roll), Public Servant, the meeples that simply
produce (cubes, VP, Spending Power), Public Figure, then buying one plan with what the
seat can spare, building, trading spare funds for needed colours, Wild Tokens that
finish a building, and finally ending the turn. Nothing is remembered between calls:
each decision is a function of the state alone.
"""

from __future__ import annotations

import math

from heights_bots import action_ids as ids
from heights_bots.abilities import best_take, best_use, upgrade_gain
from heights_bots.placement import (
    adjacency_rules,
    space_score,
    tile_score,
    turn_context,
)
from heights_bots.reading import (
    buildable,
    effort,
    needs,
    production,
    spare_funds,
    tile_remaining,
)
from heights_bots.tables import (
    BLACK,
    BLUE,
    BROWN,
    CLEAR,
    CUBE_VP,
    EXHAUSTED,
    GREEN,
    HARD,
    MAGENTA,
    NAVY,
    NB,
    PAY_VP,
    PURPLE,
    STEADY,
    TRADE_PRICE,
    YELLOW,
    tile_facts,
)
from heights_rules import BuildingType, GameState, market_cost, place_costs, upgrade_targets

Choice = tuple[int, str]
ROUTINE = (YELLOW, BLUE, CLEAR, NAVY, BROWN, MAGENTA)
TAKE_MIN_VP = 1.0  # a free plan must be worth this much to spend a hard City Planner on it
UPGRADE_MIN_VP = 0.3  # a Public Servant step must gain this much to be worth the meeple
BUY_MIN_VP = 0.5  # a plan's net value must clear this for the bot to buy it
THIN_PIPELINE = 0.8  # buy with needed cubes too when open work is below 0.8 turns' output


def main_choice(s: GameState, p: int, legal: list[int]) -> Choice:
    choice = _planner(s, p, legal) or _servant(s, p) or _routine(s, p) or _figure(s, p)
    if choice:
        return choice
    need = needs(s, p)
    # Needed cubes go on buildings first; then a plan is bought with what is spare, or
    # with everything when little work is left open (so the next turn has work).
    eff = effort(s, p)
    work = need[0] * eff[0] + need[1] * eff[1] + need[2] * eff[2] + need[3] * eff[3]
    thin = work <= THIN_PIPELINE * production(s, p)
    return (
        _build(s, legal)
        or _buy(s, p, legal, need, thin=thin)
        or _trade(s, p, legal, need)
        or _wild(s, p, need)
        or (ids.END, "end turn")
    )


def _planner(s: GameState, p: int, legal: list[int]) -> Choice | None:
    m = s.meeples[p]
    hard, steady = m[BLACK * NB + HARD], m[BLACK * NB + STEADY]
    if not (hard or steady):
        return None
    take = ids.activate(BLACK, ids.MODE_HARD)
    if hard and take in legal and best_take(s, p)[2] > TAKE_MIN_VP:
        return take, "City Planner: take a free plan"
    if sum(m[EXHAUSTED::NB]) >= 2:
        mode = ids.MODE_STEADY if steady else ids.MODE_HARD_AS_STEADY
        return ids.activate(BLACK, mode), "City Planner: re-roll the exhausted"
    return None


def _servant(s: GameState, p: int) -> Choice | None:
    m = s.meeples[p]
    hard, steady = m[GREEN * NB + HARD], m[GREEN * NB + STEADY]
    if not (hard or steady):
        return None
    need = needs(s, p)
    gain = max((upgrade_gain(s, p, c, b, need) for c, b in upgrade_targets(s, p)), default=0.0)
    if gain < UPGRADE_MIN_VP:
        return None
    return ids.activate(GREEN, ids.MODE_HARD if hard else ids.MODE_STEADY), "Public Servant"


def _routine(s: GameState, p: int) -> Choice | None:
    m = s.meeples[p]
    for colour in ROUTINE:
        if m[colour * NB + HARD]:
            return ids.activate(colour, ids.MODE_HARD), "activate"
        if m[colour * NB + STEADY]:
            return ids.activate(colour, ids.MODE_STEADY), "activate"
    return None


def _figure(s: GameState, p: int) -> Choice | None:
    m = s.meeples[p]
    hard, steady = m[PURPLE * NB + HARD], m[PURPLE * NB + STEADY]
    if not (hard or steady):
        return None
    value0 = best_use(s, p, 0)[1]
    if hard:
        value1 = best_use(s, p, 1)[1]
        if max(value0, value1) <= 0.0:
            return None
        mode = ids.MODE_HARD if value1 >= value0 else ids.MODE_HARD_AS_STEADY
        return ids.activate(PURPLE, mode), "Public Figure"
    if value0 <= 0.0:
        return None
    return ids.activate(PURPLE, ids.MODE_STEADY), "Public Figure"


def _buy(s: GameState, p: int, legal: list[int], need: list[int], *, thin: bool) -> Choice | None:
    if s.bought or legal[-1] < ids.BUY:
        return None
    buys = [a for a in legal if ids.BUY <= a < ids.BUY_END]
    if not buys:
        return None
    budget = s.funds(p) if thin else spare_funds(s, p, need)
    ranked = rank_buys(s, p, buys, budget, need)
    if not ranked:
        return None
    best, value = max(ranked, key=lambda va: va[1])
    if value < buy_threshold(s, p):
        return None
    return best, "buy the best plan it can spare funds for"


def buy_threshold(s: GameState, p: int) -> float:
    """The value a plan must clear to be bought: none without an open plan, since a
    seat with nothing to build scores only by abilities, and when every seat is there
    the game stalls short of its end (v1, 2 players, seed 32, ran to the round cap)."""
    if any(not s.complete[t] for t in s.owned[p]):
        return BUY_MIN_VP
    return -math.inf


def rank_buys(
    s: GameState, p: int, buys: list[int], budget: int, need: list[int]
) -> list[tuple[int, float]]:
    """(BUY id, value) for every plan p can buy within `budget`, valued with its best
    zoning space (the exact space is chosen when placing)."""
    costs = place_costs(s, p)
    cheapest = costs[0][1]
    if budget < cheapest + 1:
        return []  # every plan costs at least 1
    ctx = turn_context(s, p, need)
    if ctx.turns <= 1:
        return []  # a plan bought in the last turn is never finished
    zoned = _zoned_spaces(s, p, costs, budget)
    facts = tile_facts(s.catalogue)
    out = []
    for a in buys:
        level, pos = ids.market_ref(a, ids.BUY)
        price = market_cost(s, level, pos)
        if price + cheapest > budget:
            continue
        tile = s.market[level][pos]
        tile_type = facts[tile].type
        place = -cheapest * PAY_VP
        for cost, scores in zoned:
            if price + cost <= budget and tile_type in scores:
                place = max(place, scores[tile_type])
        out.append((a, tile_score(s, tile, ctx) - price * PAY_VP + place))
    return out


def _zoned_spaces(
    s: GameState, p: int, costs: tuple[tuple[int, int], ...], budget: int
) -> list[tuple[int, dict[int, float]]]:
    """(cost, {building type: space score}) of each affordable space with a zoning bonus."""
    rules = adjacency_rules(s, p)
    geo = s.geo
    out = []
    for space, cost in costs:
        if cost >= budget:
            break  # sorted by cost, and every plan costs at least 1 more
        mask = geo.zoning_types[space]
        if geo.zoning_vp[space] and mask:
            scores = {
                t: space_score(s, p, t, space, cost=cost, rules=rules)
                for t in range(len(BuildingType))
                if mask >> t & 1
            }
            out.append((cost, scores))
    return out


def _build(s: GameState, legal: list[int]) -> Choice | None:
    best, best_left = -1, 1 << 30
    for a in legal:
        if a < ids.BUILD:
            continue
        if a >= ids.BUILD_END:
            break
        space, _ = ids.build_target(a)
        tile = s.on_cell[space]
        left = tile_facts(s.catalogue)[tile].cubes - sum(s.fill[tile])
        if left < best_left:
            best, best_left = a, left
    return (best, "build on the plan closest to done") if best >= 0 else None


def _trade(s: GameState, p: int, legal: list[int], need: list[int]) -> Choice | None:
    if legal[-1] < ids.TRADE:
        return None
    spare = spare_funds(s, p, need)
    best, best_value = -1, 0.0
    for colour in range(4):
        if TRADE_PRICE[colour] > spare or need[colour] <= buildable(s, p, colour):
            continue
        value = CUBE_VP[colour] / TRADE_PRICE[colour]
        if value > best_value and ids.TRADE + colour in legal:
            best, best_value = colour, value
    return (ids.TRADE + best, "trade spare funds for a needed colour") if best >= 0 else None


def _wild(s: GameState, p: int, need: list[int]) -> Choice | None:
    """Spend Wild Tokens where they finish a building worth more than they are.

    Measured in duplicate matches: finishing buildings with tokens is worth a lot
    (never spending them loses most games), spending them on mere progress loses.
    """
    tokens = s.wild[p]
    if not tokens or not any(need):
        return None
    ctx = turn_context(s, p, need)
    facts = tile_facts(s.catalogue)
    best: tuple[int, list[int]] | None = None
    for tile in s.owned[p]:
        if s.complete[tile]:
            continue
        left = tile_remaining(s, tile)
        missing = [max(0, left[c] - buildable(s, p, c)) for c in range(4)]
        short = sum(missing)
        worth = facts[tile].fixed + facts[tile].rate * (ctx.turns - 1)
        if (
            0 < short <= tokens
            and worth > short * ctx.wild_vp
            and (best is None or short < best[0])
        ):
            best = (short, missing)
    if best is None:
        return None
    missing = best[1]
    colour = max(range(4), key=lambda c: missing[c])
    return ids.WILD + colour, "Wild Token towards finishing a building"
