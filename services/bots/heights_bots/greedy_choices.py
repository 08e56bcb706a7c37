"""The greedy answers to every decision outside MAIN's free choice, one function each.

Each takes (state, seat, legal ids) and returns (action id, short reason). The legal
list always has at least two entries: forced moves never reach these functions.
"""

from __future__ import annotations

from heights_bots import action_ids as ids
from heights_bots.abilities import best_use, upgrade_gain
from heights_bots.greedy_main import Choice, main_choice
from heights_bots.placement import (
    adjacency_rules,
    best_space,
    space_score,
    start_openness,
    tile_score,
    turn_context,
)
from heights_bots.reading import buildable, meeple_rate, needs
from heights_bots.tables import (
    ACTIVATION_VP,
    CUBE_VP,
    EXHAUSTED,
    HARD,
    IDLE,
    NB,
    PURPLE,
    STEADY,
    USED_HARD,
    USED_STEADY,
    tile_facts,
)
from heights_rules import (
    F,
    GameState,
    PickEffect,
    Purpose,
    place_costs,
    start_spaces,
    target_values,
)

# Landing odds of one re-rolled meeple (decision 4: HARD 0.1, STEADY 0.3).
P_HARD, P_STEADY, P_EXHAUSTED = 0.1, 0.3, 0.6
STRIKE_WILD_VP = 1.5  # above its 1 VP: rallying more often measured better
# Which of a colour's buckets to give up first when a meeple must be picked.
_CHEAP_BUCKETS = (USED_HARD, USED_STEADY, IDLE, EXHAUSTED, STEADY, HARD)


def _pick_parts(action: int) -> tuple[int, int]:
    return divmod(action - ids.PICK, NB)


def pay(s: GameState, p: int, legal: list[int]) -> Choice:
    """Spending Power first (it dies at the end of the turn), then the most surplus cube."""
    if legal[0] == ids.PAY:
        return ids.PAY, "pay with Spending Power"
    need = needs(s, p)
    held = s.cubes[p]

    def spare(a: int) -> tuple[int, float]:
        source = a - ids.PAY - 1
        colour = source % 4
        surplus = held[source] - (need[colour] if source < 4 else 0)
        return surplus, -CUBE_VP[colour]

    return max(legal, key=spare), "pay with the most surplus cube"


