"""The platform's Redis cache backend (common/redis_cache.py): Django's, with one redis-py
client per connection pool instead of one built for every operation. Against the real
Redis of the tests (HEIGHTS_TEST_REDIS_URL), under a key prefix of its own."""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from heights_platform.common.redis_cache import RedisCache

REDIS_URL = os.environ.get("HEIGHTS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def backend() -> Iterator[RedisCache]:
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError:
        pytest.skip(f"no Redis at {REDIS_URL}")
    cache = RedisCache(REDIS_URL, {"KEY_PREFIX": f"test-{uuid.uuid4().hex}"})
    yield cache
    cache.delete_many(["a", "b", "page"])


@pytest.fixture
def clients_built(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many redis-py clients are constructed (one entry each)."""
    built: list[int] = []
    original = redis.Redis.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        built.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(redis.Redis, "__init__", counting)
    return built


def test_operations_share_one_client(backend: RedisCache, clients_built: list[int]) -> None:
    backend.set("a", b"bytes of a page", 60)
    backend.set("b", 41, 60)
    assert backend.get("a") == b"bytes of a page"
    assert backend.incr("b") == 42
    assert backend.get("missing", "default") == "default"
    backend.delete("a")
    assert backend.get("a") is None
    assert len(clients_built) == 1  # Django's own backend builds one per operation: 7


def test_threads_share_the_client_safely(backend: RedisCache) -> None:
    failures: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(50):
                backend.set("page", f"{n}:{i}".encode(), 60)
                assert backend.get("page") is not None
        except BaseException as err:  # reported below, in the test's thread
            failures.append(err)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_the_settings_use_it_when_redis_is_configured() -> None:
    import importlib

    import heights_platform.settings as settings_module

    previous = os.environ.get("HEIGHTS_PLATFORM_REDIS_URL")
    os.environ["HEIGHTS_PLATFORM_REDIS_URL"] = REDIS_URL
    try:
        reloaded = importlib.reload(settings_module)
        backend = reloaded.CACHES["default"]["BACKEND"]
    finally:
        if previous is None:
            del os.environ["HEIGHTS_PLATFORM_REDIS_URL"]
        else:
            os.environ["HEIGHTS_PLATFORM_REDIS_URL"] = previous
        importlib.reload(settings_module)
    assert backend == "heights_platform.common.redis_cache.RedisCache"
