"""Locust users of the engine service: games played to the end, and the empty RPC.

`GameUser` creates a two-player game (holding both seat tokens) and plays it to the end
with random legal actions, then starts another. `HealthUser` calls grpc.health.v1 Check,
the empty RPC the game calls are compared with. Both use sync gRPC stubs on gevent, and
an interceptor reports every call to locust (request type "grpc", name the method).

Environment (`loadtests/run.py` sets it; see loadtests/README.md):
  LOADTEST_TARGETS  comma-separated host:port of the engine replicas (127.0.0.1 only);
                    each call goes to the next one (client-side round robin)
  LOADTEST_ROUTING  "call" (default): every call of a game goes to the next replica, so
                    each replica catches up from the store's log at almost every call
                    (the worst case, as unary calls on a round_robin channel); "game":
                    every call of a game goes to the replica its CreateGame went to (as
                    a stream does, or a channel that stays on one replica)
  LOADTEST_CLIENT   "lean" (default): ApplyAction with omit_view, and the legal actions it
                    returns when the same seat moves again; "view": the full view on
                    every ApplyAction and ListLegalActions before every decision (what a
                    client of the service before omit_view had to do)
"""

from __future__ import annotations

import grpc.experimental.gevent as grpc_gevent

grpc_gevent.init_gevent()  # before any channel exists

import contextlib  # noqa: E402 (gevent first)
import itertools  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from typing import Any  # noqa: E402

import grpc  # noqa: E402
from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402
from locust import User, constant, task  # noqa: E402
from locust.env import Environment  # noqa: E402

from heights_engine.auth import operator_metadata  # noqa: E402
from heights_engine.proto import engine_service_pb2 as pb  # noqa: E402
from heights_engine.proto import engine_service_pb2_grpc as pb_grpc  # noqa: E402
from heights_engine.proto import game_pb2  # noqa: E402

LOCAL_HOSTS = ("127.0.0.1",)
TIMEOUT_SECONDS = 10.0
# Creating games needs the engine's operator credential (run.py gives it to both).
OPERATOR = operator_metadata(os.environ.get("HEIGHTS_ENGINE_OPERATOR_TOKEN", ""))


def targets() -> list[str]:
    """The replicas to call; anything but 127.0.0.1 is refused."""
    raw = os.environ.get("LOADTEST_TARGETS", "127.0.0.1:50051")
    found = [t.strip() for t in raw.split(",") if t.strip()]
    for target in found:
        host, _, port = target.rpartition(":")
        if host not in LOCAL_HOSTS or not port.isdigit():
            raise SystemExit(f"LOADTEST_TARGETS: {target!r} is not 127.0.0.1:<port>")
    return found


class ReportingInterceptor(grpc.UnaryUnaryClientInterceptor):
    """Times every unary call and fires locust's request event with its outcome."""

    def __init__(self, environment: Environment) -> None:
        self.environment = environment

    def intercept_unary_unary(
        self,
        continuation: Callable[[Any, Any], Any],
        client_call_details: grpc.ClientCallDetails,
        request: Any,
    ) -> Any:
        start = time.perf_counter()
        call = continuation(client_call_details, request)
        length = 0
        exception: BaseException | None = None
        try:
            length = call.result().ByteSize()
        except grpc.RpcError as err:
            exception = err
        self.environment.events.request.fire(  # type: ignore[no-untyped-call]
            request_type="grpc",
            name=str(client_call_details.method).rsplit("/", 1)[-1],
            response_time=(time.perf_counter() - start) * 1000.0,
            response_length=length,
            exception=exception,
            context={},
        )
        return call


class Channels:
    """One channel per replica for the whole process, shared by every user."""

    _channels: list[grpc.Channel] | None = None

    @classmethod
    def get(cls, environment: Environment) -> list[grpc.Channel]:
        if cls._channels is None:
            interceptor = ReportingInterceptor(environment)
            cls._channels = [
                grpc.intercept_channel(grpc.insecure_channel(t), interceptor) for t in targets()
            ]
        return cls._channels


class HealthUser(User):
    """The empty RPC: grpc.health.v1 Check, as fast as the server answers."""

    wait_time = constant(0)

    def on_start(self) -> None:
        channels = Channels.get(self.environment)
        self._stubs = itertools.cycle([health_pb2_grpc.HealthStub(c) for c in channels])

    @task
    def check(self) -> None:
        with contextlib.suppress(grpc.RpcError):  # reported by the interceptor
            next(self._stubs).Check(health_pb2.HealthCheckRequest(), timeout=TIMEOUT_SECONDS)


class GameUser(User):
    """Creates two-player games and plays each to the end with random legal actions."""

    wait_time = constant(0)

    def on_start(self) -> None:
        channels = Channels.get(self.environment)
        self._stubs: Iterator[pb_grpc.EngineServiceStub] = itertools.cycle(
            [pb_grpc.EngineServiceStub(c) for c in channels]
        )
        self._lean = os.environ.get("LOADTEST_CLIENT", "lean") != "view"
        self._per_game = os.environ.get("LOADTEST_ROUTING", "call") == "game"
        self._rng = random.Random()

    def _engine(self) -> pb_grpc.EngineServiceStub:
        return next(self._stubs)

    def _router(self) -> Callable[[], pb_grpc.EngineServiceStub]:
        """Where each call of the next game goes: the next replica, or always the same."""
        if not self._per_game:
            return self._engine
        stub = self._engine()
        return lambda: stub

    @task
    def play_game(self) -> None:
        # A refused call is reported by the interceptor; the next task starts a new game.
        with contextlib.suppress(grpc.RpcError):
            self._play()

    def _play(self) -> None:
        engine = self._router()
        created = engine().CreateGame(
            pb.CreateGameRequest(
                request_id=uuid.uuid4().hex, config=game_pb2.GameConfig(players=2)
            ),
            timeout=TIMEOUT_SECONDS,
            metadata=OPERATOR,
        )
        game_id, seat_tokens = created.game.game_id, list(created.seat_tokens)
        sequence, to_move = created.game.sequence, created.game.to_move
        legal: list[int] = []
        while to_move != -1:
            token = seat_tokens[to_move]
            if not legal:
                listed = engine().ListLegalActions(
                    pb.ListLegalActionsRequest(game_id=game_id, seat_token=token),
                    timeout=TIMEOUT_SECONDS,
                )
                sequence, legal = listed.sequence, [a.id for a in listed.actions]
            reply = engine().ApplyAction(
                pb.ApplyActionRequest(
                    game_id=game_id,
                    seat_token=token,
                    expected_sequence=sequence,
                    action=game_pb2.Action(id=self._rng.choice(legal)),
                    omit_view=self._lean,
                ),
                timeout=TIMEOUT_SECONDS,
            )
            if self._lean:
                sequence, to_move = reply.sequence, reply.to_move
                legal = [a.id for a in reply.legal_actions]
            else:
                sequence, to_move, legal = reply.game.sequence, reply.game.to_move, []
