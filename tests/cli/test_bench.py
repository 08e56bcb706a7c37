"""`heights bench`'s yardstick: the engine's random play and python-chess's, in one run."""

from __future__ import annotations

from heights_cli.bench import chess_random_play, engine_against_chess, engine_random_play


def test_the_engine_row_carries_python_chess_rate_and_the_ratio_of_the_two() -> None:
    row = engine_against_chess(players=2, games=2, seed=1000)
    assert row["chess_plies_per_sec"] > 0
    assert row["decisions_per_sec"] > 0
    ratio = row["decisions_per_sec"] / row["chess_plies_per_sec"]
    assert abs(row["ratio_vs_chess"] - ratio) <= 0.01 * ratio + 0.01


def test_both_random_plays_are_the_same_games_for_the_same_seeds() -> None:
    steps, decisions, _ = engine_random_play(2, 1, 1000)
    assert engine_random_play(2, 1, 1000)[:2] == (steps, decisions)
    assert 0 < decisions < steps  # chance steps are steps, not decisions
    plies, _ = chess_random_play(1, 1000)
    assert chess_random_play(1, 1000)[0] == plies > 0
