"""The shared game store in Redis: any replica can serve any game.

Keys (all under the configured prefix): `game:<id>:record` (the record's JSON),
`game:<id>:log` (a list of action ids: the replay), `request:<request id>` (game id of
an idempotent create) and `live` (a sorted set of unfinished games by expiry time).
Creating and appending are Lua scripts, so each is atomic: an append happens only if the
log still has the expected length, and a refused one changes nothing. Every append is
published on `game:<id>:steps` so streams on any replica wake up.

Appends, log reads and record reads (every ApplyAction and every catch-up) go through
one pipelined connection per replica (`RedisPipe`): the commands of every call that
arrives while a round trip is in flight travel together in the next one. Each is still
its own atomic script with its own expected length, and each call returns only once
Redis has answered its own command. The rest (create, delete, streams) uses redis-py.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import ssl
from collections import deque
from collections.abc import Awaitable, Coroutine, Sequence
from typing import Any, cast
from urllib.parse import urlsplit

import hiredis
from redis.asyncio import Redis
from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from heights_engine import metrics
from heights_engine.errors import Code, EngineError, not_found, stale
from heights_engine.store import GameRecord

log = logging.getLogger("heights_engine")

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

# KEYS: record, log. ARGV: start. Returns the log from `start` on, or nil (no such game).
_READ = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return redis.call('LRANGE', KEYS[2], tonumber(ARGV[1]), -1)
"""


