"""The search bot: where it branches, how it decides, and that it stays deterministic."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from heights_bots import action_ids as ids
from heights_bots.candidates import candidates
from heights_bots.greedy import greedy_action
from heights_bots.search import SearchBot
from heights_rules.frames import F
from heights_rules.game import GameState
from heights_rules.options import GameConfig

Positions = Callable[[GameConfig, int, int], Iterator[GameState]]


def test_candidates_start_with_greedy_and_are_legal(positions: Positions) -> None:
    seen_kinds = set()
    for state in positions(GameConfig(players=2), 12, 3):
        seat = state.current_player()
        legal = state.legal_actions()
        moves = candidates(state, seat, legal)
        assert moves[0] == greedy_action(state, seat)
        assert set(moves) <= set(legal)
        assert len(moves) == len(set(moves))
        if len(moves) > 1:
            seen_kinds.add(state.stack[-1].kind)
    assert {F.RISK, F.MAIN, F.PLACE} <= seen_kinds


def test_risk_compares_both_answers(positions: Positions) -> None:
    for state in positions(GameConfig(players=2), 13, 1):
        if state.stack[-1].kind is F.RISK:
            seat = state.current_player()
            assert sorted(candidates(state, seat, state.legal_actions())) == [ids.RALLY, ids.STOP]
            return
    raise AssertionError("no RISK decision in the game")


def test_payments_are_not_searched(positions: Positions) -> None:
    for state in positions(GameConfig(players=2), 14, 1):
        if state.stack[-1].kind is F.PAY:
            seat = state.current_player()
            assert len(candidates(state, seat, state.legal_actions())) == 1


def test_search_is_deterministic_for_a_seed(positions: Positions) -> None:
    states = list(positions(GameConfig(players=2), 15, 29))
    for state in states:
        seat = state.current_player()
        first = SearchBot(seed=3, iterations=4, horizon=1).act_with_note(state, seat)
        assert SearchBot(seed=3, iterations=4, horizon=1).act_with_note(state, seat) == first


def test_a_time_budget_still_returns_a_legal_move(positions: Positions) -> None:
    bot = SearchBot(seed=1, iterations=1000, seconds=0.01, horizon=1)
    for state in list(positions(GameConfig(players=2), 16, 41))[:5]:
        seat = state.current_player()
        assert bot.act(state, seat) in state.legal_actions()
