"""Solo play against the Mayor: the Wild Tokens waiting on the market's plans.

A Wild Token left on a market plan mostly ends up with the Mayor: its die takes the
plan at the first, second or third space (RULES.md §8.3, Step A), where tokens pile up,
and the Mayor scores 1 VP for every token it picks up (§8.5). In v4 solo games it
collected 5.9 tokens a game against the greedy player's 1.8 (1,000 games at the default
difficulty, seeds 0-999, docs/balance.md). So in solo a plan's tokens are worth the
point they give the player and the point they keep from the Mayor.

Measured on reconstructed-v4 at the default difficulty, 1,000 games each on seeds 0-999
and 5000-5999: the mean margin to the Mayor goes from -37.7 / -36.6 VP to -35.3 / -34.3
with `DENIED_VP` 1 (1.5 and 2 measured the same within the noise), the Mayor's tokens
from 5.9 to 4.5 a game with the solo cube cost beside it (`placement.SOLO_CUBE_COST_VP`).

It reads only the tokens on the market's plans (public), as any bot could. Only solo
games read this module; 2-4 player play does not depend on it
(tests/bots/test_greedy_pinned.py).
"""

from __future__ import annotations

from heights_rules import GameState

DENIED_VP = 1.0  # VP per Wild Token on a plan the player takes: the Mayor's point for it


def denied_value(s: GameState, tile: int) -> float:
    """What taking a market plan keeps from the Mayor in solo: its Wild Tokens (VP)."""
    return DENIED_VP * s.tile_wild[tile]
