"""deploy/healthcheck.py, run as the containers run it, against real servers."""

from __future__ import annotations

import http.server
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from tests.deploy.deployfiles import DEPLOY

SCRIPT = DEPLOY / "healthcheck.py"


def run(*args: str, **env: str) -> int:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("HEIGHTS_")}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        env={**environ, **env},
        capture_output=True,
        timeout=30,
        check=False,
    )
    return done.returncode


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.fixture
def health_server() -> Iterator[tuple[int, health.HealthServicer]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield port, servicer
    finally:
        server.stop(grace=None).wait()


def test_grpc_serving_is_healthy(health_server: tuple[int, health.HealthServicer]) -> None:
    port, servicer = health_server
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    assert run("grpc", f"127.0.0.1:{port}") == 0
    # without an address: the port of HEIGHTS_ENGINE_ADDRESS, on 127.0.0.1
    assert run("grpc", HEIGHTS_ENGINE_ADDRESS=f"0.0.0.0:{port}") == 0


def test_grpc_not_serving_or_absent_is_unhealthy(
    health_server: tuple[int, health.HealthServicer],
) -> None:
    port, servicer = health_server
    servicer.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    assert run("grpc", f"127.0.0.1:{port}") == 1
    assert run("grpc", f"127.0.0.1:{free_port()}") == 1


class _AllowedHostHandler(http.server.BaseHTTPRequestHandler):
    """Answers like Django with ALLOWED_HOSTS=localhost: 400 for any other Host."""

    def do_GET(self) -> None:
        ok = self.headers.get("Host") == "localhost" and self.path == "/healthz"
        self.send_response(200 if ok else 400)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def http_port() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _AllowedHostHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_http_needs_2xx_and_sends_the_host_header(http_port: int) -> None:
    url = f"http://127.0.0.1:{http_port}/healthz"
    assert run("http", url, "localhost") == 0
    assert run("http", url) == 1  # Host: 127.0.0.1:port is not allowed
    assert run("http", f"http://127.0.0.1:{http_port}/nope", "localhost") == 1
    assert run("http", f"http://127.0.0.1:{free_port()}/healthz", "localhost") == 1


@pytest.fixture
def redis_with_password() -> Iterator[int]:
    binary = shutil.which("redis-server")
    assert binary is not None, "redis-server is needed (the machine's Redis package)"
    port = free_port()
    process = subprocess.Popen(
        [
            *(binary, "--port", str(port), "--bind", "127.0.0.1"),
            *("--requirepass", "s3cret-pw", "--save", "", "--appendonly", "no"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_broker_answers_ping_with_the_password(redis_with_password: int) -> None:
    port = redis_with_password
    good = f"redis://:s3cret-pw@127.0.0.1:{port}/1"
    assert run("broker", "HEIGHTS_RUNNER_BROKER_URL", HEIGHTS_RUNNER_BROKER_URL=good) == 0
    bad = f"redis://:wrong@127.0.0.1:{port}/1"
    assert run("broker", "HEIGHTS_RUNNER_BROKER_URL", HEIGHTS_RUNNER_BROKER_URL=bad) == 1
    none = f"redis://127.0.0.1:{port}/1"
    assert run("broker", "HEIGHTS_RUNNER_BROKER_URL", HEIGHTS_RUNNER_BROKER_URL=none) == 1


def test_broker_unset_or_unreachable_is_unhealthy() -> None:
    assert run("broker", "HEIGHTS_RUNNER_BROKER_URL") == 1
    down = f"redis://127.0.0.1:{free_port()}/0"
    assert run("broker", "HEIGHTS_RUNNER_BROKER_URL", HEIGHTS_RUNNER_BROKER_URL=down) == 1
    file_broker = "file:///var/lib/heights/broker"
    assert run("broker", "HEIGHTS_RUNNER_BROKER_URL", HEIGHTS_RUNNER_BROKER_URL=file_broker) == 1


def test_a_wrong_call_is_a_usage_error() -> None:
    assert run() == 2
    assert run("tcp", "127.0.0.1:1") == 2
