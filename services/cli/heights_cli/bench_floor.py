"""The parts `heights bench-runner` measures a match against: what a decision costs with no
work at all, what starting the sandboxes costs, and where a match's steps go.

The floor of one decision on the server's path is one message on the engine's
ApplyActions stream and back (a ping: nothing read or applied) plus one line through a
sandboxed process and back (a Python process that echoes it). Prints nothing itself.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    import grpc

    from heights_runner.sandbox import BotProcess

ROUND_TRIPS = 2000
WARM_UP = 200
ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n"


def empty_rpc_us(address: str) -> float:
    """Mean round trip of the health check (a unary RPC that does nothing) on the engine."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(address) as chan:
        check = health_pb2_grpc.HealthStub(chan).Check
        request = health_pb2.HealthCheckRequest()
        for _ in range(WARM_UP):
            check(request, timeout=5)
        start = time.perf_counter()
        for _ in range(ROUND_TRIPS):
            check(request, timeout=5)
        return (time.perf_counter() - start) / ROUND_TRIPS * 1e6


@dataclass(frozen=True, slots=True)
class PingCost:
    """A ping on the engine's stream: its round trip, and the CPU each side spent on it."""

    round_trip_us: float
    client_cpu_us: float  # this process, gRPC's threads included
    engine_cpu_us: float


def stream_ping(address: str, engine_pids: list[int]) -> PingCost:
    """Pings on the engine's ApplyActions stream, sent as the runner sends its actions
    (heights_runner.grpc_engine.ActionStream: in the caller's thread, caller_stream.py,
    else gRPC's threaded stream), so the floor has the client's machinery too."""
    import grpc

    from heights_cli.cpu_usage import process_seconds

    with grpc.insecure_channel(address) as chan:
        ping, close = _pinger(chan)
        try:
            for _ in range(WARM_UP):
                ping()
            engine0, cpu0 = process_seconds(engine_pids), time.process_time()
            start = time.perf_counter()
            for _ in range(ROUND_TRIPS):
                if not ping():
                    raise RuntimeError("the engine answered a ping with something else")
            wall = time.perf_counter() - start
            cpu, engine = time.process_time() - cpu0, process_seconds(engine_pids) - engine0
            return PingCost(*(v / ROUND_TRIPS * 1e6 for v in (wall, cpu, engine)))
        finally:
            close()


def _pinger(chan: grpc.Channel) -> tuple[Callable[[], bool], Callable[[], None]]:
    """A ping on a new ApplyActions stream (whether the answer was a pong), and its close:
    the runner's own stream (heights_runner.grpc_engine.ActionStream)."""
    from heights_engine.proto import engine_service_pb2 as pb
    from heights_engine.proto import engine_service_pb2_grpc as pb_grpc
    from heights_runner.grpc_engine import ActionStream

    ping = pb.ApplyActionsRequest(ping=True)
    stream = ActionStream(chan, pb_grpc.EngineServiceStub(chan))
    return (lambda: stream.send(ping).pong), stream.close


def _echo_bot(folder: Path) -> BotProcess:
    from heights_runner import sandbox

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "main.py").write_text(ECHO)
    python, binds = sandbox.python_binds()
    return sandbox.start_bot(folder, [python, "-u", "-S", "/bot/main.py"], ro_binds=binds)


def sandbox_pipe_us(folder: Path) -> float:
    """Mean round trip of one line through a sandboxed Python process that echoes it."""
    bot = _echo_bot(folder)
    try:
        line = '{"type":"decide","step":1}'
        for _ in range(WARM_UP):
            bot.send(line)
            bot.receive(5)
        start = time.perf_counter()
        for _ in range(ROUND_TRIPS):
            bot.send(line)
            bot.receive(5)
        return (time.perf_counter() - start) / ROUND_TRIPS * 1e6
    finally:
        bot.close()


def echo_start_ms(folder: Path, times: int) -> float:
    """bubblewrap + a bare interpreter (`python -S`, no imports) to its first answer, in
    wall time (the sandboxed processes' CPU ends with their PID namespace, unread)."""
    wall = 0.0
    for _ in range(times):
        start = time.perf_counter()
        bot = _echo_bot(folder)
        bot.send("{}")
        bot.receive(10)
        wall += time.perf_counter() - start
        bot.close()
    return wall / times * 1e3


def match_start_ms(cache: Path, bot: str, seats: int, times: int) -> float:
    """A match's start-up as the runner does it: every seat's sandbox started, then each
    `ready` awaited (bubblewrap + interpreter + the bot's imports). Per match, wall."""
    from heights_runner.contract import BotRef, MatchSpec, SeatSpec
    from heights_runner.launch import LaunchPolicy
    from heights_runner.seats import Seat

    specs = tuple(SeatSpec(f"{bot}-{i}", BotRef.builtin(bot), True) for i in range(seats))
    policy = LaunchPolicy(cache_dir=cache)
    wall = 0.0
    for n in range(times):
        spec = MatchSpec(f"start-{n}", n, specs)
        start = time.perf_counter()
        started = [Seat(spec, s, policy) for s in range(seats)]
        for seat in started:
            seat.launch()
        for seat in started:
            seat.ready(time.monotonic() + 30)
        wall += time.perf_counter() - start
        for seat in started:
            if seat.forfeit is not None:
                raise RuntimeError(f"{bot} did not start: {seat.forfeit}")
            seat.close()
    return wall / times * 1e3


@dataclass(frozen=True, slots=True)
class StepCounts:
    """A match's steps by who made them, re-simulated from its replay."""

    decisions: int  # every seat decision, forced ones included
    forced: int  # decisions with a single legal action
    chance: int


def step_counts(replay_blob: bytes) -> StepCounts:
    from heights_rules import CHANCE, Replay, replay_start

    replay = Replay.from_bytes(replay_blob)
    state = replay_start(replay)
    decisions = forced = chance = 0
    for action in replay.actions:
        if state.current_player() == CHANCE:
            chance += 1
        else:
            decisions += 1
            forced += len(state.legal_actions()) == 1
        state.apply(action)
    return StepCounts(decisions, forced, chance)
