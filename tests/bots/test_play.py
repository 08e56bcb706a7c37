"""Whole games: every bot plays only legal actions, at every player count, repeatably.

`play_game` applies each chosen action through the engine, which rejects an illegal
one, so finishing a game is the legality check.
"""

from __future__ import annotations

import pytest

from heights_bots import Bot, make_bot, play_game, run_games, summarize
from heights_rules.final import outcome
from heights_rules.options import GameConfig
from heights_rules.replay import verify
from heights_rules.state import Termination


def _bots(names: list[str], seed: int) -> list[Bot]:
    return [
        make_bot(name, seed * 10 + seat, iterations=3, horizon=1) for seat, name in enumerate(names)
    ]


@pytest.mark.parametrize("name", ["random", "greedy"])
def test_fast_bots_play_legal_games_at_every_player_count(config: GameConfig, name: str) -> None:
    for seed in (1, 2):
        state, replay = play_game(config, seed, _bots([name] * config.players, seed))
        assert state.is_terminal()
        assert len(replay.actions) == state.steps


def test_mixed_table_plays_legal_games(config: GameConfig) -> None:
    names = ["greedy", "random", "greedy", "random"][: config.players]
    state, _ = play_game(config, 5, _bots(names, 5))
    assert state.is_terminal()


@pytest.mark.parametrize("players", [1, 2])
def test_search_plays_a_legal_game(players: int) -> None:
    config = GameConfig.solo_game() if players == 1 else GameConfig(players=2)
    names = ["search", "greedy"][:players]
    state, replay = play_game(config, 21, _bots(names, 21))
    assert state.is_terminal()
    assert verify(replay).ok


@pytest.mark.parametrize(
    "names", [["random", "random"], ["greedy", "greedy"], ["search", "greedy"]]
)
def test_same_seeds_give_the_same_game(names: list[str]) -> None:
    config = GameConfig(players=2)
    first = play_game(config, 8, _bots(names, 8))[1]
    second = play_game(config, 8, _bots(names, 8))[1]
    assert first.actions == second.actions
    assert first.final_hash == second.final_hash


def test_replay_records_names_and_notes() -> None:
    config = GameConfig(players=2)
    state, replay = play_game(config, 3, _bots(["greedy", "random"], 3), notes=True)
    assert replay.seats == ["greedy", "random"]
    assert replay.debug
    assert verify(replay).ok
    assert outcome(state).termination is Termination.TRIGGER


def test_play_game_needs_one_bot_per_seat() -> None:
    with pytest.raises(ValueError, match="need 2 bot"):
        play_game(GameConfig(players=2), 1, _bots(["greedy"], 1))


def test_greedy_games_end_by_the_real_trigger(config: GameConfig) -> None:
    records = run_games(config, ["greedy"] * config.players, games=4, seed=7)
    assert all(r.outcome.termination is Termination.TRIGGER for r in records)


def test_greedy_beats_random_clearly() -> None:
    records = run_games(GameConfig(players=2), ["greedy", "random"], games=40, seed=2024)
    summary = summarize(records)
    assert summary.games == 40
    assert summary.seats_played == {"greedy": 40, "random": 40}
    assert summary.win_rate("greedy") >= 0.85


def test_series_rotates_seats_over_duplicate_sets() -> None:
    records = run_games(GameConfig(players=3), ["greedy", "random", "random"], games=3, seed=4)
    assert [r.seats for r in records] == [
        ("greedy", "random", "random"),
        ("random", "greedy", "random"),
        ("random", "random", "greedy"),
    ]
    assert len({r.seed for r in records}) == 1
    assert sum(r.points(seat) for r in records for seat in range(3)) == pytest.approx(3.0)
