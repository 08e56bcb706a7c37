"""The platform's Redis cache backend (common/redis_cache.py): Django's, with one redis-py
client per connection pool instead of one built for every operation. Against the real
Redis of the tests (HEIGHTS_TEST_REDIS_URL), under a key prefix of its own."""

from __future__ import annotations

import os
import threading
from typing import Any

import pytest
import redis
from tests.real_redis import TEST_REDIS_URL

from heights_platform.common.redis_cache import RedisCache


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


def test_operations_share_one_client(redis_backend: RedisCache, clients_built: list[int]) -> None:
    redis_backend.set("a", b"bytes of a page", 60)
    redis_backend.set("b", 41, 60)
    assert redis_backend.get("a") == b"bytes of a page"
    assert redis_backend.incr("b") == 42
    assert redis_backend.get("missing", "default") == "default"
    redis_backend.delete("a")
    assert redis_backend.get("a") is None
    assert len(clients_built) == 1  # Django's own backend builds one per operation: 7


def test_threads_share_the_client_safely(redis_backend: RedisCache) -> None:
    failures: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(50):
                redis_backend.set("page", f"{n}:{i}".encode(), 60)
                assert redis_backend.get("page") is not None
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
    os.environ["HEIGHTS_PLATFORM_REDIS_URL"] = TEST_REDIS_URL
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
