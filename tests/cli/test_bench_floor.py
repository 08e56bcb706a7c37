"""`heights bench-runner`'s count of a match's steps by kind, from its replay."""

from __future__ import annotations

import pytest

from heights_bots.bot import make_bot
from heights_bots.play import play_game
from heights_cli.bench_floor import step_counts
from heights_rules import CHANCE, GameConfig, RuleOptions, new_game


def test_steps_are_counted_by_kind_as_the_game_had_them() -> None:
    config = GameConfig(players=3, options=RuleOptions.from_dict({"round_cap": 3}))
    bots = [make_bot("greedy", s) for s in range(3)]
    _, replay = play_game(config, 5, bots)
    counts = step_counts(replay.to_bytes())
    state, forced, chance = new_game(config, 5), 0, 0
    for action in replay.actions:
        chance += state.current_player() == CHANCE
        forced += state.current_player() != CHANCE and len(state.legal_actions()) == 1
        state.apply(action)
    assert (counts.decisions + counts.chance, counts.forced, counts.chance) == (
        len(replay.actions),
        forced,
        chance,
    )
    assert counts.forced > 0
    assert counts.chance > 0


def test_a_match_that_was_not_played_stops_the_bench_with_its_error() -> None:
    from heights_cli.bench_runner import MatchNotPlayedError, _counts

    failed = {"match_id": "bench-1", "status": "failed", "error": "engine service unavailable"}
    with pytest.raises(MatchNotPlayedError, match=r"1 of 1 matches.*engine service unavailable"):
        _counts([failed])
