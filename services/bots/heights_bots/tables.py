"""Values the bots reason with, and per-catalogue tile tables computed once per catalogue.

Every value is in victory points (VP), so a cube, a meeple, a Wild Token and a printed
point can be compared directly. The numbers come from the landing odds (HARD 0.1,
STEADY 0.3, EXHAUSTED 0.6, with PREP guaranteeing half working): an active meeple
works on about half of its turns and yields about 1.25 units when it does.
"""

from __future__ import annotations

from dataclasses import dataclass

from heights_rules import N_BUCKETS, Bucket, Catalogue, Meeple, TileDef

NB = N_BUCKETS
HARD, STEADY, EXHAUSTED = Bucket.HARD, Bucket.STEADY, Bucket.EXHAUSTED
IDLE, USED_HARD, USED_STEADY = Bucket.IDLE, Bucket.USED_HARD, Bucket.USED_STEADY
BROWN, NAVY, CLEAR, BLUE = Meeple.BROWN, Meeple.NAVY, Meeple.CLEAR, Meeple.BLUE
YELLOW, MAGENTA, PURPLE, BLACK, GREEN = (
    Meeple.YELLOW,
    Meeple.MAGENTA,
    Meeple.PURPLE,
    Meeple.BLACK,
    Meeple.GREEN,
)
N_COLOURS = len(Meeple)
MAX_ACTIVE = 10

# A cube on a building, by colour (wood, concrete, glass, steel): about what it adds to
# a plan's completion value. Steel and glass are scarcer and dearer to trade for.
CUBE_VP = (0.55, 0.55, 0.65, 0.85)
TRADE_PRICE = (2, 2, 2, 3)
# What one unit of payment (a surplus cube or a point of Spending Power) is worth: half
# a traded cube, since two of them buy one.
PAY_VP = 0.3
SP_VP = 0.3
WILD_VP = 1.0  # a Wild Token scores 1 VP at the end, or buys any cube now
# Producing colour of each resource meeple (meeple index == cube index for 0..3).
PRODUCER = (BROWN, NAVY, CLEAR, BLUE)

# What one more meeple of a colour is worth per remaining own turn, in VP, as measured
# in greedy self-play: units produced per meeple and turn (about 0.7 wood, 0.9
# concrete, 1.0 glass or steel, 1.15 VP for a politician, 0.9 Executive activations)
# times what a unit is worth. The search's evaluation uses these.
MEEPLE_VALUE = (0.38, 0.45, 0.6, 0.8, 1.1, 0.5, 0.2, 0.45, 0.5)
PURPLE_WITH_BUILDING = 1.0  # extra value of a Public Figure that has a building to use
# The greedy bot's weights for the same thing. Its plan choice is better when it
# leans on printed VP and cheap cubes rather than on future meeple output (tuned in
# duplicate matches against earlier versions), so these are the values scaled down.
MEEPLE_RATE = (0.15, 0.15, 0.18, 0.22, 0.33, 0.16, 0.08, 0.22, 0.18)
PURPLE_RATE_WITH_BUILDING = 0.3
# VP of activating a working meeple now: (Working Steady, Working Hard).
ACTIVATION_VP = (
    (0.55, 1.1),  # brown: 1 / 2 wood
    (0.55, 1.1),  # navy: 1 / 2 concrete
    (0.65, 1.3),  # clear: glass
    (0.85, 1.7),  # blue: steel
    (1.0, 2.0),  # yellow: 1 / 2 VP
    (0.6, 1.2),  # magenta: 2 / 4 Spending Power
    (0.8, 1.6),  # purple: a building's ability (0 without one; see greedy)
    (0.8, 2.5),  # black: a re-roll / a free plan
    (0.6, 1.2),  # green: one / two upgrade steps
)
# Expected rounds of a game by player count (RULES.md targets), before the cube
# counts on buildings say better. Solo (1) has no target band: its games last about
# 12.5 rounds with the greedy bot racing the end (`solo_tempo`), and reading 12 rather
# than 18 there won 13.7% / 17.2% of 1,000 games instead of 12.5% / 15.3% (seeds
# 0-999 / 5000-5999, default difficulty; docs/balance.md).
EXPECTED_ROUNDS = {1: 12, 2: 18, 3: 15, 4: 13}


@dataclass(frozen=True, slots=True)
class TileFacts:
    """What a bot needs to know about one plan, precomputed."""

    need: tuple[int, int, int, int]  # cubes of each colour to complete it
    cubes: int
    fixed: float  # printed VP plus an estimate of variable VP and end bonus
    rate: float  # the greedy weight per remaining own turn of its rewards (meeples, ability)
    reward_value: float  # VP per remaining own turn its rewards add (MEEPLE_VALUE)
    type: int
    has_purple: bool
    max_rate: tuple[int, ...]  # the reward colours: best colour of each choice


_FACTS: dict[str, tuple[TileFacts, ...]] = {}


def tile_facts(catalogue: Catalogue) -> tuple[TileFacts, ...]:
    """The tile table of a catalogue (cached by the catalogue's hash)."""
    facts = _FACTS.get(catalogue.sha256)
    if facts is None:
        facts = tuple(_facts(t) for t in catalogue.tiles)
        _FACTS[catalogue.sha256] = facts
    return facts


def _facts(tile: TileDef) -> TileFacts:
    need = [0, 0, 0, 0]
    for colour, height in tile.stacks:
        need[colour] += height
    fixed = float(tile.vp)
    if tile.variable_vp is not None:
        fixed += 2.0 * int(tile.variable_vp.params.get("per", 1))
    if tile.end_bonus is not None:
        fixed += 2.5
    best = tuple(max(choice, key=lambda c: MEEPLE_RATE[c]) for choice in tile.meeples)
    rate = sum(MEEPLE_RATE[c] for c in best) + (0.2 if tile.purple else 0.0)
    reward_value = sum(MEEPLE_VALUE[c] for c in best) + (0.3 if tile.purple else 0.0)
    return TileFacts(
        need=(need[0], need[1], need[2], need[3]),
        cubes=tile.cubes,
        fixed=fixed,
        rate=rate,
        reward_value=reward_value,
        type=int(tile.type),
        has_purple=tile.purple is not None,
        max_rate=tuple(int(c) for c in best),
    )
