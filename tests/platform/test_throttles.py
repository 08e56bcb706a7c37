"""The API's default throttle (common/throttles.py): DRF's anonymous and user rates, both
checked in one round trip. Through the API on the tests' cache (local memory), and its
Redis script against the real Redis of the tests (HEIGHTS_TEST_REDIS_URL, a key prefix of
its own): the same verdicts and waits as DRF's own classes on the same request times,
the rate held under concurrent requests, and one command a request."""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Callable
from typing import Any

import pytest
import redis
from django.contrib.auth.models import User
from django.core.cache.backends.locmem import LocMemCache
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory
from rest_framework.throttling import SimpleRateThrottle
from tests.real_redis import TEST_REDIS_URL

from heights_platform.common.redis_cache import RedisCache
from heights_platform.common.throttles import (
    ClientRateThrottle,
    Verdict,
    Window,
    windows_check,
)


@pytest.fixture
def rates(monkeypatch: pytest.MonkeyPatch) -> Callable[[str, str], None]:
    def set_rates(anon: str, user: str) -> None:
        table = {**SimpleRateThrottle.THROTTLE_RATES, "anon": anon, "user": user}
        monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", table)

    return set_rates


def test_anonymous_readers_are_held_to_the_anon_rate(
    api: APIClient, rates: Callable[[str, str], None]
) -> None:
    rates("3/min", "100/min")
    for _ in range(3):
        assert api.get("/api/v1/ladders/").status_code == 200
    refused = api.get("/api/v1/ladders/")
    assert refused.status_code == 429
    body = refused.json()
    assert body["code"] == "throttled"
    assert 0 < body["details"]["retry_after_seconds"] <= 60
    # Another address has a window of its own.
    assert api.get("/api/v1/ladders/", REMOTE_ADDR="10.9.8.7").status_code == 200


def test_anonymous_readers_are_held_to_the_user_rate_too(
    api: APIClient, rates: Callable[[str, str], None]
) -> None:
    rates("100/min", "2/min")  # DRF's UserRateThrottle keys anonymous readers by address
    for _ in range(2):
        assert api.get("/api/v1/ladders/").status_code == 200
    assert api.get("/api/v1/ladders/").status_code == 429


def test_signed_in_readers_are_held_to_the_user_rate_only(
    make_user: Callable[..., User],
    client_for: Callable[[User], APIClient],
    rates: Callable[[str, str], None],
) -> None:
    rates("1/min", "3/min")
    client = client_for(make_user())
    for _ in range(3):
        assert client.get("/api/v1/ladders/").status_code == 200
    assert client.get("/api/v1/ladders/").status_code == 429
    other = client_for(make_user())  # the same address, another user
    assert other.get("/api/v1/ladders/").status_code == 200


def _drf_verdicts(times: list[float], limit: int, seconds: int) -> list[tuple[bool, float | None]]:
    """DRF's own SimpleRateThrottle at these times: allowed, and its wait when refused."""
    store = LocMemCache(f"drf-{uuid.uuid4().hex}", {})

    class Reference(SimpleRateThrottle):
        cache = store
        rate = f"{limit}/{'s' if seconds == 1 else 'm'}"

        def get_cache_key(self, request: Any, view: Any) -> str:
            return "reference"

    found: list[tuple[bool, float | None]] = []
    for now in times:
        throttle = Reference()
        throttle.timer = lambda now=now: now
        allowed = throttle.allow_request(None, None)  # type: ignore[arg-type]
        found.append((allowed, None if allowed else throttle.wait()))
    return found


def _ours(
    times: list[float], limit: int, seconds: int, cache: Any
) -> list[tuple[bool, float | None]]:
    window = Window(f"ours-{uuid.uuid4().hex}", limit, seconds)
    found: list[tuple[bool, float | None]] = []
    for now in times:
        (verdict,) = windows_check([window], now, cache)
        found.append((verdict.allowed, None if verdict.allowed else verdict.wait(window, now)))
    return found


