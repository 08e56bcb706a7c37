"""The search's evaluation and the fitting of its weights."""

from __future__ import annotations

import pytest

from heights_bots import GreedyBot, play_game
from heights_bots.evaluation import FEATURES, WEIGHTS, evaluate_for, features
from heights_bots.evaluation_fit import least_squares
from heights_bots.reading import turns_left
from heights_rules.components import Score
from heights_rules.final import outcome
from heights_rules.options import GameConfig
from heights_rules.replay import simulate


def test_one_weight_per_feature() -> None:
    assert len(WEIGHTS) == len(FEATURES)


def test_finished_game_is_judged_by_the_score_without_opponents_targets() -> None:
    state, _ = play_game(GameConfig(players=3), 9, [GreedyBot(), GreedyBot(), GreedyBot()])
    totals = outcome(state).totals
    for seat in range(3):
        others = [totals[q] - state.score[q][Score.TARGET] for q in range(3) if q != seat]
        assert evaluate_for(state, seat) == totals[seat] - max(others)


def test_features_match_their_names_mid_game() -> None:
    _, replay = play_game(GameConfig(players=2), 4, [GreedyBot(), GreedyBot()])
    middle = simulate(replay, len(replay.actions) // 2)
    row = features(middle, 0, turns_left(middle))
    assert len(row) == len(FEATURES)
    assert row[FEATURES.index("score")] == sum(middle.score[0])
    assert row[FEATURES.index("wild")] == middle.wild[0]


def test_least_squares_recovers_an_exact_fit() -> None:
    rows = [[1.0, float(x), float(x * x % 7)] for x in range(40)]
    ys = [2.0 * r[0] - 0.5 * r[1] + 3.0 * r[2] for r in rows]
    weights = least_squares(rows, ys)
    assert weights == pytest.approx([2.0, -0.5, 3.0], abs=0.05)
