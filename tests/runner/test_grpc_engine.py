"""The runner's engine over gRPC: a game on one ApplyActions stream, unary calls as a
fallback, the same game as the in-process engine either way."""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import grpc
import pytest
from tests.engine.clients import OPERATOR_TOKEN
from tests.engine.conftest import InProcessServer

from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import engine_service_pb2_grpc as pb_grpc
from heights_engine.servicer import EngineServicer
from heights_engine.settings import Settings
from heights_runner import grpc_engine
from heights_runner.caller_stream import open_caller_stream
from heights_runner.contract import BotRef, MatchSpec, SeatSpec
from heights_runner.engines import OVER, Engine, LocalEngine
from heights_runner.grpc_engine import APPLY_ACTIONS, GrpcEngine, channel


@pytest.fixture
def start_server() -> Iterator[Callable[..., InProcessServer]]:
    started: list[InProcessServer] = []

    def start(max_streams: int = 1000) -> InProcessServer:
        settings = Settings(
            address="127.0.0.1:0", operator_token=OPERATOR_TOKEN, max_streams=max_streams
        )
        started.append(InProcessServer(settings))
        return started[-1]

    yield start
    for server in started:
        server.stop()


def _spec() -> MatchSpec:
    seats = tuple(SeatSpec(f"s{i}", BotRef.builtin("random"), True) for i in range(3))
    return MatchSpec("grpc-engine", 31, seats, options={"round_cap": 3})


def _play(engine: Engine, patch_seats: set[int]) -> tuple[tuple[int, ...], int]:
    """Each seat plays its last legal action, read from the view it is sent."""
    engine.patch_seats = patch_seats
    steps = 0
    while engine.to_move() != OVER:
        turn = engine.turn()
        engine.apply(turn.seat, turn.observation()["legal"][-1]["id"])
        steps += 1
    finished = engine.finish()
    engine.close()
    return finished.totals, steps


def test_a_game_over_the_stream_is_the_in_process_game(
    start_server: Callable[..., InProcessServer],
) -> None:
    expected = _play(LocalEngine(_spec()), set())
    engine = GrpcEngine(_spec(), channel(start_server().address), OPERATOR_TOKEN)
    assert _play(engine, {0, 1, 2}) == expected
    assert engine._streaming  # the stream was used, not the fallback


