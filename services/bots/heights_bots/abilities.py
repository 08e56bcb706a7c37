"""What activating a meeple, using a building's ability or upgrading a meeple is worth now."""

from __future__ import annotations

from heights_bots.placement import tile_score, turn_context
from heights_bots.reading import buildable, meeple_rate, turns_left, wild_value
from heights_bots.tables import (
    ACTIVATION_VP,
    BLACK,
    CUBE_VP,
    EXHAUSTED,
    GREEN,
    MAGENTA,
    NB,
    PAY_VP,
    PURPLE,
    SP_VP,
    STEADY,
    YELLOW,
)
from heights_rules import (
    EffectRef,
    GameState,
    Meeple,
    ScoringRef,
    evaluate,
    prime_costs,
    usable_buildings,
)


def effect_value(s: GameState, p: int, tile: int, ref: EffectRef) -> float:
    """VP-equivalent of running one purple ability now."""
    effect, params = ref.effect, ref.params
    if effect == "gain_vp":
        return float(params["n"])
    if effect == "gain_sp":
        return SP_VP * int(params["n"])
    if effect == "gain_wild":
        return wild_value(s, p) * int(params["n"])
    if effect == "gain_cubes":
        return 0.6 * int(params["n"])
    if effect == "score":
        scoring = ScoringRef(params["fn"], params.get("params", {}))
        return float(evaluate(s, p, scoring, s.space_of[tile]))
    if effect == "double_politicians":
        m = s.meeples[p]
        return float(s.pol_vp + 2 * m[YELLOW * NB + 1] + m[YELLOW * NB + STEADY])
    turns = turns_left(s)
    rates = [meeple_rate(s, p, c) for c in range(len(ACTIVATION_VP))]
    if effect == "convert_meeple":
        gain = rates[Meeple[params["to"]]] - rates[Meeple[params["from"]]]
        return max(0.0, gain * turns)
    if effect == "sacrifice_meeple":
        owned = [c for c in range(len(rates)) if any(s.meeples[p][c * NB : (c + 1) * NB])]
        cheapest = min((rates[c] for c in owned), default=0.0)
        return max(0.0, int(params["vp"]) - cheapest * turns)
    return 0.0


def best_use(s: GameState, p: int, level: int) -> tuple[int, float]:
    """The building whose ability at `level` is worth most now: (tile or -1, VP)."""
    best, best_value = -1, 0.0
    tiles = s.catalogue.tiles
    for tile in usable_buildings(s, p, level):
        purple = tiles[tile].purple
        assert purple is not None
        value = effect_value(s, p, tile, purple[level])
        if value > best_value:
            best, best_value = tile, value
    return best, best_value


def best_take(s: GameState, p: int) -> tuple[int, int, float]:
    """The plan a City Planner should take: (level, position, VP), or (-1, -1, 0).

    Only the plan is valued; where it goes is chosen when placing it.
    """
    primes = prime_costs(s)
    if not primes or primes[0][1] > s.funds(p):
        return -1, -1, 0.0
    ctx = turn_context(s, p)
    best = (-1, -1, 0.0)
    for level in (0, 1):
        for pos, tile in enumerate(s.market[level]):
            if tile >= 0:
                value = tile_score(s, tile, ctx)
                if value > best[2]:
                    best = (level, pos, value)
    return best


def working_value(s: GameState, p: int, colour: int, hard: bool, need: list[int]) -> float:
    """VP of activating a working meeple of `colour` now (at its hard level if `hard`)."""
    level = 1 if hard else 0
    if colour < 4:
        units = level + 1
        useful = min(units, max(0, need[colour] - buildable(s, p, colour)))
        return useful * CUBE_VP[colour] + (units - useful) * PAY_VP
    if colour == YELLOW:
        return float((level + 1) * s.pol_mult)
    if colour == MAGENTA:
        return 2.0 * (level + 1) * SP_VP
    if colour == PURPLE:
        return best_use(s, p, level)[1]
    if colour == BLACK:
        reroll = 0.25 * sum(s.meeples[p][EXHAUSTED::NB])
        return max(reroll, best_take(s, p)[2]) if hard else reroll
    if colour == GREEN:
        return ACTIVATION_VP[GREEN][level]
    return ACTIVATION_VP[colour][level]


def upgrade_gain(s: GameState, p: int, colour: int, bucket: int, need: list[int]) -> float:
    """What one Public Servant step on a (colour, bucket) meeple adds."""
    steady = working_value(s, p, colour, False, need)
    if bucket == EXHAUSTED:
        return steady
    return working_value(s, p, colour, True, need) - steady
