"""The greedy bot's solo play: the cubes it has the Mayor build (RULES.md §8.3, Step B;
decision 9 leaves the choice of colour to the solo player)."""

from __future__ import annotations

from heights_bots import action_ids as ids
from heights_bots import make_bot, seat_seed
from heights_rules import CHANCE, GameConfig, GameState, new_game
from heights_rules.frames import F


def _colours(state: GameState, legal: list[int]) -> dict[int, int]:
    """Cube colour of each legal MAYOR_BUILD action."""
    stacks = state.catalogue.tiles[state.stack[-1].tile].stacks
    return {a: stacks[ids.build_target(a)[1]][0] for a in legal}


def _mayor_choices(seed: int) -> list[tuple[GameState, list[int], int]]:
    """Every Mayor's-cube decision of a greedy solo game with a choice of colour, with
    the state before it and the action the bot chose."""
    state = new_game(GameConfig.solo_game(), seed)
    bot = make_bot("greedy", seat_seed(seed, 0))
    seen = []
    while not state.is_terminal():
        seat = state.current_player()
        if seat == CHANCE:
            state.apply(state.legal_actions()[0])
            continue
        legal = state.legal_actions()
        action = bot.act(state, seat)
        if state.stack[-1].kind is F.MAYOR_BUILD and len(set(_colours(state, legal).values())) > 1:
            seen.append((state.clone(), legal, action))
        state.apply(action)
    return seen


def test_greedy_has_the_mayor_build_the_colour_closest_to_the_game_end() -> None:
    choices = [c for seed in (1, 2, 3) for c in _mayor_choices(seed)]
    assert choices, "no Mayor's-cube decision with a choice of colour in three games"
    for state, legal, action in choices:
        colours = _colours(state, legal)
        left = {c: state.total[c] - state.on_buildings[c] for c in colours.values()}
        assert left[colours[action]] == min(left.values())
