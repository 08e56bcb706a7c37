"""The runner's engine over gRPC: a game on one ApplyActions stream, unary calls as a
fallback, the same game as the in-process engine either way."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import grpc
import pytest
from tests.engine.clients import OPERATOR_TOKEN
from tests.engine.conftest import InProcessServer

from heights_engine.servicer import EngineServicer
from heights_engine.settings import Settings
from heights_runner.contract import BotRef, MatchSpec, SeatSpec
from heights_runner.engines import OVER, Engine, LocalEngine
from heights_runner.grpc_engine import GrpcEngine, channel


@pytest.fixture
def start_server() -> Iterator[Callable[[], InProcessServer]]:
    started: list[InProcessServer] = []

    def start() -> InProcessServer:
        settings = Settings(address="127.0.0.1:0", operator_token=OPERATOR_TOKEN)
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
    start_server: Callable[[], InProcessServer],
) -> None:
    expected = _play(LocalEngine(_spec()), set())
    engine = GrpcEngine(_spec(), channel(start_server().address), OPERATOR_TOKEN)
    assert _play(engine, {0, 1, 2}) == expected
    assert engine._streaming  # the stream was used, not the fallback


def test_an_engine_without_apply_actions_gets_unary_calls(
    start_server: Callable[[], InProcessServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    async def unimplemented(
        self: EngineServicer, requests: AsyncIterator[Any], context: Any
    ) -> AsyncIterator[Any]:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")
        yield  # an async generator, as the real handler

    monkeypatch.setattr(EngineServicer, "ApplyActions", unimplemented)  # before the start
    expected = _play(LocalEngine(_spec()), set())
    engine = GrpcEngine(_spec(), channel(start_server().address), OPERATOR_TOKEN)
    assert _play(engine, {0, 1, 2}) == expected
    assert not engine._streaming
