"""Judging plans and map spaces: what a plan is worth to a seat, and where to put it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from heights_bots.reading import effort, needs, production, turns_left, wild_value
from heights_bots.solo_tempo import rush_value
from heights_bots.solo_tokens import denied_value
from heights_bots.tables import PAY_VP, TileFacts, tile_facts
from heights_rules import BuildingType, GameState

CUBE_COST_VP = 0.45  # VP a payment unit spent on a plan's cubes could have earned elsewhere
# The same in solo, measured rather than derived: over 1,000 solo games at the default
# difficulty (reconstructed-v4, seeds 0-999 and 5000-5999, docs/balance.md) 0.6-0.8 left
# the player ~2.5 VP nearer the Mayor than 0.45 did, 0.3 and 1.0 or more no nearer.
# Solo games are short (~13.8 rounds): plans dear in cubes pay back too late.
SOLO_CUBE_COST_VP = 0.7
ALL_TYPES = (1 << len(BuildingType)) - 1


@dataclass(frozen=True, slots=True)
class AdjacencyRule:
    """An Ad or own Target that rewards (or punishes) placing types next to each other."""

    own_mask: int  # the scoring building's types
    adj_mask: int  # the neighbours' types that count
    water: bool  # water neighbours count too
    per: float  # VP per counted neighbour, already weighted
    whose: str  # which neighbours count: "any", "own" or "opponent"


def _mask(types: object) -> int:
    if types == "ANY":
        return ALL_TYPES
    assert isinstance(types, list)
    return sum(1 << BuildingType[t] for t in types)


Rules = tuple[list[AdjacencyRule], float, float]
_RULES: dict[tuple[str, tuple[int, ...], tuple[int, ...]], Rules] = {}


def adjacency_rules(s: GameState, p: int) -> Rules:
    """The map-shape objectives in force for p: Ads fully, p's own Targets at half weight.

    Returns (neighbour rules, VP per own neighbour for contiguous groups, VP for a new
    neighborhood); cached, since they only depend on the Ads and p's Targets.
    """
    key = (s.catalogue.sha256, s.ads, tuple(s.targets[p]))
    rules = _RULES.get(key)
    if rules is None:
        rules = _RULES[key] = _adjacency_rules(s, p)
    return rules


def _adjacency_rules(s: GameState, p: int) -> Rules:
    refs = [(s.catalogue.ads[a].scoring, 1.0) for a in s.ads]
    refs += [(s.catalogue.targets[t].scoring, 0.5) for t in s.targets[p] if t >= 0]
    rules: list[AdjacencyRule] = []
    group = spread = 0.0
    for ref, weight in refs:
        params = ref.params
        per = weight * float(params.get("per", 0))
        if ref.fn == "each_own_adjacent":
            own, adj = (
                _mask(params.get("own_types", "ANY")),
                _mask(params.get("adjacent_types", [])),
            )
            whose = str(params.get("whose", "any"))
            rules.append(AdjacencyRule(own, adj, bool(params.get("water")), per, whose))
        elif ref.fn == "each_adjacent_to_own":  # Targets 6 and 8: the same shape, reversed
            own, adj = _mask(params.get("own_types", "ANY")), _mask(params.get("types", "ANY"))
            rules.append(AdjacencyRule(own, adj, False, per, str(params.get("whose", "any"))))
        elif ref.fn == "largest_group":
            group += per
        elif ref.fn == "neighborhoods_present":
            spread += per
    return rules, group, spread


class TurnContext(NamedTuple):
    """What tile scoring needs about the seat, computed once per decision."""

    turns: int  # own turns left, this one included
    effort: tuple[float, float, float, float]  # payment units per cube of each colour
    work: float  # effort still open on the seat's incomplete plans
    capacity: float  # effort the seat can still produce, minus `work`
    wild_vp: float
    production: float  # effort produced per turn


def turn_context(s: GameState, p: int, need: list[int] | None = None) -> TurnContext:
    if need is None:
        need = needs(s, p)
    eff = effort(s, p)
    turns = turns_left(s)
    work = need[0] * eff[0] + need[1] * eff[1] + need[2] * eff[2] + need[3] * eff[3]
    output = production(s, p)
    capacity = output * (turns - 0.5) - work
    return TurnContext(turns, eff, work, capacity, wild_value(s, p), output)


def tile_score(s: GameState, tile: int, ctx: TurnContext) -> float:
    """What owning this plan is worth to the seat of `ctx`, net of its cubes (VP)."""
    f: TileFacts = tile_facts(s.catalogue)[tile]
    rate = f.rate
    for colour in f.max_rate:
        if not s.meeple_supply[colour]:
            rate -= 0.3  # the reward meeple has run out (the other choice is usually worse)
    eff = ctx.effort
    need = f.need
    work = need[0] * eff[0] + need[1] * eff[1] + need[2] * eff[2] + need[3] * eff[3]
    # Rewards only start once the plan is done, after the work already open and its own.
    delay = (ctx.work + work) / ctx.production
    value = f.fixed + max(0.0, rate) * max(0.0, ctx.turns - delay)
    if work > ctx.capacity:
        value *= max(0.1, ctx.capacity / work)  # unlikely to be finished before the end
    cube_cost = CUBE_COST_VP
    if s.solo:  # the Mayor gains from every round the game lasts, and from market tokens
        value += rush_value(s, need) + denied_value(s, tile)
        cube_cost = SOLO_CUBE_COST_VP
    return value - work * cube_cost + s.tile_wild[tile] * ctx.wild_vp


def space_score(
    s: GameState,
    p: int,
    tile_type: int,
    space: int,
    *,
    cost: int,
    rules: Rules,
) -> float:
    """Zoning, objectives and compactness of putting a plan of `tile_type` on `space`."""
    geo = s.geo
    score = -cost * PAY_VP
    if geo.zoning_types[space] >> tile_type & 1:
        score += geo.zoning_vp[space]
    adjacency, group, spread = rules
    bit = 1 << tile_type
    for near in geo.adjacent[space]:
        other = s.on_cell[near]
        if other < 0:
            if not geo.land[near]:
                score += sum(r.per for r in adjacency if r.water and r.own_mask & bit)
            continue
        mine = s.owner[other] == p
        other_bit = 1 << s.catalogue.tiles[other].type
        if mine:
            score += 0.1 + group
        for r in adjacency:
            if (r.whose == "own" and not mine) or (r.whose == "opponent" and mine):
                continue
            if r.own_mask & bit and r.adj_mask & other_bit:
                score += r.per
            if mine and r.own_mask & other_bit and r.adj_mask & bit:
                score += r.per
    if spread and not any(
        geo.neighborhood[s.space_of[t]] == geo.neighborhood[space] for t in s.owned[p]
    ):
        score += spread
    return score


def best_space(s: GameState, p: int, tile: int, spaces: list[tuple[int, int]]) -> tuple[int, float]:
    """The best of `spaces` ((space, cost) pairs) for the plan, and its score.

    Spaces are tried cheapest first and the search stops once no bonus could make up
    for the extra cost (ties go to the lower space index).
    """
    tile_type = tile_facts(s.catalogue)[tile].type
    rules = adjacency_rules(s, p)
    adjacency, group, spread = rules
    per = sum(abs(r.per) for r in adjacency)
    ceiling = max(s.geo.zoning_vp) + spread + 4 * (0.1 + group + 2 * per)
    best, best_score = spaces[0][0], -1e9
    for space, cost in sorted(spaces, key=lambda sc: (sc[1], sc[0])):
        if ceiling - cost * PAY_VP < best_score:
            break
        score = space_score(s, p, tile_type, space, cost=cost, rules=rules)
        if score > best_score or (score == best_score and space < best):
            best, best_score = space, score
    return best, best_score


def start_openness(s: GameState, space: int) -> int:
    """Empty non-prime land within two steps: room to grow cheaply from a start."""
    geo = s.geo
    seen = {space}
    frontier = [space]
    for _ in range(2):
        nxt = []
        for cell in frontier:
            for near in geo.adjacent[cell]:
                if near not in seen:
                    seen.add(near)
                    nxt.append(near)
        frontier = nxt
    return sum(
        1 for c in seen if c != space and geo.land[c] and s.on_cell[c] < 0 and not geo.prime[c]
    )
