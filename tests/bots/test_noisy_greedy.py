"""The noisy greedy bots: greedy with probability 1 - epsilon, else a random legal move."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from heights_bots import NOISY_EPSILONS, NoisyGreedyBot, make_bot
from heights_bots.greedy import greedy_action
from heights_rules import GameState
from heights_rules.options import GameConfig

Positions = Callable[[GameConfig, int, int], Iterator[GameState]]


def _choices(bot: NoisyGreedyBot, states: list[GameState]) -> tuple[int, int]:
    """(decisions with a choice, of them the ones where the bot left greedy's move)."""
    choices = off = 0
    for state in states:
        seat = state.current_player()
        legal = state.legal_actions()
        action = bot.act(state, seat)
        assert action in legal
        if len(legal) > 1:
            choices += 1
            off += action != greedy_action(state, seat)
    return choices, off


@pytest.fixture
def states(positions: Positions) -> list[GameState]:
    return [s for seed in (1, 2, 3) for s in positions(GameConfig(players=2), seed, 2)]


def test_epsilon_zero_is_greedy_and_one_is_mostly_random(states: list[GameState]) -> None:
    choices, off = _choices(NoisyGreedyBot(seed=4, epsilon=0.0), states)
    assert choices > 200
    assert off == 0
    _, off_random = _choices(NoisyGreedyBot(seed=4, epsilon=1.0), states)
    assert off_random > choices // 2  # a random pick is often not greedy's


def test_noise_grows_with_epsilon(states: list[GameState]) -> None:
    off = [_choices(make_bot(name, seed=9), states)[1] for name in NOISY_EPSILONS]  # type: ignore[arg-type]
    assert off[0] > off[1] > off[2] > 0  # 50%, 25%, 10% noise


def test_same_seed_same_choices(states: list[GameState]) -> None:
    a, b = NoisyGreedyBot(seed=5, epsilon=0.5), NoisyGreedyBot(seed=5, epsilon=0.5)
    assert [a.act(s, s.current_player()) for s in states] == [
        b.act(s, s.current_player()) for s in states
    ]


def test_epsilon_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match=r"epsilon must be between 0 and 1, got 1\.5"):
        NoisyGreedyBot(seed=1, epsilon=1.5)
