"""Test clients of the engine service: each `SeatClient` holds one seat's token only."""

from __future__ import annotations

import random
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from heights_cli.stack import grpc_serving
from heights_engine.auth import operator_metadata
from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import engine_service_pb2_grpc as pb_grpc
from heights_engine.proto import game_pb2

SHORT = '{"round_cap": 3}'  # games that end after three rounds: full games in a second
OPERATOR_TOKEN = "test-operator-token"  # every test server's (conftest.py)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class WithMetadata(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """Adds fixed metadata (the operator credential) to every call of a channel."""

    def __init__(self, metadata: tuple[tuple[str, str], ...]) -> None:
        self.metadata = metadata

    def _details(self, details: Any) -> Any:
        return details._replace(metadata=tuple(details.metadata or ()) + self.metadata)

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._details(details), requests)


def stub(address: str, operator: str = OPERATOR_TOKEN) -> pb_grpc.EngineServiceStub:
    """A client of the service; it sends the operator credential unless `operator` is ""."""
    channel = grpc.insecure_channel(address)
    if operator:
        channel = grpc.intercept_channel(channel, WithMetadata(operator_metadata(operator)))
    return pb_grpc.EngineServiceStub(channel)


def status_code(err: grpc.RpcError) -> grpc.StatusCode:
    """The code of a refused call (the stubs do not say RpcError is also a Call)."""
    code: grpc.StatusCode = getattr(err, "code")()  # noqa: B009
    return code


def error_reason(err: grpc.RpcError) -> str:
    """The ErrorInfo reason of a refused call."""
    status = rpc_status.from_call(err)
    assert status is not None, f"no rich status in {err}"
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            reason: str = info.reason
            return reason
    raise AssertionError("no ErrorInfo in the status details")


def wait_healthy(
    address: str, timeout: float = 20.0, alive: Callable[[], bool] = lambda: True
) -> None:
    deadline = time.monotonic() + timeout
    while not grpc_serving(address, timeout=1):
        if time.monotonic() > deadline or not alive():
            raise AssertionError(f"no healthy server at {address}")
        time.sleep(0.05)


def create_game(
    engine: pb_grpc.EngineServiceStub,
    *,
    players: int = 2,
    solo: bool = False,
    seed: int | None = 11,
    options: str = SHORT,
    request_id: str | None = None,
) -> pb.CreateGameResponse:
    request = pb.CreateGameRequest(
        request_id=request_id or uuid.uuid4().hex,
        config=game_pb2.GameConfig(players=players, solo=solo, options_json=options),
    )
    if seed is not None:
        request.seed = seed
    response: pb.CreateGameResponse = engine.CreateGame(request, timeout=10)
    return response


@dataclass
class SeatClient:
    """A player that knows only its own token and sees only its own view."""

    engine: pb_grpc.EngineServiceStub
    game_id: str
    token: str
    rng: random.Random
    seen: list[str] = field(default_factory=list)  # every observation it was shown

    def view(self) -> game_pb2.GameView:
        reply = self.engine.GetGame(
            pb.GetGameRequest(game_id=self.game_id, seat_token=self.token), timeout=10
        )
        self.seen.append(reply.game.observation_json)
        game: game_pb2.GameView = reply.game
        return game

    def play_if_my_turn(self) -> bool:
        """Make one decision if it is this seat's; whether it did."""
        view = self.view()
        if view.status == game_pb2.GAME_STATUS_OVER or view.to_move != view.viewer:
            return False
        legal = self.engine.ListLegalActions(
            pb.ListLegalActionsRequest(game_id=self.game_id, seat_token=self.token), timeout=10
        )
        action = self.rng.choice(list(legal.actions))
        reply = self.engine.ApplyAction(
            pb.ApplyActionRequest(
                game_id=self.game_id,
                seat_token=self.token,
                expected_sequence=legal.sequence,
                action=game_pb2.Action(id=action.id),
            ),
            timeout=10,
        )
        self.seen.append(reply.game.observation_json)
        return True


def seat_clients(
    engine: pb_grpc.EngineServiceStub, created: pb.CreateGameResponse, seed: int = 0
) -> list[SeatClient]:
    return [
        SeatClient(engine, created.game.game_id, token, random.Random(seed * 10 + seat))
        for seat, token in enumerate(created.seat_tokens)
    ]


def play_out(clients: list[SeatClient], max_decisions: int = 100_000) -> int:
    """Let every seat play when it is its turn until the game ends; decisions made."""
    decisions = 0
    while decisions < max_decisions:
        moved = [client.play_if_my_turn() for client in clients]
        decisions += sum(moved)
        if not any(moved):
            view = clients[0].view()
            assert view.status == game_pb2.GAME_STATUS_OVER, "nobody could move"
            return decisions
    raise AssertionError("the game did not end")
