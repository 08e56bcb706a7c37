"""A bidirectional gRPC stream driven in the caller's own thread, one message at a time.

gRPC's sync API runs a stream-stream call on two threads of its own: one reads the
request iterator, one (the channel's spin thread) takes the completion queue's events
and wakes the waiting threads. Each message then crosses threads four or five times
(futex hand-offs, and the GIL each time), which on the runner's path cost more than
the rest of a relayed decision: with the engine's ApplyActions stream, pings 0.7 ms
apart (as a bot's thinking spaces the runner's messages), 300-311 us of client CPU a
ping against 117-157 us this way, 16 voluntary context switches against 5
(docs/runner.md, "The runner's share, round 3").

This stream is the one gRPC's own single-threaded unary-stream calls
(`grpc.experimental.ChannelOptions.SingleThreadedUnaryStream`) are built on: a
"segregated" call with a completion queue of its own, on which the caller sends a
message and waits for the answer in one batch, so the only hand-off left is gRPC
core's I/O thread waking the caller. It reaches under grpc's public API (the channel's
core object, the operations of `grpc._cython.cygrpc`: heights_engine.grpc_core);
`open_caller_stream` gives None where those are missing (another grpcio), and the
caller keeps gRPC's threaded stream.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import grpc

from heights_engine import grpc_core
from heights_engine.grpc_core import NO_FLAGS, builds_messages

# The layer as this module sees it: the tests replace it here, grpc's own code keeps it.
cygrpc: Any = grpc_core.cygrpc

_STATUS_CODES = {code.value[0]: code for code in grpc.StatusCode}
_MESSAGE, _STATUS, _OTHER = "message", "status", None
# Events a cancelled call may still owe (its status, its initial metadata, the
# half-close): all are taken so that its completion queue is freed. The count is a bound
# on how many are taken; the wait for each is bounded by the call's deadline (the
# cancel makes the core deliver them at once).
_CLOSE_EVENTS = 8


class StreamEndedError(grpc.RpcError):
    """The status that ended a caller-driven stream, read as a `grpc.Call` would be."""

    def __init__(self, code: grpc.StatusCode, details: str, trailing: Any) -> None:
        super().__init__(f"{code.name}: {details}")
        self._code = code
        self._details = details
        self._trailing = trailing

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> Any:
        return self._trailing


class CallerStream:
    """One stream-stream call; `call` sends a message and returns the next one."""

    def __init__(self, core_channel: Any, method: str, handle: int, timeout: float) -> None:
        operations = (
            ((cygrpc.SendInitialMetadataOperation((), NO_FLAGS),), _OTHER),
            ((cygrpc.ReceiveStatusOnClientOperation(NO_FLAGS),), _STATUS),
            ((cygrpc.ReceiveInitialMetadataOperation(NO_FLAGS),), _OTHER),
        )
        self._call = core_channel.segregated_call(
            cygrpc.PropagationConstants.GRPC_PROPAGATE_DEFAULTS,
            method.encode(),
            None,
            time.time() + timeout,
            None,
            None,
            operations,
            cygrpc.build_census_context(),
            handle,
        )
        self._pending = len(operations)  # batches started whose events are owed
        self._status: Any = None  # the ReceiveStatusOnClient operation, once it came
        self._closed = False

    def _operate(self, operations: tuple[Any, ...], tag: str | None) -> None:
        if self._call.operate(operations, tag):  # False: the call has ended, no event
            self._pending += 1

    def _next_event(self) -> Any:
        event = self._call.next_event()
        self._pending -= 1
        if event.tag == _STATUS:
            self._status = event.batch_operations[0]
        return event

    def call(self, payload: bytes) -> bytes | None:
        """The next message after sending `payload`; None when the stream ended OK
        without one; StreamEndedError (a grpc.RpcError) for any other end."""
        if self._status is None:
            send, receive = (
                cygrpc.SendMessageOperation(payload, NO_FLAGS),
                cygrpc.ReceiveMessageOperation(NO_FLAGS),
            )
            self._operate((send, receive), _MESSAGE)
            while self._pending:
                event = self._next_event()
                if event.tag == _MESSAGE:
                    message = _received(event)
                    if message is not None:
                        return message
                    break  # no answer: the call has ended, and its status is owed
        while self._status is None and self._pending:
            self._next_event()
        self._raise_unless_ok()
        return None

    def _raise_unless_ok(self) -> None:
        if self._status is None:  # never expected: a call ends with its status
            raise StreamEndedError(grpc.StatusCode.UNKNOWN, "the stream ended without a status", ())
        code = _STATUS_CODES.get(self._status.code(), grpc.StatusCode.UNKNOWN)
        if code == grpc.StatusCode.OK:
            return
        details = self._status.details()
        text = details.decode("utf-8", "replace") if isinstance(details, bytes) else details
        raise StreamEndedError(code, text or "", self._status.trailing_metadata())

    def close(self) -> None:
        """Half-close, cancel (a no-op on an ended call) and take the call's last events,
        so its completion queue is released. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._status is None:
            self._operate((cygrpc.SendCloseFromClientOperation(NO_FLAGS),), _OTHER)
        self._call.cancel(cygrpc.StatusCode.cancelled, "closed by the runner")
        for _ in range(_CLOSE_EVENTS):
            if not self._pending:
                break
            self._next_event()


def _received(event: Any) -> bytes | None:
    for operation in event.batch_operations:
        if operation.type() == cygrpc.OperationType.receive_message:
            message: bytes | None = operation.message()
            return message
    return None


def open_caller_stream(chan: grpc.Channel, method: str, timeout: float) -> CallerStream | None:
    """A caller-driven stream of `method` on `chan`, or None where this grpcio lacks
    what it needs (then use gRPC's threaded stream)."""
    core = getattr(chan, "_channel", None)
    register = getattr(chan, "_get_registered_call_handle", None)
    if not _usable() or core is None or register is None:
        return None
    if not hasattr(core, "segregated_call"):
        return None
    try:
        return CallerStream(core, method, register(method), timeout)
    except TypeError:  # another grpcio's signatures: the threaded stream, which is public
        return None


@functools.cache
def _usable() -> bool:
    """Whether this grpcio's operations take the arguments used here: built once, never
    sent. A grpcio whose internals changed shape then costs speed, not matches."""
    if not builds_messages(cygrpc):
        return False
    try:
        cygrpc.SendCloseFromClientOperation(NO_FLAGS)
        cygrpc.SendInitialMetadataOperation((), NO_FLAGS)
        cygrpc.ReceiveStatusOnClientOperation(NO_FLAGS)
        cygrpc.ReceiveInitialMetadataOperation(NO_FLAGS)
        _ = (cygrpc.OperationType.receive_message, cygrpc.StatusCode.cancelled)
    except (AttributeError, TypeError):
        return False
    return True
