"""Django's Redis cache with one redis-py client per connection pool, not one per call.

Django's `RedisCacheClient.get_client` builds a new `redis.Redis` around its pool for
every cache operation, and redis-py 8's constructor fills a table of some 170 response
callbacks each time: under cProfile a third of a cached match list's CPU (4.8 of 21.5 s
over 1,000 requests) went to those constructors, four a request at least (the two
throttles' counters, read and written, on every API request). A client holds no
connection of its own (its pool hands one out per command and is safe across threads),
so building it once per pool changes nothing else. Each thread already has its own
cache backend (Django's `caches` is per thread), hence its own clients.

`RedisCache.script_run` runs a Lua script (EVALSHA): several reads and writes in one
round trip, as the API's throttles check theirs (common/throttles.py).
"""

from __future__ import annotations

from typing import Any, cast

from django.core.cache.backends import redis as django_redis


class RedisCacheClient(django_redis.RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}
        self._scripts: dict[str, Any] = {}  # by source: redis-py's Script, its sha1 computed

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        # Django's own attributes, which its type stubs do not declare.
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        client = self._clients.get(id(pool))  # pools live as long as this object
        if client is None:
            client = self._client(connection_pool=pool)  # type: ignore[attr-defined]
            self._clients[id(pool)] = client
        return client

    def script_run(self, source: str, keys: list[str], args: list[Any]) -> Any:
        """A Lua script run on the primary (EVALSHA, loaded on first use)."""
        client = self.get_client(write=True)
        script = self._scripts.get(source)
        if script is None:
            script = self._scripts[source] = client.register_script(source)
        return script(keys=keys, args=args, client=client)


class RedisCache(django_redis.RedisCache):
    """`django.core.cache.backends.redis.RedisCache` with `RedisCacheClient` above."""

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = RedisCacheClient

    def script_run(self, source: str, keys: list[str], args: list[Any]) -> Any:
        """A Lua script run atomically by Redis on these keys (made with `make_key`) and
        arguments: several reads and writes in one round trip (common/throttles.py)."""
        client = cast(RedisCacheClient, self._cache)
        return client.script_run(source, keys, args)
