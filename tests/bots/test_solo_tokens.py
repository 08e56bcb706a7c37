"""The greedy bot's solo valuation of market plans beyond racing the end: the Wild
Tokens on a plan (`heights_bots.solo_tokens`: most would go to the Mayor, RULES.md §8.3
Step A, §8.5) and the cost of a plan's cubes (`placement.SOLO_CUBE_COST_VP`). In 2-4
player games neither changes anything (`test_greedy_pinned.py` pins that)."""

from __future__ import annotations

from heights_bots.placement import CUBE_COST_VP, SOLO_CUBE_COST_VP, tile_score, turn_context
from heights_bots.solo_tokens import DENIED_VP, denied_value
from heights_bots.tables import tile_facts
from heights_rules import GameConfig, GameState

from .conftest import Positions

SOLO = GameConfig.solo_game()


def _solo_positions(positions: Positions, seed: int) -> list[GameState]:
    return [s for s in positions(SOLO, seed, 7) if s.current_player() == 0 and s.round >= 3]


def _market(s: GameState) -> list[int]:
    return [t for row in s.market for t in row if t >= 0]


def _with_tokens(s: GameState, tile: int, n: int) -> GameState:
    out = s.clone()
    out.tile_wild[tile] = n
    return out


def test_in_solo_a_wild_token_on_a_plan_is_worth_a_point_more_than_in_a_multiplayer_game(
    positions: Positions,
) -> None:
    """The same plan with 2 more tokens: in solo worth 2 * DENIED_VP more than the rise a
    multi-player reading gives it (the tokens' own value to the player)."""
    checked = 0
    for s in _solo_positions(positions, 11):
        ctx = turn_context(s, 0)
        for tile in _market(s):
            more = _with_tokens(s, tile, s.tile_wild[tile] + 2)
            plain, plain_more = s.clone(), more.clone()
            plain.solo = plain_more.solo = False
            solo_rise = tile_score(more, tile, ctx) - tile_score(s, tile, ctx)
            multi_rise = tile_score(plain_more, tile, ctx) - tile_score(plain, tile, ctx)
            assert abs(solo_rise - multi_rise - 2 * DENIED_VP) < 1e-9
            checked += 1
    assert checked


def test_denied_value_counts_the_tokens_on_the_plan(positions: Positions) -> None:
    s = _solo_positions(positions, 12)[0]
    tile = _market(s)[0]
    assert denied_value(_with_tokens(s, tile, 0), tile) == 0.0
    assert denied_value(_with_tokens(s, tile, 3), tile) == 3 * DENIED_VP


def test_in_solo_a_plans_cubes_cost_more(positions: Positions) -> None:
    """A plan without tokens or cubes of the rush colour: solo and multi-player readings
    differ by its work times the difference of the two cube costs."""
    assert SOLO_CUBE_COST_VP > CUBE_COST_VP
    checked = 0
    for s in _solo_positions(positions, 13):
        ctx = turn_context(s, 0)
        plain = s.clone()
        plain.solo = False
        left = [s.total[c] - s.on_buildings[c] for c in range(4)]
        rush = left.index(min(left))
        for tile in _market(s):
            need = tile_facts(s.catalogue)[tile].need
            if s.tile_wild[tile] or need[rush]:
                continue
            work = sum(n * e for n, e in zip(need, ctx.effort, strict=True))
            gap = tile_score(plain, tile, ctx) - tile_score(s, tile, ctx)
            assert abs(gap - (SOLO_CUBE_COST_VP - CUBE_COST_VP) * work) < 1e-9
            checked += 1
    assert checked
