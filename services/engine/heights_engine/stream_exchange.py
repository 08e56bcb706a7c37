"""A request-answer stream served one message at a time, each answer and the next request
in one gRPC batch.

grpc.aio's stream API (an async generator, or `context.write` then `context.read`) gives
every message of the engine's ApplyActions stream two operations of gRPC core: the
answer's send, then the next request's receive. Each completes on grpc.aio's poller
thread, which hands it to the event loop through a wake-up socket: a thread hand-off, a
socket write and read, and a turn of the loop (often a sleep and a wake) apiece. The
stream answers one request and then waits for the next, so both can be one batch, as
gRPC core allows and the runner's own client does (heights_runner/caller_stream.py): one
completion a message instead of two: 22.7 -> 15.1 system calls a ping, and A B
alternated on a loaded machine, ~20 us less engine CPU a ping and ~50 us a relayed
decision on the memory store (on Redis not resolved from the noise; docs/runner.md, "A
relayed decision over a ping on the same stream").

It reaches under grpc.aio's public API (grpc_core.py): `cygrpc.execute_batch`, its
operations, and the call's state (`RPCState`), which the servicer context holds where
Python cannot name it and which is found among the context's referents. The first
answer goes through `context.write`, which sends the initial metadata with it and
records that it did (a second send of them would fail the call's last batch). Where
this grpcio lacks any of it, `StreamExchange` keeps the public `read`/`write` API:
slower, never wrong.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from grpc import aio

from heights_engine import grpc_core
from heights_engine.grpc_core import NO_FLAGS, builds_messages

# The layer as this module sees it: the tests replace it here, grpc's own code keeps it.
cygrpc: Any = grpc_core.cygrpc

log = logging.getLogger("heights_engine")

Req = TypeVar("Req")
_BATCH_REFUSED = False  # set once this grpcio's execute_batch refused the shape used here


class _Answer(Protocol):
    def SerializeToString(self) -> bytes: ...  # noqa: N802 (protobuf's name)


class StreamExchange(Generic[Req]):
    """One stream's requests in, its answers out, in turn: `first`, then `answer`."""

    def __init__(self, context: aio.ServicerContext[Any, Any], parse: Callable[[bytes], Req]):
        self._context = context
        self._parse = parse
        self._call: Any = None  # the call's RPCState once the first answer is out
        self._loop: Any = None
        self._public = False  # whether this grpcio leaves only read and write

    async def first(self) -> Req | None:
        """The stream's first request, or None when the client ended it."""
        return await self._read()

    async def answer(self, answer: _Answer) -> Req | None:
        """Send `answer` and wait for the next request (None: the client ended the
        stream, or the call is over)."""
        if self._call is None:
            await self._context.write(answer)
            if not self._public:
                self._call, self._loop = _call_state(self._context)
                self._public = self._call is None
            return await self._read()
        if self._context.done():
            # What grpc.aio's write checks first (`raise_for_termination`): no operation
            # on a call that is over.
            return None
        receive = cygrpc.ReceiveMessageOperation(NO_FLAGS)
        send = cygrpc.SendMessageOperation(answer.SerializeToString(), NO_FLAGS)
        try:
            await cygrpc.execute_batch(self._call, (send, receive), self._loop)
        except (TypeError, AttributeError) as err:
            # A grpcio whose execute_batch takes other arguments: refused before any
            # operation started, so the answer goes out the public way, and every
            # stream after this one keeps the public API.
            _batch_refused(err)
            self._call, self._public = None, True
            await self._context.write(answer)
            return await self._read()
        except cygrpc.ExecuteBatchError:
            # The call ended under the batch (cancelled, or the client went away): the
            # stream's end, as grpc.aio reads a receive that failed.
            return None
        raw: bytes | None = receive.message()
        return None if raw is None else self._parse(raw)

    async def _read(self) -> Req | None:
        message = await self._context.read()
        if message is aio.EOF:
            return None
        request: Req = message
        return request


def _batch_refused(err: Exception) -> None:
    global _BATCH_REFUSED  # noqa: PLW0603 (one fact for the process: this grpcio's shape)
    if not _BATCH_REFUSED:
        log.warning(
            "ApplyActions streams use grpc.aio's read and write: this grpcio's "
            "execute_batch refused a batch (%s)",
            err,
        )
    _BATCH_REFUSED = True


def _call_state(context: aio.ServicerContext[Any, Any]) -> tuple[Any, Any]:
    """The call's RPCState and event loop, or (None, None) where this grpcio has no way
    to reach them (the exchange then keeps the public API)."""
    if _BATCH_REFUSED or not usable() or not isinstance(context, cygrpc._ServicerContext):
        return None, None
    found = [o for o in gc.get_referents(context) if isinstance(o, cygrpc.RPCState)]
    if len(found) != 1:
        return None, None
    return found[0], asyncio.get_running_loop()


@functools.cache
def usable() -> bool:
    """Whether this grpcio has what one batch a message needs, of the shape used here:
    built once, never sent. Another grpcio then costs speed, not answers."""
    needed = ("execute_batch", "ExecuteBatchError", "RPCState", "_ServicerContext")
    if cygrpc is None or not all(hasattr(cygrpc, name) for name in needed):
        log.warning(
            "ApplyActions streams use grpc.aio's read and write: this grpcio lacks %s",
            ", ".join(n for n in needed if cygrpc is None or not hasattr(cygrpc, n)),
        )
        return False
    if not builds_messages(cygrpc):
        log.warning(
            "ApplyActions streams use grpc.aio's read and write: this grpcio's "
            "batch operations have another shape"
        )
        return False
    return True
