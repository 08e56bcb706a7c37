"""grpc.aio's method look-up as the server installs it: no reference cycle a call."""

from __future__ import annotations

import gc
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY
from tests.engine.clients import create_game, status_code, stub

from heights_engine import method_lookup
from heights_engine.proto import engine_service_pb2 as pb

CALLS = 50


def lookups_left_to_the_collector(address: str) -> int:
    """How many of 2 x CALLS served calls left their look-up for the cyclic collector.

    A call's `_HandlerCallDetails` is only ever made by the server's method look-up, so
    counting them in what the collector found (DEBUG_SAVEALL keeps it) counts the calls
    that left a cycle, whatever the client in this process left.
    """
    health = health_pb2_grpc.HealthStub(grpc.insecure_channel(address))
    engine = stub(address)
    game_id = create_game(engine).game.game_id
    gc.collect()  # what came before is freed now, not saved below
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(CALLS):
            health.Check(health_pb2.HealthCheckRequest(), timeout=10)
            engine.GetGame(pb.GetGameRequest(game_id=game_id), timeout=10)
        time.sleep(0.2)  # the server's last call ends just after its reply
        gc.collect()
        return sum(1 for o in gc.garbage if type(o).__name__ == "_HandlerCallDetails")
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_served_calls_leave_no_cycle_with_the_installed_look_up(memory_server: str) -> None:
    assert method_lookup.installed()  # build_server put it in
    try:
        method_lookup.restore()
        assert lookups_left_to_the_collector(memory_server) >= 2 * CALLS - 2  # grpcio's own
    finally:
        assert method_lookup.install()
    assert lookups_left_to_the_collector(memory_server) == 0


def test_the_installed_look_up_finds_every_method_through_the_interceptor(
    memory_server: str,
) -> None:
    assert method_lookup.installed()
    engine = stub(memory_server)
    game_id = create_game(engine).game.game_id
    labels = {"method": "GetGame", "code": "OK"}
    before = REGISTRY.get_sample_value("heights_engine_calls_total", labels) or 0.0
    assert engine.GetGame(pb.GetGameRequest(game_id=game_id), timeout=10).game.game_id == game_id
    assert REGISTRY.get_sample_value("heights_engine_calls_total", labels) == before + 1
    channel = grpc.insecure_channel(memory_server)
    unknown: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
        "/no.Such/Method", request_serializer=None, response_deserializer=None
    )
    with pytest.raises(grpc.RpcError) as caught:
        unknown(b"", timeout=10)
    assert status_code(caught.value) == grpc.StatusCode.UNIMPLEMENTED


def test_another_grpcio_release_keeps_its_own_look_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """A private function may keep its name and change how it is called: only the release
    the replacement was written for gets it."""
    method_lookup.restore()
    try:
        monkeypatch.setattr(grpc, "__version__", "1.99.0")
        assert not method_lookup.install()
        assert not method_lookup.installed()
        monkeypatch.undo()
        assert method_lookup.install()
    finally:
        method_lookup.install()
