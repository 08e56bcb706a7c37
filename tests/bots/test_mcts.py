"""The mcts bot: legal, deterministic on an iteration budget, blind to hidden information."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator

import pytest

from heights_bots import make_bot
from heights_bots.mcts import CREDIT_CAP, MctsBot, _race
from heights_rules import GameState, determinize, from_infoset, infoset
from heights_rules.options import GameConfig

Positions = Callable[[GameConfig, int, int], Iterator[GameState]]


def _bot() -> MctsBot:
    return MctsBot(seed=6, seconds=None, iterations=12, horizon=1)


def test_mcts_ignores_hidden_information(positions: Positions) -> None:
    # The same decision in the true state and in worlds whose hidden parts (draw-pile
    # order, other seats' Targets, the seed of future dice) were drawn afresh.
    checked = 0
    for state in positions(GameConfig(players=3), 43, 29):
        seat = state.current_player()
        expected = _bot().act(state, seat)
        known = from_infoset(infoset(state, seat))
        for key in (5, 2**41 + 3):
            assert _bot().act(determinize(known, seat, key), seat) == expected
        checked += 1
    assert checked > 10


def test_mcts_moves_are_legal_and_notes_say_what_it_did(positions: Positions) -> None:
    searched = 0
    for state in positions(GameConfig(players=2), 44, 17):
        seat = state.current_player()
        action, note = _bot().act_with_note(state, seat)
        assert action in state.legal_actions()
        found = re.match(r"mcts (\d+) iterations", note)
        if found:
            assert 1 <= int(found.group(1)) <= 12
            searched += 1
    assert searched > 3


def test_a_time_budget_still_returns_a_legal_move(positions: Positions) -> None:
    state = next(s for s in positions(GameConfig(players=2), 45, 40) if s.round > 1)
    bot = MctsBot(seed=1, seconds=0.01)
    assert bot.act(state, state.current_player()) in state.legal_actions()


def test_bad_budgets_are_refused() -> None:
    with pytest.raises(ValueError, match="iterations, horizon and widen must be at least 1"):
        MctsBot(seed=1, iterations=0)
    with pytest.raises(ValueError, match="iterations, horizon and widen must be at least 1"):
        MctsBot(seed=1, widen=0)
    with pytest.raises(ValueError, match="seconds must be positive or None, got 0"):
        MctsBot(seed=1, seconds=0)


def test_the_race_drops_only_moves_clearly_behind() -> None:
    # Move 1 leads in every world; move 2 trails it by 10 VP every time, move 3 by
    # a noisy 1 VP on average (not clearly behind after four rounds).
    values = {
        1: [10.0, 12.0, 8.0, 11.0],
        2: [0.0, 2.0, -2.0, 1.0],
        3: [12.0, 8.0, 7.0, 10.0],
    }
    assert _race([1, 2, 3], values) == [1, 3]
    # Too few rounds to judge: nobody drops.
    assert _race([1, 2, 3], {m: v[:2] for m, v in values.items()}) == [1, 2, 3]


def test_unspent_time_is_lent_to_later_decisions_up_to_a_cap() -> None:
    bot = MctsBot(seed=1, seconds=0.5)
    assert bot._deadline(100.0) == 100.5
    bot._searched, bot._spent = 10, 1.0  # 4 s unspent
    assert bot._deadline(100.0) == 100.0 + 0.5 * CREDIT_CAP
    bot._searched, bot._spent = 10, 5.1  # overspent: no credit
    assert bot._deadline(100.0) == 100.5
    bot._spent = 71.0  # past the game's share: a tenth
    assert bot._deadline(100.0) == pytest.approx(100.05)


class _TickClock:
    """A clock that moves by `tick` seconds each time it is read: a fixed amount of time
    per read, as CPU time is on any machine for the same work."""

    def __init__(self, tick: float) -> None:
        self.now, self.tick = 0.0, tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


def test_a_time_budget_is_counted_on_the_clock_it_is_given(positions: Positions) -> None:
    # The same reads of the same clock give the same search: what a CPU-time clock gives
    # a strength measurement on a busy machine. 0.6 s at 0.05 s a read stops the race
    # after a dozen iterations, far below its iteration cap.
    searched = 0
    for state in positions(GameConfig(players=2), 44, 17):
        seat = state.current_player()
        runs = [
            MctsBot(seed=3, seconds=0.6, clock=_TickClock(0.05)).act_with_note(state, seat)
            for _ in range(2)
        ]
        assert runs[0] == runs[1]
        found = re.match(r"mcts (\d+) iterations", runs[0][1])
        if found:
            assert int(found.group(1)) <= 13  # a read a move after the first: 0.6 / 0.05 + 1
            searched += 1
    assert searched > 3


def test_make_bot_names_the_clock_and_refuses_an_unknown_one() -> None:
    assert make_bot("mcts", 1, mcts_clock="cpu")._clock is time.thread_time  # type: ignore[attr-defined]
    assert make_bot("mcts", 1)._clock is time.perf_counter  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="unknown bot clock 'gpu'; clocks: wall, cpu"):
        make_bot("mcts", 1, mcts_clock="gpu")
