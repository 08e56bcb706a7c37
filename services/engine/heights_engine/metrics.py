"""Prometheus metrics of the service, served on their own HTTP port.

Calls, latencies and errors are counted by an interceptor per RPC method and status
code, labels from fixed sets (a served method's name, else `other`; a gRPC code); the
game authority counts cache hits and misses and reports the live games it holds.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, TypeVar

import grpc
from google.protobuf.message import DecodeError
from grpc import aio
from prometheus_client import REGISTRY, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import CounterMetricFamily
from prometheus_client.metrics_core import Metric

from heights_engine.malformed import MalformedRequestError, marked, parsed, refuse_malformed

_Req = TypeVar("_Req")
OTHER = "other"  # the method label of every call to a method the server does not serve
_Resp = TypeVar("_Resp")

CALLS = Counter("heights_engine_calls_total", "RPCs handled", ["method", "code"])
LATENCY = Histogram(
    "heights_engine_call_seconds",
    "RPC latency (streams: until the stream ends)",
    ["method"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60),
)
ERRORS = Counter("heights_engine_errors_total", "RPCs refused, by status code", ["method", "code"])
LIVE_GAMES = Gauge("heights_engine_live_games", "game states held in this replica's cache")
CACHE = Counter("heights_engine_cache_total", "game state look-ups", ["result"])
ACTIONS = Counter("heights_engine_actions_total", "actions appended", ["kind"])

# The children counted on every call, looked up once.
UNKNOWN_CALLS = CALLS.labels(OTHER, "UNIMPLEMENTED")
CACHE_HIT, CACHE_MISS = CACHE.labels("hit"), CACHE.labels("miss")
DECISIONS, CHANCE_STEPS = ACTIONS.labels("decision"), ACTIONS.labels("chance")
FORCED_DECISIONS = ACTIONS.labels("forced")  # played by the engine (ApplyAction play_forced)


class RedisTraffic:
    """What one Redis batcher (a store's `RedisPipe`, over all its connections) sent:
    plain counts, kept once and read both by its store's log line at exit and, summed
    over the process's batchers, by the two counters a scrape exports (`RedisTotals`).

    Added to at every round trip. Two prometheus_client Counters took ~7,500 instructions
    a round trip between them (their `inc`: checks, a lock; callgrind, 1,500 calls of
    two replicas over Redis, ~2,600 round trips); two integer additions next to none.
    A replica's one event loop adds; a scrape (the HTTP server's thread) reads ints.
    """

    __slots__ = ("commands", "round_trips")

    def __init__(self) -> None:
        self.round_trips = 0
        self.commands = 0


class RedisTotals:
    """Every Redis batcher's traffic in this process, exported as two counters when
    scraped. A server has one batcher; several servers in one process, as some tests
    run them, have one each and are summed. A batcher's counts stay after its store
    closes (a counter never goes down): one small record for each store ever opened."""

    def __init__(self) -> None:
        self._batchers: list[RedisTraffic] = []
        # OpenMetrics' `_created`, which prometheus_client's Counter exports.
        self.created = time.time()

    def batcher(self) -> RedisTraffic:
        """A new batcher's counts, counted in the totals from now on."""
        traffic = RedisTraffic()
        self._batchers.append(traffic)
        return traffic

    def collect(self) -> Iterator[Metric]:
        batchers = tuple(self._batchers)  # one batcher may join while a scrape reads
        yield CounterMetricFamily(
            "heights_engine_redis_round_trips",
            "pipelines sent to Redis by the batcher",
            value=sum(b.round_trips for b in batchers),
            created=self.created,
        )
        yield CounterMetricFamily(
            "heights_engine_redis_commands",
            "commands sent to Redis by the batcher",
            value=sum(b.commands for b in batchers),
            created=self.created,
        )


REDIS_TRAFFIC = RedisTotals()
REGISTRY.register(REDIS_TRAFFIC)


def serve_metrics(port: int, address: str) -> None:
    """Start the /metrics endpoint in a background thread (port 0: do nothing)."""
    if port:
        start_http_server(port, addr=address)


