"""Where the search branches, and on which few moves.

Most decisions are not worth searching: paying unit by unit, activating meeples
(greedy activates everything useful first), putting a held cube on a building,
upgrades. The search compares moves only where a choice shapes the turn (rally or
stop, the starting plan, whether and which plan to buy and where, trades, Wild Tokens,
which building a Public Figure uses, a City Planner's free plan, a rewarded meeple's
colour, ending the turn) and then only a handful of them, the greedy choice first,
ranked by the greedy bot's own judgement.
"""

from __future__ import annotations

from heights_bots import action_ids as ids
from heights_bots.greedy import greedy_action
from heights_bots.greedy_main import rank_buys
from heights_bots.placement import adjacency_rules, space_score, tile_score, turn_context
from heights_bots.reading import buildable, meeple_rate, needs
from heights_bots.tables import tile_facts
from heights_rules import F, GameState, Purpose, place_costs

TOP_BUYS = 3
TOP_SPACES = 4
TOP_PLANS = 3


def candidates(s: GameState, seat: int, legal: list[int]) -> list[int]:
    """The moves worth comparing here, greedy's first; one move means: do not search."""
    if len(legal) == 1:
        return legal
    first = greedy_action(s, seat)
    kind = s.stack[-1].kind
    if kind is F.RISK:
        return [first, ids.STOP if first == ids.RALLY else ids.RALLY]
    if kind is F.MAIN:
        more = _main(s, seat, legal, first)
    elif kind is F.PLACE and s.stack[-1].purpose != Purpose.MAYOR:
        more = _spaces(s, seat, legal)
    elif kind in (F.START, F.TAKE):
        more = _plans(s, seat, legal, ids.START if kind is F.START else ids.TAKE)
    elif kind is F.USE:
        more = legal
    elif kind is F.GAIN:
        more = sorted(legal, key=lambda a: -meeple_rate(s, seat, a - ids.GAIN))[:TOP_PLANS]
    else:
        return [first]
    return list(dict.fromkeys([first, *more]))


def _main(s: GameState, seat: int, legal: list[int], first: int) -> list[int]:
    if ids.BUILD <= first < ids.BUILD_END:
        return []
    if ids.ACTIVATE <= first < ids.ACTIVATE_END:
        return []  # activations come first in greedy's order; what follows is searched
    out = [ids.END]
    need = needs(s, seat)
    buys = [a for a in legal if ids.BUY <= a < ids.BUY_END]
    if buys:
        ranked = rank_buys(s, seat, buys, s.funds(seat), need)
        ranked.sort(key=lambda va: -va[1])
        out += [a for a, _ in ranked[:TOP_BUYS]]
    for colour in range(4):
        if need[colour] > buildable(s, seat, colour):
            out += [a for a in (ids.TRADE + colour, ids.WILD + colour) if a in legal]
    return out


def _spaces(s: GameState, seat: int, legal: list[int]) -> list[int]:
    top = s.stack[-1]
    purpose, tile = top.purpose, top.tile
    tile_type = tile_facts(s.catalogue)[tile].type
    rules = adjacency_rules(s, seat)
    cost = dict(place_costs(s, seat)) if purpose == Purpose.BUY else {}

    def worth(a: int) -> float:
        space = a - ids.PLACE
        price = cost.get(space, s.geo.prime[space]) if purpose != Purpose.START else 0
        return space_score(s, seat, tile_type, space, cost=price, rules=rules)

    return sorted(legal, key=lambda a: -worth(a))[:TOP_SPACES]


def _plans(s: GameState, seat: int, legal: list[int], base: int) -> list[int]:
    ctx = turn_context(s, seat)

    def worth(a: int) -> float:
        level, pos = ids.market_ref(a, base)
        return tile_score(s, s.market[level][pos], ctx)

    return sorted(legal, key=lambda a: -worth(a))[:TOP_PLANS]