def risk(s: GameState, p: int, legal: list[int]) -> Choice:
    """Rally when the expected gain beats the bust chance times the strike's loss."""
    m = s.meeples[p]
    values = _working_values(s, p)
    gain = 0.0
    exhausted = 0
    working: list[float] = []
    for colour in range(len(values)):
        steady_vp, hard_vp = values[colour]
        n = m[colour * NB + EXHAUSTED]
        exhausted += n
        gain += n * (P_STEADY * steady_vp + P_HARD * hard_vp)
        working += [hard_vp] * m[colour * NB + HARD] + [steady_vp] * m[colour * NB + STEADY]
    working.sort()
    loss = sum(working[: len(working) // 2]) - STRIKE_WILD_VP  # a strike pays a Wild Token
    if gain > P_EXHAUSTED**exhausted * loss:
        return ids.RALLY, f"rally: gain {gain:.1f} vs bust loss {loss:.1f}"
    return ids.STOP, f"stop: gain {gain:.1f} vs bust loss {loss:.1f}"


def _working_values(s: GameState, p: int) -> list[tuple[float, float]]:
    """ACTIVATION_VP, except that a Public Figure without a building to use is idle."""
    values = list(ACTIVATION_VP)
    if any(s.meeples[p][PURPLE * NB : (PURPLE + 1) * NB]) and best_use(s, p, 0)[0] < 0:
        values[PURPLE] = (0.05, 0.05)
    return values


def strike(s: GameState, p: int, legal: list[int]) -> Choice:
    values = _working_values(s, p)

    def worth(a: int) -> float:
        colour, bucket = _pick_parts(a)
        return values[colour][1 if bucket == HARD else 0]

    return min(legal, key=worth), "strike: return the least useful worker"


def upgrade(s: GameState, p: int, legal: list[int]) -> Choice:
    need = needs(s, p)
    best, best_gain = legal[0], -1.0
    for a in legal:
        if a == ids.DONE:
            continue
        gain = upgrade_gain(s, p, *_pick_parts(a), need)
        if gain > best_gain:
            best, best_gain = a, gain
    if best_gain <= 0.05 and legal[0] == ids.DONE:
        return ids.DONE, "nothing worth upgrading"
    return best, "upgrade the meeple that gains most"


def use(s: GameState, p: int, legal: list[int]) -> Choice:
    tile, _ = best_use(s, p, s.stack[-1].level)
    if tile >= 0 and ids.USE + s.space_of[tile] in legal:
        return ids.USE + s.space_of[tile], "use the best building"
    return legal[0], "use a building"


def pick(s: GameState, p: int, legal: list[int]) -> Choice:
    """A conversion or a sacrifice: give up the cheapest meeple in its cheapest state."""
    effect = s.stack[-1].effect

    def cost(a: int) -> tuple[float, int]:
        colour, bucket = _pick_parts(a)
        rate = 0.0 if effect == PickEffect.CONVERT else meeple_rate(s, p, colour)
        return rate, _CHEAP_BUCKETS.index(bucket)

    return min(legal, key=cost), "give up the cheapest meeple"


def cube(s: GameState, p: int, legal: list[int]) -> Choice:
    need = needs(s, p)

    def want(a: int) -> tuple[int, float]:
        colour = a - ids.CUBE
        return need[colour] - buildable(s, p, colour), CUBE_VP[colour]

    return max(legal, key=want), "the most needed colour"


def gain(s: GameState, p: int, legal: list[int]) -> Choice:
    return max(legal, key=lambda a: meeple_rate(s, p, a - ids.GAIN)), "the most useful meeple"


def aside(s: GameState, p: int, legal: list[int]) -> Choice:
    return min(legal, key=lambda a: meeple_rate(s, p, a - ids.ASIDE)), "set aside the least useful"


def target(s: GameState, p: int, legal: list[int]) -> Choice:
    values = target_values(s, p)
    index = max(range(len(values)), key=lambda i: values[i])
    return ids.TARGET + index, "the higher-scoring Target"


def take(s: GameState, p: int, legal: list[int]) -> Choice:
    ctx = turn_context(s, p)

    def worth(a: int) -> float:
        level, pos = ids.market_ref(a, ids.TAKE)
        return tile_score(s, s.market[level][pos], ctx)

    return max(legal, key=worth), "take the best plan"


def start(s: GameState, p: int, legal: list[int]) -> Choice:
    """The level-1 plan worth most with its best zoning space among the starting spaces."""
    ctx = turn_context(s, p)
    spaces = start_spaces(s, p)
    geo = s.geo

    def worth(a: int) -> float:
        tile = s.market[0][a - ids.START]
        bit = 1 << tile_facts(s.catalogue)[tile].type
        zoning = max((geo.zoning_vp[sp] for sp in spaces if geo.zoning_types[sp] & bit), default=0)
        return tile_score(s, tile, ctx) + zoning

    return max(legal, key=worth), "the best starting plan"


def place(s: GameState, p: int, legal: list[int]) -> Choice:
    top = s.stack[-1]
    purpose, tile = top.purpose, top.tile
    spaces = [a - ids.PLACE for a in legal]
    if purpose == Purpose.MAYOR:
        return ids.PLACE + _mayor_space(s, tile, spaces), "where the Mayor scores least"
    if purpose == Purpose.START:
        return ids.PLACE + _start_space(s, p, tile, spaces), "the best starting space"
    if purpose == Purpose.BUY:
        cost = dict(place_costs(s, p))
        priced = [(sp, cost[sp]) for sp in spaces]
    else:
        priced = [(sp, s.geo.prime[sp]) for sp in spaces]
    return ids.PLACE + best_space(s, p, tile, priced)[0], "the best space"


def _start_space(s: GameState, p: int, tile: int, spaces: list[int]) -> int:
    tile_type = tile_facts(s.catalogue)[tile].type
    rules = adjacency_rules(s, p)

    def worth(space: int) -> float:
        return space_score(s, p, tile_type, space, cost=0, rules=rules) + 0.1 * start_openness(
            s, space
        )

    return max(spaces, key=worth)


def _mayor_space(s: GameState, tile: int, spaces: list[int]) -> int:
    bit = 1 << tile_facts(s.catalogue)[tile].type
    geo = s.geo
    return min(spaces, key=lambda sp: geo.zoning_vp[sp] if geo.zoning_types[sp] & bit else 0)


def mayor_build(s: GameState, p: int, legal: list[int]) -> Choice:
    """Feed the Mayor the colour closest to being fully built, then the one p needs least.

    The Mayor scores a point per cube it builds and rolls more dice as the rounds go by,
    so every round the game lasts is worth more to it than to the player: spending its
    cubes on the colour that ends the game brings the end closer. Measured over 1,000
    solo games (reconstructed-v2, default difficulty, docs/balance.md): 9.1% won against
    4.8% when it fed the Mayor the colour the supply had most of.
    """
    need = needs(s, p)
    tile = s.stack[-1].tile
    stacks = s.catalogue.tiles[tile].stacks

    def harm(a: int) -> tuple[int, int, int]:
        colour = stacks[ids.build_target(a)[1]][0]
        return s.total[colour] - s.on_buildings[colour], need[colour], -a

    return min(legal, key=harm), "the cube that brings the end closest"


DECIDE = {
    F.MAIN: main_choice,
    F.START: start,
    F.PLACE: place,
    F.PAY: pay,
    F.ASIDE: aside,
    F.RISK: risk,
    F.STRIKE: strike,
    F.UPGRADE: upgrade,
    F.USE: use,
    F.PICK: pick,
    F.CUBE: cube,
    F.GAIN: gain,
    F.TAKE: take,
    F.TARGET: target,
    F.MAYOR_BUILD: mayor_build,
}