class MetricsInterceptor(aio.ServerInterceptor):
    """Counts every unary call by method and final status code, and times it; every
    method's requests are parsed where a malformed one is refused (malformed.py).

    A method's handler never changes once the server runs, so each is wrapped once and
    kept: a call costs a dictionary look-up here, not a new handler and closure.
    """

    def __init__(self) -> None:
        self._handlers: dict[str, grpc.RpcMethodHandler[Any, Any] | None] = {}

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[_Req, _Resp] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[_Req, _Resp] | None:
        path = str(handler_call_details.method)
        if path in self._handlers:
            return self._handlers[path]
        handler = await continuation(handler_call_details)
        if handler is None:
            # Not kept, and one label value for all: a client may ask any path at all,
            # and a label taken from it would grow the series without bound.
            UNKNOWN_CALLS.inc()
            return None
        method = path.rsplit("/", 1)[-1]
        wrapped: grpc.RpcMethodHandler[_Req, _Resp]
        if handler.unary_unary is not None:
            wrapped = _timed(handler, method)
        elif handler.unary_stream is not None:
            wrapped = _unary_stream(handler, method)
        else:
            wrapped = _streamed(handler, method)
        self._handlers[path] = wrapped  # only served methods: a fixed set
        return wrapped


def _timed(handler: grpc.RpcMethodHandler[_Req, _Resp], method: str) -> Any:
    inner: Any = handler.unary_unary  # an async function under grpc.aio
    parse = handler.request_deserializer
    latency = LATENCY.labels(method)
    calls: dict[str, Any] = {}

    async def timed(raw: bytes, context: Any) -> Any:
        start = time.perf_counter()
        try:
            request: Any = raw
            if parse is not None:
                try:  # inline, not `parsed`'s await: this runs on every call
                    request = parse(raw)
                except DecodeError as err:
                    await refuse_malformed(context, method, parse, err)
            return await inner(request, context)
        finally:
            code = context.code()
            name = code.name if isinstance(code, grpc.StatusCode) else "OK"
            counter = calls.get(name)
            if counter is None:
                counter = calls[name] = CALLS.labels(method, name)
            counter.inc()
            latency.observe(time.perf_counter() - start)
            if name != "OK":
                ERRORS.labels(method, name).inc()

    return grpc.unary_unary_rpc_method_handler(
        timed, request_deserializer=None, response_serializer=handler.response_serializer
    )


def _unary_stream(handler: grpc.RpcMethodHandler[_Req, _Resp], method: str) -> Any:
    """A server-streaming method whose request is parsed here: an async generator's
    answers passed on, or a coroutine that writes its own (grpc health's Watch)."""
    inner: Any = handler.unary_stream
    parse = handler.request_deserializer
    behaviour: Any
    if inspect.isasyncgenfunction(inner):

        async def generated(raw: bytes, context: Any) -> AsyncIterator[Any]:
            async for message in inner(await parsed(raw, parse, context, method), context):
                yield message

        behaviour = generated
    else:

        async def written(raw: bytes, context: Any) -> Any:
            return await inner(await parsed(raw, parse, context, method), context)

        behaviour = written
    return grpc.unary_stream_rpc_method_handler(
        behaviour, request_deserializer=None, response_serializer=handler.response_serializer
    )


def _streamed(handler: grpc.RpcMethodHandler[_Req, _Resp], method: str) -> Any:
    """A client-streaming method: its requests are parsed as it reads them, by a
    `marked` parser whose `MalformedRequestError` is refused here (the handler's own parses,
    such as StreamExchange's, are marked too)."""
    parse = handler.request_deserializer
    if parse is None:
        return handler
    if handler.stream_stream is not None:
        inner: Any = handler.stream_stream
        make: Any = grpc.stream_stream_rpc_method_handler
    else:
        inner, make = handler.stream_unary, grpc.stream_unary_rpc_method_handler
    behaviour: Any
    if inspect.isasyncgenfunction(inner):

        async def generated(requests: Any, context: Any) -> AsyncIterator[Any]:
            try:
                async for message in inner(requests, context):
                    yield message
            except MalformedRequestError as err:
                await refuse_malformed(context, method, err.parse, err.cause)

        behaviour = generated
    else:

        async def written(requests: Any, context: Any) -> Any:
            try:
                return await inner(requests, context)
            except MalformedRequestError as err:
                await refuse_malformed(context, method, err.parse, err.cause)

        behaviour = written
    return make(
        behaviour,
        request_deserializer=marked(parse),
        response_serializer=handler.response_serializer,
    )
