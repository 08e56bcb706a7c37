"""Forced decisions (a single legal action) in a match: played by the engine, never sent
to a bot, recorded in the replay as if the seat had chosen them; the replay verifies."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.engine.clients import OPERATOR_TOKEN
from tests.engine.conftest import InProcessServer

from heights_engine.settings import Settings
from heights_rules import CHANCE, Replay, replay_start, verify
from heights_runner import protocol
from heights_runner.contract import BotRef, MatchResult, MatchSpec, SeatSpec, TimeLimits
from heights_runner.engines import LocalEngine
from heights_runner.grpc_engine import GrpcEngine, channel
from heights_runner.launch import LaunchPolicy
from heights_runner.match import play_match

ROOMY = TimeLimits(move_ms=10_000, bank_ms=120_000, start_ms=60_000)  # a busy CI machine


@pytest.fixture
def server() -> Iterator[InProcessServer]:
    started = InProcessServer(Settings(address="127.0.0.1:0", operator_token=OPERATOR_TOKEN))
    yield started
    started.stop()


def _spec(play_forced: bool) -> MatchSpec:
    seats = tuple(SeatSpec(f"g{i}", BotRef.builtin("greedy"), True) for i in range(3))
    return MatchSpec(
        "forced", 41, seats, options={"round_cap": 3}, limits=ROOMY, play_forced=play_forced
    )


def _forced_steps(replay: Replay) -> int:
    state, forced = replay_start(replay), 0
    for action in replay.actions:
        if state.current_player() != CHANCE and len(state.legal_actions()) == 1:
            forced += 1
        state.apply(action)
    return forced


def _relayed(result: MatchResult) -> int:
    assert [seat.forfeit for seat in result.seats] == [None] * len(result.seats)
    return sum(seat.moves for seat in result.seats)


def test_forced_decisions_are_played_by_the_engine_and_the_replay_verifies(
    tmp_path: Path, server: InProcessServer
) -> None:
    policy = LaunchPolicy(tmp_path)
    asked = play_match(_spec(play_forced=False), LocalEngine, policy)
    local = play_match(_spec(play_forced=True), LocalEngine, policy)

    def over_grpc(spec: MatchSpec) -> GrpcEngine:
        return GrpcEngine(spec, channel(server.address), OPERATOR_TOKEN)

    remote = play_match(_spec(play_forced=True), over_grpc, policy)
    replays = [Replay.from_bytes(r.replay_bytes()) for r in (asked, local, remote)]
    # One game three ways: a bot asked about a forced decision has one answer.
    assert replays[0].actions == replays[1].actions == replays[2].actions
    assert all(verify(replay).ok for replay in replays)
    forced = _forced_steps(replays[0])
    assert forced > 0
    # Asked, every decision reached a bot; played, the forced ones reached none.
    assert _relayed(local) == _relayed(remote) == _relayed(asked) - forced
    # The bots noted why for what they decided; nothing is noted for what they did not.
    assert "forced" in replays[0].debug.values()
    assert "forced" not in replays[1].debug.values()


def test_the_spec_and_hello_say_whether_forced_decisions_are_played() -> None:
    spec = _spec(play_forced=False)
    assert MatchSpec.from_dict(spec.to_dict()) == spec
    assert MatchSpec.from_dict({k: v for k, v in spec.to_dict().items() if k != "play_forced"}) == (
        dataclasses.replace(spec, play_forced=True)  # a message from before the setting
    )
    assert json.loads(protocol.hello(spec, 0))["forced_played"] is False
    assert json.loads(protocol.hello(_spec(play_forced=True), 0))["forced_played"] is True
