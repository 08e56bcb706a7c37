"""StreamExchange: each answer on ApplyActions and the next request in one gRPC batch.

The server runs in this process (`memory_server`), so what the exchange hands gRPC core
is seen through a stand-in for its `cygrpc` that counts the batches and passes them on.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from tests.engine.clients import create_game, stub
from tests.engine.test_apply_stream import Stream
from tests.engine.test_relayed_games import _recorded, build, digest

from heights_engine import stream_exchange
from heights_engine.proto import engine_service_pb2 as pb

PINGS = 5


class _CountedCore:
    """grpc's cygrpc with `execute_batch` counted: the kinds of operations of each batch."""

    def __init__(self, core: Any) -> None:
        self._core = core
        self.batches: list[tuple[str, ...]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._core, name)

    async def execute_batch(self, call: Any, operations: tuple[Any, ...], loop: Any) -> None:
        self.batches.append(tuple(type(o).__name__ for o in operations))
        await self._core.execute_batch(call, operations, loop)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> _CountedCore:
    core = _CountedCore(stream_exchange.cygrpc)
    monkeypatch.setattr(stream_exchange, "cygrpc", core)
    return core


def _pings(address: str, times: int) -> list[pb.ApplyActionsResponse]:
    stream = Stream(stub(address))
    answers = []
    for _ in range(times):
        stream.requests.put(pb.ApplyActionsRequest(ping=True))
        answers.append(next(stream.responses))
    stream.end()
    return answers


def test_every_answer_after_the_first_travels_with_the_next_read(
    memory_server: str, counted: _CountedCore
) -> None:
    assert stream_exchange.usable()  # the locked grpcio has what the batch needs
    assert _pings(memory_server, PINGS) == [pb.ApplyActionsResponse(pong=True)] * PINGS
    # The first answer goes through grpc.aio (with the initial metadata), the others in a
    # batch with the read of the request after them: the last one's read finds the end.
    pair = ("SendMessageOperation", "ReceiveMessageOperation")
    assert counted.batches == [pair] * (PINGS - 1)


def test_a_refusal_after_batched_answers_still_ends_the_stream_with_its_status(
    memory_server: str, counted: _CountedCore
) -> None:
    engine = stub(memory_server)
    created = create_game(engine, players=2)
    stream = Stream(engine)
    for _ in range(2):
        stream.requests.put(pb.ApplyActionsRequest(ping=True))
        next(stream.responses)
    request = pb.ApplyActionRequest(game_id=created.game.game_id, seat_token="not-a-token")
    request.action.id = 0
    with pytest.raises(grpc.RpcError) as err:
        stream.call(request)
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert len(counted.batches) == 1  # the second pong, with the refused request's read


def test_where_grpcio_has_no_batch_the_stream_keeps_grpc_aio_read_and_write(
    memory_server: str, counted: _CountedCore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream_exchange, "_call_state", lambda context: (None, None))
    assert _pings(memory_server, PINGS) == [pb.ApplyActionsResponse(pong=True)] * PINGS
    game = _recorded()[-1]  # 2 players: the shortest; the same bytes either way
    sent = digest(memory_server, game["players"], game["seed"], game["actions"])
    assert sent == game["digests"][build()]
    assert counted.batches == []


class _OtherShape(_CountedCore):
    """A grpcio whose execute_batch takes other arguments: it refuses the call."""

    async def execute_batch(self, call: Any, operations: tuple[Any, ...], loop: Any) -> None:
        self.batches.append(tuple(type(o).__name__ for o in operations))
        raise TypeError("execute_batch() takes exactly 4 positional arguments (3 given)")


def test_a_grpcio_whose_batch_has_another_shape_answers_the_public_way(
    memory_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    core = _OtherShape(stream_exchange.cygrpc)
    monkeypatch.setattr(stream_exchange, "cygrpc", core)
    monkeypatch.setattr(stream_exchange, "_BATCH_REFUSED", False)
    assert _pings(memory_server, PINGS) == [pb.ApplyActionsResponse(pong=True)] * PINGS
    assert stream_exchange._BATCH_REFUSED
    assert len(core.batches) == 1  # tried once, then never again in this process
    assert _pings(memory_server, PINGS) == [pb.ApplyActionsResponse(pong=True)] * PINGS
    assert len(core.batches) == 1
