"""The API's request rates per client, both checked in one round trip to the cache.

The defaults (`DEFAULT_THROTTLE_CLASSES`) were DRF's `AnonRateThrottle` and
`UserRateThrottle`: each reads a client's history (a pickled list of its request times
in the last period) from the cache and writes it back, four round trips to Redis on
every API request, with a list as long as the rate allows (600 times at "600/min")
unpickled and pickled again each time. `ClientRateThrottle` applies the same two rates
under the same cache keys as those two classes name them (`throttle_anon_<ip>`,
`throttle_user_<id or ip>`), with DRF's meaning exactly: a sliding window of the last
`duration` seconds, a request refused when `num_requests` were allowed within it, a
refused request not counted, and DRF's suggested wait, the longest of the refusing
rates'. With the Redis cache, one Lua script checks and records both windows atomically
(`WINDOWS_SCRIPT`): one round trip, a few bytes each way, and no lost update between two
workers that read a history at once. With any other cache (the embedded default, each
process's memory) the windows are read and written as DRF does.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from rest_framework.request import Request
from rest_framework.throttling import (
    AnonRateThrottle,
    BaseThrottle,
    UserRateThrottle,
)

from heights_platform.common.redis_cache import RedisCache

# A window's request times as a Redis list, newest first (DRF's order), stored under the
# cache's own key for the window with this suffix: a different type from the pickled list
# DRF's classes keep, so a worker of either kind never reads the other's value.
REDIS_SUFFIX = ":times"

# KEYS: the windows' lists. ARGV: now, then each window's limit and seconds. For each
# window, as DRF's `allow_request`: drop the times at or before now - seconds from the
# old end; refuse when `limit` remain, else record now and keep the list `seconds`.
# Returns, per window, allowed (1/0), the count of times kept before this request, and
# the oldest of them ("" for none): what DRF's `wait` reads.
WINDOWS_SCRIPT = """
local now = tonumber(ARGV[1])
local out = {}
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[2 * i])
  local seconds = tonumber(ARGV[2 * i + 1])
  local oldest = redis.call('LINDEX', key, -1)
  while oldest and tonumber(oldest) <= now - seconds do
    redis.call('RPOP', key)
    oldest = redis.call('LINDEX', key, -1)
  end
  local count = redis.call('LLEN', key)
  if count >= limit then
    out[#out + 1] = 0
  else
    redis.call('LPUSH', key, ARGV[1])
    redis.call('EXPIRE', key, seconds)
    out[#out + 1] = 1
  end
  out[#out + 1] = count
  out[#out + 1] = oldest or ''
end
return out
"""


@dataclass(frozen=True, slots=True)
class Window:
    """One rate applied to one client: at most `limit` requests in any `seconds`."""

    key: str
    limit: int
    seconds: int


@dataclass(frozen=True, slots=True)
class Verdict:
    """A window's answer: whether the request was allowed (and so recorded), and the
    times it held before it: how many, and the oldest (None if none)."""

    allowed: bool
    count: int
    oldest: float | None

    def wait(self, window: Window, now: float) -> float | None:
        """DRF's `SimpleRateThrottle.wait`: the period's rest, shared among the requests
        still to come in it; None when the window holds more than its limit."""
        remaining = window.seconds - (now - self.oldest) if self.oldest is not None else None
        available = window.limit - self.count + 1
        if available <= 0:
            return None
        return (window.seconds if remaining is None else remaining) / float(available)


def windows_check(windows: Sequence[Window], now: float, cache: Any = None) -> list[Verdict]:
    """Each window checked, and the request recorded in those that allow it, in `cache`
    (by default the configured one: the backend itself, as `django.core.cache.cache` is
    a proxy to it, which no `isinstance` would recognise)."""
    cache = caches[DEFAULT_CACHE_ALIAS] if cache is None else cache
    if not windows:
        return []
    if isinstance(cache, RedisCache):
        return _redis_check(cache, windows, now)
    return [_history_check(cache, window, now) for window in windows]


def _redis_check(cache: RedisCache, windows: Sequence[Window], now: float) -> list[Verdict]:
    keys = [cache.make_and_validate_key(w.key) + REDIS_SUFFIX for w in windows]
    args: list[Any] = [repr(now)]  # repr: the float exactly, as Lua's tonumber reads it
    for window in windows:
        args += [window.limit, window.seconds]
    found = cache.script_run(WINDOWS_SCRIPT, keys, args)
    verdicts = []
    for i in range(len(windows)):
        allowed, count, oldest = found[3 * i : 3 * i + 3]
        verdicts.append(Verdict(bool(allowed), int(count), float(oldest) if oldest else None))
    return verdicts


def _history_check(cache: Any, window: Window, now: float) -> Verdict:
    """DRF's `allow_request` on any cache: the history read, trimmed and written back."""
    history: list[float] = cache.get(window.key, [])
    while history and history[-1] <= now - window.seconds:
        history.pop()
    count, oldest = len(history), (history[-1] if history else None)
    if count >= window.limit:
        return Verdict(False, count, oldest)
    history.insert(0, now)
    cache.set(window.key, history, window.seconds)
    return Verdict(True, count, oldest)


class ClientRateThrottle(BaseThrottle):
    """DRF's `AnonRateThrottle` and `UserRateThrottle` together, in one round trip: their
    rates ("anon", "user"), keys and idents, read from them at each request."""

    timer = staticmethod(time.time)  # DRF's clock (`SimpleRateThrottle.timer`)

    def __init__(self) -> None:
        self._refused: list[tuple[Verdict, Window]] = []
        self._now = 0.0

    def allow_request(self, request: Request, view: Any) -> bool:
        windows = []
        for rate in (AnonRateThrottle(), UserRateThrottle()):
            limit, seconds = rate.parse_rate(rate.rate)  # (None, None) when unset: no limit
            if limit is None or seconds is None:
                continue
            key = rate.get_cache_key(request, view)
            if key is not None:
                windows.append(Window(key, limit, seconds))
        self._now = self.timer()
        verdicts = windows_check(windows, self._now)
        self._refused = [(v, w) for v, w in zip(verdicts, windows, strict=True) if not v.allowed]
        return not self._refused

    def wait(self) -> float | None:
        """The longest wait of the refusing rates, as DRF's `check_throttles` takes it."""
        waits = [v.wait(w, self._now) for v, w in self._refused]
        return max((w for w in waits if w is not None), default=None)
