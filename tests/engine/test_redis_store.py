"""The Redis store's pipelined path: shared round trips, one answer per call, recovery.

Real Redis throughout: the shared one for what any test may do, a private
`redis-server` for what would disturb others (a password, a restart, a flushed script
cache). Nothing here is timed: how fast the batching is shows in the load test.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import redis
from prometheus_client import REGISTRY, Counter
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from tests.engine.clients import create_game, free_port, play_out, seat_clients, stub
from tests.engine.conftest import Replicas
from tests.engine.records import game_record

from heights_engine.errors import Code, EngineError
from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.redis_store import RedisPipe, RedisStore
from heights_rules import Replay
from heights_rules.replay import verify


class PrivateRedis:
    """A redis-server of this test's own on a free port, stopped and started at will."""

    def __init__(self, directory: Path, *args: str) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("no redis-server binary for a private Redis")
        self.port = free_port()
        self.command = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir"]
        self.command += [str(directory), "--save", "", "--appendonly", "no", *args]
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, password: str = "") -> None:
        self.proc = subprocess.Popen(self.command, stdout=subprocess.DEVNULL)
        client = redis.Redis(port=self.port, password=password or None)
        for _ in range(200):
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("the private redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.stop()


def _store(url: str, prefix: str) -> RedisStore:
    return RedisStore(url, prefix=prefix, max_games=1000, game_ttl=600, finished_ttl=600)


def test_concurrent_appends_share_round_trips_and_each_gets_its_own_answer(
    redis_url: str, redis_prefix: str
) -> None:
    async def scenario() -> None:
        store = _store(redis_url, redis_prefix)
        games = [f"game{i}" for i in range(20)]
        for game_id in games:
            await store.create(game_record(game_id), [], False)
        assert await store.actions(games[0]) == []  # connected
        protocol = store._pipe._protocol
        assert protocol is not None
        traffic = store._pipe.traffic
        before = traffic.round_trips
        sent = [store.append(g, 0, [i, i + 100], False) for i, g in enumerate(games)]
        assert await asyncio.gather(*sent) == [2] * len(games)
        assert protocol is store._pipe._protocol  # the same connection throughout
        assert traffic.round_trips - before < len(games)  # shared, not one each
        for i, game_id in enumerate(games):
            assert await store.actions(game_id) == [i, i + 100]
            assert await store.actions(game_id, 1) == [i + 100]
        await store.close()

    asyncio.run(scenario())


def _exported(name: str) -> float:
    return REGISTRY.get_sample_value(f"heights_engine_redis_{name}_total") or 0.0


def test_the_batchers_round_trips_are_exported_without_a_counter_each(
    redis_url: str, redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario() -> None:
        store = _store(redis_url, redis_prefix)
        games = [f"traffic{i}" for i in range(10)]
        for game_id in games:
            await store.create(game_record(game_id), [], False)
        assert await store.actions(games[0]) == []  # connected
        traffic = store._pipe.traffic  # the store's own counts, which its exit log reads
        trips, commands = traffic.round_trips, traffic.commands
        exported = _exported("round_trips"), _exported("commands")

        def refused(self: Counter, amount: float = 1) -> None:
            raise AssertionError("a Prometheus counter was added to on the hot path")

        # A Counter's inc takes its lock and checks at every round trip (metrics.RedisTraffic).
        with monkeypatch.context() as patched:
            patched.setattr(Counter, "inc", refused)
            sent = [store.append(g, 0, [i], False) for i, g in enumerate(games)]
            assert await asyncio.gather(*sent) == [1] * len(games)
            assert await store.actions(games[-1]) == [len(games) - 1]
        assert traffic.round_trips > trips
        assert _exported("round_trips") - exported[0] == traffic.round_trips - trips
        assert _exported("commands") - exported[1] == traffic.commands - commands == 11
        await store.close()

    asyncio.run(scenario())


def test_racers_in_one_round_trip_have_exactly_one_winner(
    redis_url: str, redis_prefix: str
) -> None:
    async def scenario() -> None:
        store = _store(redis_url, redis_prefix)
        await store.create(game_record("raced"), [7], False)
        racers = [store.append("raced", 1, [seat], False) for seat in range(10)]
        results = await asyncio.gather(*racers, return_exceptions=True)
        won = [r for r in results if r == 2]
        lost = [r for r in results if isinstance(r, EngineError)]
        assert len(won) == 1
        assert len(lost) == 9
        assert {e.code for e in lost} == {Code.ABORTED}
        log = await store.actions("raced")
        assert len(log) == 2
        assert log[0] == 7
        assert log[1] == results.index(2)  # the winner's action, and only it
        with pytest.raises(EngineError) as gone:
            await store.append("never-created", 0, [1], False)
        assert gone.value.code == Code.NOT_FOUND
        await store.close()

    asyncio.run(scenario())


def test_a_cancelled_caller_does_not_shift_the_others_answers(redis_url: str) -> None:
    async def scenario() -> None:
        pipe = RedisPipe(redis_url, timeout=5)
        await pipe.call("PING")
        calls = [asyncio.ensure_future(pipe.call("ECHO", f"call {i}")) for i in range(30)]
        await asyncio.sleep(0)
        calls[3].cancel()
        calls[17].cancel()
        for i, call in enumerate(calls):
            if i in (3, 17):
                with pytest.raises(asyncio.CancelledError):
                    await call
            else:
                assert await call == f"call {i}".encode()
        assert await pipe.call("ECHO", "after") == b"after"
        with pytest.raises(ResponseError):
            await pipe.call("NO-SUCH-COMMAND")
        assert await pipe.call("ECHO", "still fine") == b"still fine"
        pipe.close()

    asyncio.run(scenario())


def test_a_restarted_redis_is_reconnected_and_its_scripts_loaded_again(
    private_redis: PrivateRedis,
) -> None:
    url = f"redis://127.0.0.1:{private_redis.port}/0"

    async def scenario() -> None:
        store = _store(url, "restart")
        await store.create(game_record("g"), [], False)
        assert await store.append("g", 0, [1], False) == 1
        private_redis.stop()
        with pytest.raises(RedisError):  # answered UNAVAILABLE by the servicer
            await store.append("g", 1, [2], False)
        private_redis.start()  # empty: no game, no scripts
        for attempt in range(2):  # at most one call (each way) learns the old socket is gone
            try:
                await store.create(game_record("g"), [], False)
                assert await store.append("g", 0, [3], False) == 1
                break
            except RedisConnectionError:
                assert attempt == 0
        assert await store.actions("g") == [3]
        await store.close()

    asyncio.run(scenario())


def test_password_and_database_come_from_the_url(tmp_path: Path) -> None:
    server = PrivateRedis(tmp_path, "--requirepass", "s3cret")
    server.start(password="s3cret")
    try:

        async def scenario() -> None:
            pipe = RedisPipe(f"redis://:s3cret@127.0.0.1:{server.port}/3", timeout=5)
            assert await pipe.call("SET", "where", "db3") is not None
            pipe.close()
            wrong = RedisPipe(f"redis://:wrong@127.0.0.1:{server.port}/0", timeout=5)
            with pytest.raises(ResponseError):
                await wrong.call("PING")
            wrong.close()

        asyncio.run(scenario())
        client = redis.Redis(port=server.port, password="s3cret", db=3)
        assert client.get("where") == b"db3"
    finally:
        server.stop()


def test_a_redis_that_never_answers_times_out() -> None:
    async def scenario() -> None:
        async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                await reader.read()  # reads everything, answers nothing
            finally:
                writer.close()

        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        pipe = RedisPipe(f"redis://127.0.0.1:{port}/0", timeout=0.2)
        with pytest.raises(RedisTimeoutError):
            await pipe.call("PING")
        with pytest.raises(RedisTimeoutError):  # a new connection, the same silence
            await pipe.call("PING")
        pipe.close()
        server.close()
        await server.wait_closed()

    asyncio.run(scenario())


def test_a_batch_after_an_answered_one_times_out_at_its_own_deadline() -> None:
    """One watchdog keeps every batch's timeout: armed for the first batch, it must
    neither fail the second at the first's deadline nor forget it."""
    timeout = 0.3

    async def scenario() -> None:
        async def answers_once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                await reader.readuntil(b"PING\r\n")
                writer.write(b"+PONG\r\n")
                await reader.read()  # then silence
            finally:
                writer.close()

        server = await asyncio.start_server(answers_once, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        pipe = RedisPipe(f"redis://127.0.0.1:{port}/0", timeout=timeout)
        loop = asyncio.get_running_loop()
        assert await pipe.call("PING") == b"PONG"
        await asyncio.sleep(timeout * 2 / 3)  # the watchdog is still armed for the first
        sent = loop.time()
        async with asyncio.timeout(10 * timeout):  # never answered must still fail
            with pytest.raises(RedisTimeoutError):
                await pipe.call("PING")
        # Not at the first batch's deadline (a third of a timeout after this one went).
        assert loop.time() - sent >= timeout
        pipe.close()
        server.close()
        await server.wait_closed()

    asyncio.run(scenario())


def test_games_played_at_once_through_one_replica_verify(replicas: Replicas) -> None:
    engine = stub(replicas.start().address)

    def one_game(seed: int) -> str:
        created = create_game(engine, seed=seed)
        play_out(seat_clients(engine, created, seed=seed))
        return created.game.game_id

    with ThreadPoolExecutor(max_workers=6) as pool:
        game_ids = list(pool.map(one_game, range(40, 52)))
    for game_id in game_ids:
        blob = engine.GetReplay(pb.GetReplayRequest(game_id=game_id)).replay
        assert verify(Replay.from_bytes(blob)).ok


def test_appends_go_on_after_redis_forgot_its_scripts(private_redis: PrivateRedis) -> None:
    """A Redis restarted or flushed has no script: the append loads it and runs it once,
    on the connected path (the command written before it is awaited) as on the first."""

    async def scenario() -> None:
        store = _store(f"redis://127.0.0.1:{private_redis.port}/0", "noscript")
        await store.create(game_record("g"), [], False)
        assert await store.append("g", 0, [1], False) == 1
        redis.Redis(port=private_redis.port).script_flush()
        assert await store.append("g", 1, [2, 3], False) == 3
        assert await store.actions("g") == [1, 2, 3]
        await store.close()

    asyncio.run(scenario())


def test_the_batchers_counters_export_what_prometheus_counters_did() -> None:
    """Names, `_total` and OpenMetrics' `_created`, as the two Counters they replace."""
    for name in ("round_trips", "commands"):
        assert REGISTRY.get_sample_value(f"heights_engine_redis_{name}_total") is not None
        created = REGISTRY.get_sample_value(f"heights_engine_redis_{name}_created")
        assert created is not None
        assert created > 0