class Script:
    """A Lua script run by its SHA-1, loaded into Redis when Redis does not know it."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()


def _pack(*command: Any) -> bytes:
    packed: bytes = hiredis.pack_command(command)  # typeshed's stub takes 1-tuples only
    return packed


def _reply_error(reply: hiredis.ReplyError) -> ResponseError:
    message = str(reply)
    return NoScriptError(message) if message.startswith("NOSCRIPT") else ResponseError(message)


class _Pipelined(asyncio.Protocol):
    """One Redis connection, one batch in flight: what is sent meanwhile waits for it.

    Commands queued while a batch is unanswered go out together (one write) once its
    last reply has arrived; a command sent while none is in flight goes out at once, in
    its caller's turn of the event loop. (Until 2026-11-26 it waited for the loop's next
    turn to gather the others of the same turn: an extra turn, an epoll call, for every
    call that came alone; under load the batch in flight gathers them.) Replies come
    back in order, so each resolves the oldest waiting future. A lost connection,
    or a batch unanswered for `timeout` seconds, fails every command not yet answered.

    The timeout is kept by one watchdog timer, not a timer a batch: arming and
    cancelling a `call_later` for every round trip (a handle, a heap push, and the
    loop's sweeps of the cancelled ones) took 0.38 s of the 1.54 s that sending and
    answering batches took in a server's cProfile (redis-1 at 800 calls/s; the write
    itself 0.70 s). The watchdog fires at the deadline of the batch in
    flight when it was armed; a later batch has a later deadline, so it re-arms for
    that one, and it stops when nothing is in flight.
    """

    def __init__(self, timeout: float, traffic: metrics.RedisTraffic) -> None:
        self._timeout = timeout
        self._traffic = traffic  # its batcher's, over all its connections
        self._reader = hiredis.Reader()
        self._loop = asyncio.get_running_loop()  # made by the loop's create_connection
        self._transport: asyncio.Transport | None = None
        # The commands waiting for the next batch, and their callers' futures.
        self._queue: list[bytes] = []
        self._queued: list[asyncio.Future[Any]] = []
        self._waiting: deque[asyncio.Future[Any]] = deque()
        self._sent_at = 0.0  # loop time the batch in flight went out
        self._watchdog: asyncio.TimerHandle | None = None
        self.lost = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)

    def send(self, packed: bytes) -> asyncio.Future[Any]:
        """The future reply to one packed command."""
        if self.lost:
            raise RedisConnectionError("the connection to Redis was lost")
        future: asyncio.Future[Any] = self._loop.create_future()
        self._queue.append(packed)
        self._queued.append(future)
        if not self._waiting:
            self._flush()
        return future

    def _flush(self) -> None:
        if self.lost or self._waiting or not self._queue or self._transport is None:
            return
        batch, futures = self._queue, self._queued
        self._queue, self._queued = [], []
        self._waiting.extend(futures)
        self._transport.write(batch[0] if len(batch) == 1 else b"".join(batch))
        self._sent_at = self._loop.time()
        if self._watchdog is None:
            self._watchdog = self._loop.call_at(self._sent_at + self._timeout, self._watch)
        self._traffic.round_trips += 1
        self._traffic.commands += len(batch)

    def _watch(self) -> None:
        """The watchdog: fail the batch in flight past its deadline, else wait for it."""
        self._watchdog = None
        if self.lost or not self._waiting:
            return
        deadline = self._sent_at + self._timeout
        if self._loop.time() >= deadline:
            self._timed_out()
        else:  # a later batch than the one it was armed for
            self._watchdog = self._loop.call_at(deadline, self._watch)

    def data_received(self, data: bytes) -> None:
        try:
            self._reader.feed(data)
            while (reply := self._reader.gets()) is not False:
                future = self._waiting.popleft()
                if future.done():  # its caller was cancelled
                    continue
                if isinstance(reply, hiredis.ReplyError):
                    future.set_exception(_reply_error(reply))
                else:
                    future.set_result(reply)
        except (hiredis.ProtocolError, IndexError) as err:  # garbage, or a reply unasked for
            self._fail(RedisConnectionError(f"Redis protocol error: {err}"))
            return
        if not self._waiting:
            self._flush()

    def _timed_out(self) -> None:
        self._fail(RedisTimeoutError(f"Redis did not answer within {self._timeout:g} s"))

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RedisConnectionError(f"the connection to Redis was lost: {exc or 'closed'}"))

    def _fail(self, err: RedisError) -> None:
        self.lost = True
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        pending = [*self._waiting, *self._queued]
        self._waiting.clear()
        self._queue.clear()
        self._queued.clear()
        for future in pending:
            if not future.done():
                future.set_exception(type(err)(*err.args))
        if self._transport is not None:
            self._transport.abort()

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


class RedisPipe:
    """The store's hot path to Redis: one pipelined connection, opened again when lost.

    Appends and log reads of concurrent calls share round trips (see `_Pipelined`);
    each command is still its own (scripts are atomic) and each caller gets its own
    reply or error. redis-py's errors are raised, so callers see one kind either way.
    """

    def __init__(self, url: str, *, timeout: float) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("redis", "rediss", "unix"):
            raise ValueError(f"not a Redis URL: {url!r}")
        self._params = parse_url(url)
        self._tls = parts.scheme == "rediss"
        self._timeout = timeout
        self._protocol: _Pipelined | None = None
        self._connecting: asyncio.Lock | None = None
        self.traffic = metrics.REDIS_TRAFFIC.batcher()  # what it sent, over every connection

    async def call(self, *command: Any) -> Any:
        """Redis's reply to `command`, raised if it is an error."""
        protocol = self._protocol
        if protocol is None or protocol.lost:
            protocol = await self._connect()
        return await protocol.send(_pack(*command))

    async def script(self, script: Script, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        evalsha = self.call("EVALSHA", script.sha, len(keys), *keys, *args)
        return await self._script_reply(evalsha, script, keys, args)

    def script_sent(
        self, script: Script, keys: Sequence[Any], args: Sequence[Any]
    ) -> Awaitable[Any]:
        """`script`'s reply, its command written now when the connection is up (else
        once awaited, after connecting): what the caller does meanwhile overlaps the
        round trip. Await it, always: its reply or error is the caller's."""
        protocol = self._protocol
        if protocol is None or protocol.lost:
            return self.script(script, keys, args)
        sent = protocol.send(_pack("EVALSHA", script.sha, len(keys), *keys, *args))
        return self._script_reply(sent, script, keys, args)

    async def _script_reply(
        self,
        sent: Awaitable[Any],
        script: Script,
        keys: Sequence[Any],
        args: Sequence[Any],
    ) -> Any:
        try:
            return await sent
        except NoScriptError:  # Redis restarted or flushed: the script did not run
            await self.call("SCRIPT", "LOAD", script.source)
            return await self.call("EVALSHA", script.sha, len(keys), *keys, *args)

    async def _connect(self) -> _Pipelined:
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:  # one connection attempt at a time
            if self._protocol is not None and not self._protocol.lost:
                return self._protocol
            self._protocol = None
            protocol = await self._open()
            try:
                password, username = self._params.get("password"), self._params.get("username")
                if password:
                    auth = ("AUTH", username, password) if username else ("AUTH", password)
                    await protocol.send(_pack(*auth))
                if self._params.get("db"):
                    await protocol.send(_pack("SELECT", self._params["db"]))
            except BaseException:
                protocol.close()
                raise
            self._protocol = protocol
            return protocol

    async def _open(self) -> _Pipelined:
        loop = asyncio.get_running_loop()
        params = self._params
        try:
            async with asyncio.timeout(self._timeout):
                if "path" in params:
                    _, protocol = await loop.create_unix_connection(
                        lambda: _Pipelined(self._timeout, self.traffic), params["path"]
                    )
                else:
                    _, protocol = await loop.create_connection(
                        lambda: _Pipelined(self._timeout, self.traffic),
                        params.get("host", "localhost"),
                        params.get("port", 6379),
                        ssl=ssl.create_default_context() if self._tls else None,
                    )
        except (OSError, TimeoutError) as err:
            raise RedisConnectionError(f"cannot connect to Redis: {err}") from err
        return protocol

    def close(self) -> None:
        if self._protocol is not None:
            self._protocol.close()
            self._protocol = None


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
        self._pipe = RedisPipe(url, timeout=5)
        self._append = Script(_APPEND)
        self._read = Script(_READ)

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
        raw = await self._pipe.call("GET", self._key(game_id, "record"))
        if raw is None:
            raise not_found(game_id)
        return GameRecord.from_json(raw)

    async def actions(self, game_id: str, start: int = 0) -> list[int]:
        keys = [self._key(game_id, "record"), self._key(game_id, "log")]
        items = await self._pipe.script(self._read, keys, [start])
        if items is None:
            raise not_found(game_id)
        return [int(a) for a in items]

    def append(
        self, game_id: str, expected: int, actions: list[int], finished: bool
    ) -> Coroutine[Any, Any, int]:
        """`GameStore.append`, its command written to Redis in this call when connected:
        the caller works on while it travels and awaits the result (`Games.apply`)."""
        keys = [
            self._key(game_id, "record"),
            self._key(game_id, "log"),
            f"{self._prefix}:live",
            self._key(game_id, "steps"),
        ]
        ttl = self._finished_ttl if finished else self._game_ttl
        args: list[Any] = [expected, ttl, int(finished), game_id, *actions]
        return self._appended(self._pipe.script_sent(self._append, keys, args), game_id, expected)

    @staticmethod
    async def _appended(reply: Awaitable[Any], game_id: str, expected: int) -> int:
        result = int(await reply)
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
        self._pipe.close()
        await self._redis.aclose()
        traffic = self._pipe.traffic
        log.info(
            "Redis: %d commands in %d round trips",
            traffic.commands,
            traffic.round_trips,
            extra={"redis_commands": traffic.commands, "redis_round_trips": traffic.round_trips},
        )
