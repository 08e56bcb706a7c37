"""Engine-service fixtures: real servers on 127.0.0.1 and a real Redis.

`memory_server` runs the service in this process (a thread with its own event loop)
over the in-memory store; `replicas` starts real `python -m heights_engine` processes
sharing a Redis key prefix of their own. Clients (`SeatClient`) hold one seat's token
and see only what that seat may see.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis
from tests.engine.clients import OPERATOR_TOKEN, free_port, wait_healthy
from tests.real_redis import TEST_REDIS_URL

from heights_engine.server import build_server, make_store
from heights_engine.settings import Settings


class InProcessServer:
    """The service in a background thread; the test talks to it over TCP."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.store = make_store(settings)
        future = asyncio.run_coroutine_threadsafe(build_server(settings, self.store), self.loop)
        self.server, _, port = future.result(timeout=20)
        self.address = f"127.0.0.1:{port}"

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(1), self.loop).result(timeout=10)
        asyncio.run_coroutine_threadsafe(self.store.close(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


@pytest.fixture
def server_factory() -> Iterator[Callable[..., InProcessServer]]:
    servers: list[InProcessServer] = []

    def start(**overrides: Any) -> InProcessServer:
        settings = Settings(
            address="127.0.0.1:0", **({"operator_token": OPERATOR_TOKEN} | overrides)
        )
        servers.append(InProcessServer(settings))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def memory_server(server_factory: Callable[..., InProcessServer]) -> str:
    return server_factory().address


# --------------------------------------------------------------------------- Redis
@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """The Redis at 127.0.0.1:6379, or a private redis-server, or skip."""
    url = TEST_REDIS_URL
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
        yield url
        return
    except redis.RedisError:
        pass
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("no Redis at 127.0.0.1:6379 and no redis-server to start")
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(100):
        try:
            redis.Redis.from_url(url).ping()
            break
        except redis.RedisError:
            time.sleep(0.05)
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def redis_prefix(redis_url: str) -> Iterator[str]:
    """A key prefix of this test's own; its keys are deleted afterwards."""
    prefix = f"heights-test:{uuid.uuid4().hex[:12]}"
    yield prefix
    client = redis.Redis.from_url(redis_url)
    keys = list(client.scan_iter(f"{prefix}:*"))
    if keys:
        client.delete(*keys)


@dataclass
class Replica:
    """A `python -m heights_engine` process."""

    address: str
    proc: subprocess.Popen[bytes]
    log_path: str

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=timeout)

    def log(self) -> str:
        with open(self.log_path) as f:
            return f.read()


@dataclass
class Replicas:
    redis_url: str
    prefix: str
    tmp: str
    started: list[Replica] = field(default_factory=list)

    def start(self, *, redis: bool = True, **env: str) -> Replica:
        port = free_port()
        environ = {k: v for k, v in os.environ.items() if not k.startswith("HEIGHTS_ENGINE_")}
        environ.update(
            HEIGHTS_ENGINE_ADDRESS=f"127.0.0.1:{port}",
            HEIGHTS_ENGINE_REDIS_URL=self.redis_url if redis else "",
            HEIGHTS_ENGINE_REDIS_PREFIX=self.prefix,
            HEIGHTS_ENGINE_TOKEN_SECRET="test-secret",
            HEIGHTS_ENGINE_OPERATOR_TOKEN=OPERATOR_TOKEN,
            HEIGHTS_ENGINE_SHUTDOWN_GRACE_SECONDS="10",
        )
        environ.update(env)
        log_path = os.path.join(self.tmp, f"replica-{port}.log")
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "heights_engine"], env=environ, stderr=log, stdout=log
            )
        replica = Replica(f"127.0.0.1:{port}", proc, log_path)
        self.started.append(replica)
        try:
            wait_healthy(replica.address, alive=lambda: proc.poll() is None)
        except AssertionError:
            raise AssertionError(f"replica did not start:\n{replica.log()}") from None
        return replica


@pytest.fixture
def replicas(redis_url: str, redis_prefix: str, tmp_path: Any) -> Iterator[Replicas]:
    group = Replicas(redis_url, redis_prefix, str(tmp_path))
    yield group
    for replica in group.started:
        if replica.proc.poll() is None:
            replica.proc.kill()
            replica.proc.wait(timeout=10)
