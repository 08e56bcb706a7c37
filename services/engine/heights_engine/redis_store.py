"""The shared game store in Redis: any replica can serve any game.

Keys (all under the configured prefix): `game:<id>:record` (the record's JSON),
`game:<id>:log` (a list of action ids: the replay), `request:<request id>` (game id of
an idempotent create) and `live` (a sorted set of unfinished games by expiry time).
Creating and appending are Lua scripts, so each is atomic: an append happens only if the
log still has the expected length, and a refused one changes nothing. Every append is
published on `game:<id>:steps` so streams on any replica wake up.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from redis.asyncio import Redis

from heights_engine.errors import Code, EngineError, not_found, stale
from heights_engine.store import GameRecord

# KEYS: record, log, request, live. ARGV: record json, game id, max games, ttl, finished,
# request ttl, actions... Returns {0, game id} (created) or {1, game id} (existed), or
# {-1} when too many games are in progress.
_CREATE = """
local existing = redis.call('GET', KEYS[3])
if existing then return {1, existing} end
local now = tonumber(redis.call('TIME')[1])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[3]) then return {-1, ''} end
local ttl = tonumber(ARGV[4])
redis.call('SET', KEYS[1], ARGV[1], 'EX', ttl)
if #ARGV > 6 then
  redis.call('RPUSH', KEYS[2], unpack(ARGV, 7))
  redis.call('EXPIRE', KEYS[2], ttl)
end
if ARGV[5] == '0' then redis.call('ZADD', KEYS[4], now + ttl, ARGV[2]) end
redis.call('SET', KEYS[3], ARGV[2], 'EX', tonumber(ARGV[6]))
return {0, ARGV[2]}
"""

# KEYS: record, log, live, channel. ARGV: expected length, ttl, finished, game id,
# actions... Returns the new length, -1 (no such game) or -2 - length (stale).
_APPEND = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local n = redis.call('LLEN', KEYS[2])
if n ~= tonumber(ARGV[1]) then return -2 - n end
n = redis.call('RPUSH', KEYS[2], unpack(ARGV, 5))
local ttl = tonumber(ARGV[2])
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
if ARGV[3] == '1' then
  redis.call('ZREM', KEYS[3], ARGV[4])
else
  redis.call('ZADD', KEYS[3], tonumber(redis.call('TIME')[1]) + ttl, ARGV[4])
end
redis.call('PUBLISH', KEYS[4], n)
return n
"""


class RedisStore:
    """Games in Redis, shared by every replica."""

    name = "redis"

    def __init__(
        self,
        url: str,
        *,
        prefix: str,
        max_games: int,
        game_ttl: int,
        finished_ttl: int,
    ) -> None:
        self._redis: Redis = Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
        self._prefix = prefix
        self._max_games = max_games
        self._game_ttl = game_ttl
        self._finished_ttl = finished_ttl
        self._create = self._redis.register_script(_CREATE)
        self._append = self._redis.register_script(_APPEND)

    def _key(self, game_id: str, part: str) -> str:
        return f"{self._prefix}:game:{game_id}:{part}"

    async def ping(self) -> None:
        await self._redis.ping()

    async def create(self, record: GameRecord, actions: list[int], finished: bool) -> GameRecord:
        ttl = self._finished_ttl if finished else self._game_ttl
        keys = [
            self._key(record.game_id, "record"),
            self._key(record.game_id, "log"),
            f"{self._prefix}:request:{record.request_id}",
            f"{self._prefix}:live",
        ]
        args: list[Any] = [record.to_json(), record.game_id, self._max_games, ttl]
        args += [int(finished), self._game_ttl, *actions]
        status, game_id = cast(list[Any], await self._create(keys=keys, args=args))
        if status == -1:
            raise EngineError(
                Code.RESOURCE_EXHAUSTED,
                "TOO_MANY_GAMES",
                f"{self._max_games} games are in progress",
            )
        if status == 1:
            return await self.load(game_id.decode())
        return record

    async def load(self, game_id: str) -> GameRecord:
        raw = await self._redis.get(self._key(game_id, "record"))
        if raw is None:
            raise not_found(game_id)
        return GameRecord.from_json(raw)

    async def actions(self, game_id: str, start: int = 0) -> list[int]:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.exists(self._key(game_id, "record"))
            pipe.lrange(self._key(game_id, "log"), start, -1)
            exists, items = await pipe.execute()
        if not exists:
            raise not_found(game_id)
        return [int(a) for a in items]

    async def append(self, game_id: str, expected: int, actions: list[int], finished: bool) -> int:
        keys = [
            self._key(game_id, "record"),
            self._key(game_id, "log"),
            f"{self._prefix}:live",
            self._key(game_id, "steps"),
        ]
        ttl = self._finished_ttl if finished else self._game_ttl
        args: list[Any] = [expected, ttl, int(finished), game_id, *actions]
        result = int(cast(int, await self._append(keys=keys, args=args)))
        if result == -1:
            raise not_found(game_id)
        if result < -1:
            raise stale(expected, -2 - result)
        return result

    async def wait(self, game_id: str, sequence: int, timeout: float) -> None:
        async with self._redis.pubsub() as pubsub:
            await pubsub.subscribe(self._key(game_id, "steps"))
            # Subscribed first, then checked: an append in between is not missed.
            if await self._redis.llen(self._key(game_id, "log")) > sequence:
                return
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            while (left := deadline - loop.time()) > 0:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=left)
                if message is not None:
                    return

    async def delete(self, game_id: str) -> bool:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(self._key(game_id, "record"), self._key(game_id, "log"))
            pipe.zrem(f"{self._prefix}:live", game_id)
            deleted, _ = await pipe.execute()
        return bool(deleted)

    async def close(self) -> None:
        await self._redis.aclose()
