"""The greedy bot's race for the game end in solo (`heights_bots.solo_tempo`).

The Mayor rolls more dice as the rounds go by (RULES.md §8.3), so in solo a plan's
cubes of the colour closest to being fully built are worth more: they bring the end
nearer. In 2-4 player games nothing changes (`test_greedy_pinned.py` pins that).
"""

from __future__ import annotations

from heights_bots.placement import CUBE_COST_VP, SOLO_CUBE_COST_VP, tile_score, turn_context
from heights_bots.solo_tempo import RUSH_VP, rush_colour
from heights_bots.solo_tokens import DENIED_VP
from heights_bots.tables import tile_facts
from heights_rules import GameConfig, GameState

from .conftest import Positions

SOLO = GameConfig.solo_game()


def _mid_game(positions: Positions, seed: int) -> list[GameState]:
    return [s for s in positions(SOLO, seed, 9) if s.current_player() == 0 and s.round >= 4]


def test_the_rush_colour_has_the_fewest_cubes_left_to_build(positions: Positions) -> None:
    states = _mid_game(positions, 3)
    assert states
    for s in states:
        left = [s.total[c] - s.on_buildings[c] for c in range(4)]
        assert left[rush_colour(s)] == min(left)


def test_in_solo_a_plan_is_worth_more_by_its_cubes_of_the_rush_colour(
    positions: Positions,
) -> None:
    """The same position read as a multi-player game values every plan by the rest alone
    (the other solo terms, tokens and the cubes' cost, are `test_solo_tokens.py`'s)."""
    checked = 0
    for s in _mid_game(positions, 5):
        plain = s.clone()
        plain.solo = False
        ctx = turn_context(s, 0)
        colour = rush_colour(s)
        for tile in (t for row in s.market for t in row if t >= 0):
            need = tile_facts(s.catalogue)[tile].need
            bonus = RUSH_VP * need[colour]
            work = sum(n * e for n, e in zip(need, ctx.effort, strict=True))
            others = DENIED_VP * s.tile_wild[tile] - (SOLO_CUBE_COST_VP - CUBE_COST_VP) * work
            solo, multi = tile_score(s, tile, ctx), tile_score(plain, tile, ctx)
            assert abs(solo - multi - others - bonus) < 1e-9
            checked += bonus > 0
    assert checked, "no market plan needed the rush colour"
