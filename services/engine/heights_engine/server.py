"""The gRPC server: EngineService plus health checking and reflection, until SIGTERM.

On SIGTERM (or SIGINT) health turns NOT_SERVING, the server stops taking calls and
gives the ones in flight `shutdown_grace_seconds` to finish, then the store closes.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import secrets
import signal
import sys
from urllib.parse import urlsplit

from grpc import aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from redis.exceptions import RedisError

from heights_engine import method_lookup
from heights_engine.auth import OperatorCheck, write_token_file
from heights_engine.collector import PauseLog, settle_gc
from heights_engine.games import Games
from heights_engine.metrics import MetricsInterceptor, serve_metrics
from heights_engine.proto import engine_service_pb2, engine_service_pb2_grpc
from heights_engine.redis_store import RedisStore
from heights_engine.servicer import EngineServicer
from heights_engine.settings import Settings, SettingsError
from heights_engine.store import GameStore, MemoryStore
from heights_logs import JsonFormatter

log = logging.getLogger("heights_engine")
SERVICE_NAME = engine_service_pb2.DESCRIPTOR.services_by_name["EngineService"].full_name


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)


def make_store(settings: Settings) -> GameStore:
    if settings.redis_url:
        return RedisStore(
            settings.redis_url,
            prefix=settings.redis_prefix,
            max_games=settings.max_games,
            game_ttl=settings.game_ttl_seconds,
            finished_ttl=settings.finished_ttl_seconds,
        )
    return MemoryStore(
        max_games=settings.max_games,
        game_ttl=settings.game_ttl_seconds,
        finished_ttl=settings.finished_ttl_seconds,
    )


def server_options(settings: Settings) -> list[tuple[str, int]]:
    return [
        ("grpc.max_receive_message_length", settings.max_message_bytes),
        ("grpc.max_send_message_length", settings.max_message_bytes),
        ("grpc.keepalive_time_ms", settings.keepalive_time_ms),
        ("grpc.keepalive_timeout_ms", settings.keepalive_timeout_ms),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
        ("grpc.http2.max_pings_without_data", 0),
        # gRPC shares a port with any other process by default: a second replica started
        # on a taken port would take half its connections, with games it does not have.
        ("grpc.so_reuseport", 0),
    ]


async def build_server(
    settings: Settings, store: GameStore
) -> tuple[aio.Server, health.aio.HealthServicer, int]:
    """A started server and its health servicer, and the port it listens on."""
    secret = settings.token_secret.encode()
    if not secret:
        secret = secrets.token_bytes(32)
        if settings.redis_url:
            log.warning(
                "HEIGHTS_ENGINE_TOKEN_SECRET is not set: a retried CreateGame that reaches "
                "another replica cannot give the seat tokens back"
            )
    games = Games(store, cache_size=settings.cache_size, token_secret=secret)
    operator = settings.operator_token or secrets.token_urlsafe(32)
    # Before any call: grpcio's own look-up leaves a reference cycle on every call.
    method_lookup.install()
    server = aio.server(interceptors=[MetricsInterceptor()], options=server_options(settings))
    engine_service_pb2_grpc.add_EngineServiceServicer_to_server(
        EngineServicer(games, max_streams=settings.max_streams, operator=OperatorCheck(operator)),
        server,
    )
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        [SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME], server
    )
    try:
        port = server.add_insecure_port(settings.address)
    except RuntimeError:  # gRPC says only "Failed to bind"
        raise SettingsError(
            f"cannot listen on {settings.address}: the port is taken or the address is not here"
        ) from None
    if not settings.operator_token:
        path = write_token_file(operator, port, settings.operator_token_file)
        log.warning(
            "HEIGHTS_ENGINE_OPERATOR_TOKEN is not set: generated an operator token for this "
            "process, written to %s (clients that create or delete games need it)",
            path,
        )
    await server.start()
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server, health_servicer, port


def redis_where(url: str) -> str:
    """Where a Redis URL points, without its password: host:port/db, or a socket path."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return parts.path
    return f"{parts.hostname}:{parts.port or 6379}{parts.path}"


async def serve(settings: Settings) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully."""
    store = make_store(settings)
    if isinstance(store, RedisStore):
        where = redis_where(settings.redis_url)
        try:
            await store.ping()
        except RedisError as err:
            await store.close()
            raise SettingsError(f"cannot reach Redis at {where}: {err}") from None
        log.info("game store: Redis at %s, key prefix %r", where, settings.redis_prefix)
    else:
        log.warning(
            "game store: in memory (HEIGHTS_ENGINE_REDIS_URL is not set): games live only "
            "in this process and are lost when it stops; do not run more than one replica"
        )
    serve_metrics(settings.metrics_port, settings.metrics_address)
    server, health_servicer, port = await build_server(settings, store)
    settle_gc(settings.gc_threshold_values)
    pauses = PauseLog()
    pauses.install()
    log.info(
        "collector: thresholds %s, %d start-up objects frozen",
        ",".join(str(t) for t in gc.get_threshold()),
        gc.get_freeze_count(),
        extra={"gc_thresholds": list(gc.get_threshold())},
    )
    host = settings.address.rsplit(":", 1)[0]
    log.info("EngineService listening on %s:%d", host, port, extra={"port": port})
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting down: finishing calls in flight")
    await health_servicer.enter_graceful_shutdown()
    await server.stop(settings.shutdown_grace_seconds)
    await store.close()
    pauses.remove()
    log.info("collector while serving: %s", pauses.describe(), extra={"gc": pauses.summary()})
    log.info("stopped")
