"""Requests whose bytes are no message of their method's type: INVALID_ARGUMENT
MALFORMED_REQUEST, never UNKNOWN with a traceback in the log (heights_engine/malformed.py).

Sent through a channel with raw-bytes serializers, as a hostile or broken client would.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from tests.engine.clients import create_game, error_reason, status_code, stub

from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.servicer import EngineServicer

SERVICE = "/rollingheights.engine.v1.EngineService/"
GARBAGE = b"\xff\xff\xff\xff"  # a field number past protobuf's limit: never parses
TRUNCATED = b"\x0a\x05abc"  # a string field of 5 bytes with 3 present


def _raw(channel: grpc.Channel, kind: str, path: str) -> Any:
    def identity(data: bytes) -> bytes:
        return data

    make = getattr(channel, kind)
    return make(path, request_serializer=identity, response_deserializer=identity)


@pytest.fixture
def channel(memory_server: str) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(memory_server) as opened:
        yield opened


@pytest.fixture
def error_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO)
    return caplog


def _answered(call: Any, payload: bytes) -> None:
    result = call(payload, timeout=10)
    if not isinstance(result, bytes):
        list(result)  # a server stream: its status comes with the first read


def _refused(call: Any, payload: bytes) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as raised:
        _answered(call, payload)
    return raised.value


@pytest.mark.parametrize("payload", [GARBAGE, TRUNCATED])
@pytest.mark.parametrize(
    "case",
    [
        ("ApplyAction", "unary_unary", "ApplyActionRequest"),
        ("GetGame", "unary_unary", "GetGameRequest"),
        ("StreamGameEvents", "unary_stream", "StreamGameEventsRequest"),
    ],
)
def test_a_request_that_does_not_parse_is_refused_naming_its_type(
    channel: grpc.Channel,
    error_log: pytest.LogCaptureFixture,
    payload: bytes,
    case: tuple[str, str, str],
) -> None:
    method, kind, message_type = case
    err = _refused(_raw(channel, kind, SERVICE + method), payload)
    assert status_code(err) == grpc.StatusCode.INVALID_ARGUMENT
    assert error_reason(err) == "MALFORMED_REQUEST"
    details = getattr(err, "details")()  # noqa: B009 (RpcError is also a Call)
    assert f"rollingheights.engine.v1.{message_type}" in details
    assert not [r for r in error_log.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize("good_before", [0, 1, 3])
def test_a_stream_message_that_does_not_parse_ends_the_stream_as_malformed(
    channel: grpc.Channel, error_log: pytest.LogCaptureFixture, good_before: int
) -> None:
    """The first message (grpc.aio's read) or a later one (the batched exchange's)."""
    ping = pb.ApplyActionsRequest(ping=True).SerializeToString()
    call = _raw(channel, "stream_stream", SERVICE + "ApplyActions")
    answers: list[bytes] = []

    def read_all() -> None:
        answers.extend(call(iter([ping] * good_before + [GARBAGE]), timeout=10))

    with pytest.raises(grpc.RpcError) as raised:
        read_all()
    assert len(answers) == good_before
    assert status_code(raised.value) == grpc.StatusCode.INVALID_ARGUMENT
    assert error_reason(raised.value) == "MALFORMED_REQUEST"
    assert not [r for r in error_log.records if r.levelno >= logging.ERROR]


def test_a_malformed_request_changes_nothing(memory_server: str, channel: grpc.Channel) -> None:
    engine = stub(memory_server)
    game = create_game(engine, players=2).game
    before = engine.GetGame(pb.GetGameRequest(game_id=game.game_id)).game.sequence
    apply = _raw(channel, "unary_unary", SERVICE + "ApplyAction")
    # A well-formed request for this game with its last bytes cut off.
    request = pb.ApplyActionRequest(game_id=game.game_id, seat_token="t" * 40).SerializeToString()
    _refused(apply, request[:-5])
    after = engine.GetGame(pb.GetGameRequest(game_id=game.game_id)).game.sequence
    assert after == before


HEALTH = "/grpc.health.v1.Health/"
REFLECTION = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"


def test_every_other_served_method_still_answers_well_formed_requests(
    channel: grpc.Channel,
) -> None:
    """The interceptor wraps health's Check (unary), Watch (a coroutine that writes its
    own answers) and reflection (a bidirectional async generator) as well."""
    check = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    assert check.status == health_pb2.HealthCheckResponse.SERVING
    watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(), timeout=10)
    assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
    watch.cancel()
    reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
    asked = reflection_pb2.ServerReflectionRequest(list_services="")
    (answer,) = list(reflection.ServerReflectionInfo(iter([asked]), timeout=10))
    names = {s.name for s in answer.list_services_response.service}
    assert "rollingheights.engine.v1.EngineService" in names


@pytest.mark.parametrize(
    ("path", "kind"), [(HEALTH + "Watch", "unary_stream"), (REFLECTION, "stream_stream")]
)
def test_other_services_refuse_malformed_requests_too(
    channel: grpc.Channel, error_log: pytest.LogCaptureFixture, path: str, kind: str
) -> None:
    call = _raw(channel, kind, path)
    payload: Any = GARBAGE if kind == "unary_stream" else iter([GARBAGE])
    with pytest.raises(grpc.RpcError) as raised:
        list(call(payload, timeout=10))
    assert error_reason(raised.value) == "MALFORMED_REQUEST"
    assert not [r for r in error_log.records if r.levelno >= logging.ERROR]


def test_a_parse_error_of_the_service_itself_is_not_blamed_on_the_client(
    channel: grpc.Channel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the request's own parse is MALFORMED_REQUEST: a DecodeError the service
    raises while answering is its own failure."""

    async def failing(*_: object) -> object:
        raise DecodeError("the service's own parse failed")

    monkeypatch.setattr(EngineServicer, "_stream_answer", failing)
    ping = pb.ApplyActionsRequest(ping=True).SerializeToString()
    call = _raw(channel, "stream_stream", SERVICE + "ApplyActions")
    with pytest.raises(grpc.RpcError) as raised:
        list(call(iter([ping]), timeout=10))
    assert status_code(raised.value) == grpc.StatusCode.UNKNOWN
