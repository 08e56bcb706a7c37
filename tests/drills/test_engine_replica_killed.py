"""Drill: an engine replica killed mid-game; the game goes on on another replica.

Two engine services share one Redis game store; the runner's channel balances over
both (`ipv4:A,B`, round robin), so the game's calls land on both. Replica A is killed
with SIGKILL (no shutdown, no flush) after the 20th action; the runner's retries move
to B, and the game ends exactly as the same seed played in-process (LocalEngine) does.
"""

from __future__ import annotations

import signal
import uuid
from pathlib import Path

import pytest
from tests.drills.drill_tools import REDIS
from tests.real_redis import redis_forget

from heights_cli.stack import Service, Stack
from heights_rules.replay import Replay
from heights_runner.contract import BotRef, MatchSpec, SeatSpec, TimeLimits
from heights_runner.engines import Engine, Finished, LocalEngine, Turn
from heights_runner.grpc_engine import GrpcEngine, channel
from heights_runner.launch import LaunchPolicy
from heights_runner.match import play_match

pytestmark = pytest.mark.drill

KILL_AFTER = 20  # actions applied before replica A dies


class KillsAReplica:
    """An engine that kills `victim` after `after` actions, between two calls."""

    def __init__(self, inner: GrpcEngine, victim: Service, after: int) -> None:
        self.inner, self.victim, self.after = inner, victim, after
        self.game_id, self.commitment = inner.game_id, inner.commitment
        self.applied = 0

    @property
    def patch_seats(self) -> set[int]:
        return self.inner.patch_seats

    @patch_seats.setter
    def patch_seats(self, seats: set[int]) -> None:
        # Forwarded: the game goes on patching across the fail-over.
        self.inner.patch_seats = seats

    def to_move(self) -> int:
        return self.inner.to_move()

    def turn(self) -> Turn:
        return self.inner.turn()

    def apply(self, seat: int, action: int) -> None:
        self.inner.apply(seat, action)
        self.applied += 1
        if self.applied == self.after:
            self.victim.stop(signal.SIGKILL)

    def finish(self) -> Finished:
        return self.inner.finish()

    def close(self) -> None:
        self.inner.close()


def test_a_replica_killed_mid_game_changes_nothing(tmp_path: Path) -> None:
    stack = Stack(tmp_path / "var")
    prefix = f"heights-drill-{uuid.uuid4().hex[:10]}:engine"
    try:
        a, b = (
            stack.engine(
                name,
                redis_url=REDIS,
                HEIGHTS_ENGINE_REDIS_PREFIX=prefix,
                HEIGHTS_ENGINE_LOG_LEVEL="INFO",
            )
            for name in ("engine-a", "engine-b")
        )
        chan = channel(f"ipv4:{a.address},{b.address}")
        seats = tuple(
            SeatSpec(f"seat{i}", BotRef.builtin(name), trusted=True)
            for i, name in enumerate(("greedy", "random"))
        )
        # Generous limits: a loaded machine must not turn this drill into a timeout forfeit.
        limits = TimeLimits(move_ms=5000, bank_ms=60_000, start_ms=30_000)
        spec = MatchSpec(
            f"drill-{uuid.uuid4().hex[:8]}", 4242, seats, options={"round_cap": 3}, limits=limits
        )
        policy = LaunchPolicy(tmp_path / "bots", allow_unsandboxed=False)
        engines: list[KillsAReplica] = []

        def make(spec: MatchSpec) -> Engine:
            engines.append(
                KillsAReplica(GrpcEngine(spec, chan, stack.operator_token), a, KILL_AFTER)
            )
            return engines[0]

        served = play_match(spec, make, policy)
        chan.close()
    finally:
        stack.stop()
        redis_forget(prefix)
    assert engines[0].applied > KILL_AFTER  # the game went on after the kill
    assert a.proc.returncode == -signal.SIGKILL
    reference = play_match(spec, LocalEngine, policy)  # the same seed, in this process

    assert served.status == reference.status == "finished"
    assert [s.forfeit for s in served.seats] == [None, None]  # shows why if one forfeited
    assert Replay.from_bytes(served.replay_bytes()).actions == (
        Replay.from_bytes(reference.replay_bytes()).actions
    )
    assert [(s.rank, s.score, s.forfeit) for s in served.seats] == [
        (s.rank, s.score, s.forfeit) for s in reference.seats
    ]
    assert served.outcome == reference.outcome