def test_an_engine_without_apply_actions_gets_unary_calls(
    start_server: Callable[..., InProcessServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    async def unimplemented(
        self: EngineServicer, requests: AsyncIterator[Any], context: Any
    ) -> AsyncIterator[Any]:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")
        yield  # an async generator: grpc.aio serves one as it does the real coroutine

    monkeypatch.setattr(EngineServicer, "ApplyActions", unimplemented)  # before the start
    expected = _play(LocalEngine(_spec()), set())
    engine = GrpcEngine(_spec(), channel(start_server().address), OPERATOR_TOKEN)
    assert _play(engine, {0, 1, 2}) == expected
    assert not engine._streaming


def test_the_stream_is_driven_in_the_callers_thread(
    start_server: Callable[..., InProcessServer],
) -> None:
    """No thread of gRPC's per stream (its request reader, its channel's spin thread):
    each of a decision's messages would cross to them and back (caller_stream.py)."""
    engine = GrpcEngine(_spec(), channel(start_server().address), OPERATOR_TOKEN)
    engine.patch_seats = {0, 1, 2}
    before = threading.active_count()
    turn = engine.turn()
    engine.apply(turn.seat, turn.observation()["legal"][-1]["id"])  # opens the stream
    assert engine._stream is not None
    assert threading.active_count() == before
    engine.close()


def test_a_grpcio_without_the_core_call_keeps_grpcs_threaded_stream(
    start_server: Callable[..., InProcessServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(grpc_engine, "open_caller_stream", lambda *args: None)
    expected = _play(LocalEngine(_spec()), set())
    engine = GrpcEngine(_spec(), channel(start_server().address), OPERATOR_TOKEN)
    assert _play(engine, {0, 1, 2}) == expected
    assert engine._streaming


def _stream_accepted(address: str) -> bool:
    """Whether the engine takes one more ApplyActions stream (answers a ping on it)."""
    with grpc.insecure_channel(address) as chan:
        stream = open_caller_stream(chan, APPLY_ACTIONS, 10)
        assert stream is not None
        try:
            answer = stream.call(pb.ApplyActionsRequest(ping=True).SerializeToString())
        except grpc.RpcError as err:
            if getattr(err, "code")() != grpc.StatusCode.RESOURCE_EXHAUSTED:  # noqa: B009
                raise
            return False
        finally:
            stream.close()
        return answer is not None and pb.ApplyActionsResponse.FromString(answer).pong


def test_closing_a_game_mid_stream_ends_the_stream_on_the_engine(
    start_server: Callable[..., InProcessServer],
) -> None:
    """A replica takes `max_streams` streams: with one, a stream the runner left open
    would refuse every other client's."""
    server = start_server(max_streams=1)
    engine = GrpcEngine(_spec(), channel(server.address), OPERATOR_TOKEN)
    engine.patch_seats = {0, 1, 2}
    turn = engine.turn()
    engine.apply(turn.seat, turn.observation()["legal"][-1]["id"])
    assert not _stream_accepted(server.address)  # the game's stream holds the one place
    engine.close()
    # The engine learns of the cancel a moment later: asked again a bounded number of
    # times (no timing asserted; a stream left open fails every time).
    for _ in range(100):
        if _stream_accepted(server.address):
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the closed game's stream still holds the engine's one place")


def test_a_ping_and_an_unknown_method_through_the_callers_stream(
    start_server: Callable[..., InProcessServer],
) -> None:
    """An answer comes back as bytes; a call the server ends carries its status and
    trailing metadata as grpc.RpcError, as gRPC's own stream raises it."""
    address = start_server().address
    assert _stream_accepted(address)
    with grpc.insecure_channel(address) as chan:
        stream = open_caller_stream(chan, "/rollingheights.engine.v1.EngineService/Nothing", 10)
        assert stream is not None
        with pytest.raises(grpc.RpcError) as raised:
            stream.call(b"")
        stream.close()
    assert raised.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_a_message_the_engine_never_answers_ends_by_the_attempts_deadline(
    start_server: Callable[..., InProcessServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream's deadline is what is left of the attempt, not the hour a stream may
    last: a stalled handler cannot hold the runner past the match's own deadline."""
    import asyncio

    from heights_runner.engines import EngineUnavailableError

    async def stalled(
        self: EngineServicer, requests: AsyncIterator[Any], context: Any
    ) -> AsyncIterator[Any]:
        async for _ in requests:
            await asyncio.sleep(3600)
        yield  # an async generator: grpc.aio serves one as it does the real coroutine

    monkeypatch.setattr(EngineServicer, "ApplyActions", stalled)  # before the start
    monkeypatch.setattr(grpc_engine, "attempt_seconds", lambda spec: 1.0)
    monkeypatch.setattr(grpc_engine, "ATTEMPTS", 1)
    engine = GrpcEngine(_spec(), channel(start_server().address), OPERATOR_TOKEN)
    turn = engine.turn()
    with pytest.raises(EngineUnavailableError):  # DEADLINE_EXCEEDED: retryable, ours
        engine.apply(turn.seat, turn.observation()["legal"][-1]["id"])
    engine.close()


def test_a_grpcio_whose_core_operations_changed_keeps_grpcs_threaded_stream(
    start_server: Callable[..., InProcessServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its internals are not grpcio's API: where they take other arguments, the runner
    loses speed, not matches."""
    from heights_runner import caller_stream

    class Changed:  # this module's view of the layer; grpc's own code keeps the real one
        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        @staticmethod
        def SendMessageOperation(*args: object) -> object:  # noqa: N802 (grpc's name)
            raise TypeError("SendMessageOperation() takes 3 arguments")

    real = caller_stream.cygrpc
    monkeypatch.setattr(caller_stream, "cygrpc", Changed())
    caller_stream._usable.cache_clear()
    try:
        address = start_server().address
        assert open_caller_stream(channel(address), APPLY_ACTIONS, 10.0) is None
        expected = _play(LocalEngine(_spec()), set())
        assert _play(GrpcEngine(_spec(), channel(address), OPERATOR_TOKEN), {0, 1, 2}) == expected
    finally:
        monkeypatch.undo()
        caller_stream._usable.cache_clear()


def _game_exists(address: str, game_id: str) -> bool:
    stub = pb_grpc.EngineServiceStub(channel(address))
    try:
        stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=30)
    except grpc.RpcError as err:
        code: grpc.StatusCode = err.code()
        if code != grpc.StatusCode.NOT_FOUND:
            raise
        return False
    return True


def test_an_attempt_abandoned_mid_game_deletes_its_game(
    start_server: Callable[..., InProcessServer],
) -> None:
    # The match is played again on a new game (or fails): the abandoned one was left
    # counting against the engine's MAX_GAMES until its 24 h expiry.
    server = start_server()
    engine = GrpcEngine(_spec(), channel(server.address), OPERATOR_TOKEN)
    for _ in range(3):
        turn = engine.turn()
        engine.apply(turn.seat, turn.observation()["legal"][-1]["id"])
    assert engine.to_move() != OVER
    assert _game_exists(server.address, engine.game_id)
    engine.close()
    assert not _game_exists(server.address, engine.game_id)


def test_a_finished_game_is_kept_when_the_match_closes_it(
    start_server: Callable[..., InProcessServer],
) -> None:
    server = start_server()
    engine = GrpcEngine(_spec(), channel(server.address), OPERATOR_TOKEN)
    _play(engine, set())  # finishes, then closes
    assert _game_exists(server.address, engine.game_id)
