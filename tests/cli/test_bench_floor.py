"""`heights bench-runner`'s count of a match's steps by kind, from its replay, and the
ping of its floor."""

from __future__ import annotations

import grpc
import pytest
from tests.engine.clients import OPERATOR_TOKEN
from tests.engine.conftest import InProcessServer

from heights_bots.bot import make_bot
from heights_bots.play import play_game
from heights_cli import bench_floor
from heights_cli.bench_floor import step_counts
from heights_engine.settings import Settings
from heights_rules import CHANCE, GameConfig, RuleOptions, new_game
from heights_runner import grpc_engine


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


@pytest.mark.parametrize("caller_driven", [True, False])
def test_the_floors_ping_goes_as_the_runner_sends_its_actions(
    caller_driven: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ping and its pong on the engine's stream, in the caller's thread as the runner's
    ActionStream sends, or on gRPC's threaded stream where this grpcio cannot."""
    if not caller_driven:
        monkeypatch.setattr(grpc_engine, "open_caller_stream", lambda *args: None)
    monkeypatch.setattr(bench_floor, "WARM_UP", 5)
    monkeypatch.setattr(bench_floor, "ROUND_TRIPS", 20)
    server = InProcessServer(Settings(address="127.0.0.1:0", operator_token=OPERATOR_TOKEN))
    try:
        with grpc.insecure_channel(server.address) as chan:
            ping, close = bench_floor._pinger(chan)
            assert ping()
            close()
        cost = bench_floor.stream_ping(server.address, [])
    finally:
        server.stop()
    assert cost.round_trip_us > 0