def _request_times(rng: random.Random, count: int, seconds: int) -> list[float]:
    """Bursts and pauses, times rounded to ticks so that some fall exactly on a window's
    edge (DRF drops a time at `now - seconds` itself)."""
    now, times = 1_700_000_000.0, []
    for _ in range(count):
        now += rng.choice((0.0, 0.25, 0.5, 1.0, seconds / 2, float(seconds), seconds * 1.5))
        times.append(now)
    return times


@pytest.mark.parametrize(("limit", "seconds"), [(1, 1), (3, 1), (5, 60), (0, 60)])
def test_the_verdicts_and_waits_are_drfs_on_both_caches(
    redis_backend: RedisCache, limit: int, seconds: int
) -> None:
    rng = random.Random(limit * 100 + seconds)
    for _ in range(5):
        times = _request_times(rng, 60, seconds)
        expected = _drf_verdicts(times, limit, seconds)
        assert any(allowed for allowed, _ in expected) == (limit > 0)
        assert _ours(times, limit, seconds, LocMemCache(uuid.uuid4().hex, {})) == expected
        assert _ours(times, limit, seconds, redis_backend) == expected


def test_windows_are_checked_apart_in_one_call(redis_backend: RedisCache) -> None:
    tight, loose = Window("tight", 1, 60), Window("loose", 10, 60)
    now = 1_700_000_000.0
    assert windows_check([tight, loose], now, redis_backend) == [
        Verdict(True, 0, None),
        Verdict(True, 0, None),
    ]
    # Refused by one, the request still counts in the other (as DRF's two classes do).
    assert windows_check([tight, loose], now + 1, redis_backend) == [
        Verdict(False, 1, now),
        Verdict(True, 1, now),
    ]
    assert windows_check([loose], now + 2, redis_backend) == [Verdict(True, 2, now)]


def test_concurrent_requests_get_exactly_the_rate(redis_backend: RedisCache) -> None:
    """Eight threads at once against a limit of 25: a read-then-write history (DRF's) lets
    requests through on top of the limit when two read the same list; the script none."""
    window = Window(f"busy-{uuid.uuid4().hex}", 25, 60)
    allowed: list[bool] = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def work() -> None:
        start.wait()
        for i in range(20):
            (verdict,) = windows_check([window], 1_700_000_000.0 + i / 1000, redis_backend)
            with lock:
                allowed.append(verdict.allowed)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(allowed) == 160
    assert sum(allowed) == 25


def test_a_request_is_one_command_to_redis(
    redis_backend: RedisCache,
    rates: Callable[[str, str], None],
    monkeypatch: pytest.MonkeyPatch,
    settings: Any,
) -> None:
    rates("5/min", "7/min")
    sent: list[str] = []
    original = redis.Redis.execute_command

    def counting(self: redis.Redis, *args: Any, **kwargs: Any) -> Any:
        sent.append(str(args[0]))
        return original(self, *args, **kwargs)  # type: ignore[no-untyped-call]

    monkeypatch.setattr(redis.Redis, "execute_command", counting)
    # The configured cache, as the settings name it when HEIGHTS_PLATFORM_REDIS_URL is set.
    backend = {"BACKEND": "heights_platform.common.redis_cache.RedisCache"}
    location = {"LOCATION": TEST_REDIS_URL, "KEY_PREFIX": redis_backend.key_prefix}
    settings.CACHES = {"default": {**backend, **location}}
    throttle = ClientRateThrottle()
    answers = []
    for _ in range(7):
        drf_request = Request(APIRequestFactory().get("/api/v1/ladders/"))
        answers.append(throttle.allow_request(drf_request, None))
    assert answers == [True] * 5 + [False] * 2  # the anon rate, the tighter one here
    assert sent.count("EVALSHA") + sent.count("EVAL") == 7
    assert [c for c in sent if c not in ("EVALSHA", "EVAL", "SCRIPT LOAD")] == []
    wait = throttle.wait()
    assert wait is not None
    assert 0 < wait <= 60
