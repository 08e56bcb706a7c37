"""Shared helpers for the bot tests: game configurations and mid-game positions."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from heights_bots.greedy import greedy_action
from heights_rules.game import GameState, new_game
from heights_rules.options import GameConfig
from heights_rules.rng import KeyedRng
from heights_rules.state import CHANCE

CONFIGS = {
    "solo": GameConfig.solo_game(),
    "2p": GameConfig(players=2),
    "3p": GameConfig(players=3),
    "4p": GameConfig(players=4),
}


@pytest.fixture(params=sorted(CONFIGS), ids=sorted(CONFIGS))
def config(request: pytest.FixtureRequest) -> GameConfig:
    result: GameConfig = CONFIGS[request.param]
    return result


Positions = Callable[[GameConfig, int, int], Iterator[GameState]]


@pytest.fixture
def positions() -> Positions:
    return _positions


def _positions(config: GameConfig, seed: int, every: int) -> Iterator[GameState]:
    """Decision points of one game played by a mix of greedy and random moves.

    Random moves (one in four) take the game off the greedy bot's beaten path, so the
    positions cover odd situations too. Yields every `every`-th decision state.
    """
    rng = KeyedRng(seed)
    state = new_game(config, seed)
    step = 0
    while not state.is_terminal():
        player = state.current_player()
        legal = state.legal_actions()
        if player == CHANCE:
            state.apply(legal[0])
            continue
        step += 1
        if step % every == 0:
            yield state.clone()
        if rng.below(4, b"mix", step) == 0:
            state.apply(legal[rng.below(len(legal), b"move", step)])
        else:
            state.apply(greedy_action(state, player))
