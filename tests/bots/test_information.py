"""The hidden-information contract: a bot sees only what its seat may know.

A bot handed the true state and a bot handed a determinization of the seat's
information set (other draw-pile order, other seats' Targets, another seed) must
choose the same action.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from heights_bots.greedy import GreedyBot
from heights_bots.search import SearchBot
from heights_rules.game import GameState, determinize, from_infoset
from heights_rules.observation import infoset
from heights_rules.options import GameConfig

Positions = Callable[[GameConfig, int, int], Iterator[GameState]]

KEYS = (1, 99, 2**40 + 7)


def _views(state: GameState, seat: int) -> list[GameState]:
    known = from_infoset(infoset(state, seat))
    return [determinize(known, seat, key) for key in KEYS]


def test_greedy_ignores_hidden_information(config: GameConfig, positions: Positions) -> None:
    bot = GreedyBot()
    checked = 0
    for seed in (31, 32, 33):
        for state in positions(config, seed, 5):
            seat = state.current_player()
            expected = bot.act(state, seat)
            assert [bot.act(view, seat) for view in _views(state, seat)] == [expected] * len(KEYS)
            checked += 1
    assert checked > 100


def test_search_ignores_hidden_information(positions: Positions) -> None:
    config = GameConfig(players=3)
    checked = 0
    for state in positions(config, 41, 23):
        seat = state.current_player()
        expected = SearchBot(seed=6, iterations=3, horizon=1).act(state, seat)
        for view in _views(state, seat)[:2]:
            assert SearchBot(seed=6, iterations=3, horizon=1).act(view, seat) == expected
        checked += 1
    assert checked > 10
