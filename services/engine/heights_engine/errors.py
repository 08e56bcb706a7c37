"""The service's one error type, and its translation to gRPC statuses (the only place).

Domain code raises `EngineError(Code.X, REASON, message)`; the servicer turns it (and any
store failure) into a `google.rpc.Status` whose details hold an `ErrorInfo` with the
reason, so clients branch on `reason`, never on message text.
"""

from __future__ import annotations

from enum import Enum

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status
from redis.exceptions import RedisError

DOMAIN = "engine.rollingheights"


class Code(Enum):
    """The outcomes a request can be refused with (a subset of gRPC's codes)."""

    INVALID_ARGUMENT = code_pb2.INVALID_ARGUMENT
    FAILED_PRECONDITION = code_pb2.FAILED_PRECONDITION
    ABORTED = code_pb2.ABORTED
    NOT_FOUND = code_pb2.NOT_FOUND
    PERMISSION_DENIED = code_pb2.PERMISSION_DENIED
    UNAUTHENTICATED = code_pb2.UNAUTHENTICATED
    RESOURCE_EXHAUSTED = code_pb2.RESOURCE_EXHAUSTED
    UNAVAILABLE = code_pb2.UNAVAILABLE
    INTERNAL = code_pb2.INTERNAL


class EngineError(Exception):
    """A refused request; nothing was changed. `reason` is stable UPPER_SNAKE."""

    def __init__(
        self, code: Code, reason: str, message: str, metadata: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = metadata or {}


def invalid(reason: str, message: str) -> EngineError:
    return EngineError(Code.INVALID_ARGUMENT, reason, message)


def not_found(game_id: str) -> EngineError:
    return EngineError(
        Code.NOT_FOUND, "GAME_NOT_FOUND", f"no game {game_id!r}", {"game_id": game_id}
    )


def stale(expected: int, actual: int) -> EngineError:
    return EngineError(
        Code.ABORTED,
        "STALE_SEQUENCE",
        f"expected sequence {expected}, but the game is at {actual}",
        {"expected_sequence": str(expected), "sequence": str(actual)},
    )


# A refusal's message and each ErrorInfo metadata value, at most, in UTF-8 bytes: the
# message travels twice, percent-encoded (up to 3x) and in the base64 status details.
MAX_MESSAGE_BYTES = 1024
MAX_METADATA_BYTES = 256


def _cut(text: str, limit: int) -> str:
    data = text.encode("utf-8", "replace")
    if len(data) <= limit:
        return text
    return data[: limit - 3].decode("utf-8", "ignore") + "\u2026"  # the ellipsis: 3 bytes


def to_status(err: BaseException) -> grpc.Status:
    """The gRPC status for an error raised while serving a request."""
    if isinstance(err, EngineError):
        code, reason, message, metadata = err.code, err.reason, err.message, err.metadata
    elif isinstance(err, RedisError):
        code, reason, message, metadata = Code.UNAVAILABLE, "STORE_UNAVAILABLE", str(err), {}
    else:
        raise err
    # Refusals quote what was refused (an action's text, a catalogue id): cut, they
    # still fit a client's trailing metadata (gRPC's 16 KiB by default, past which the
    # client sees RESOURCE_EXHAUSTED and no reason) and the log's refusal line.
    message = _cut(message, MAX_MESSAGE_BYTES)
    metadata = {key: _cut(value, MAX_METADATA_BYTES) for key, value in metadata.items()}
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    status = status_pb2.Status(code=code.value, message=message, details=[detail])
    result: grpc.Status = rpc_status.to_status(status)
    return result


def is_store_error(err: BaseException) -> bool:
    """Whether `err` is the store's backend failing (answered UNAVAILABLE)."""
    return isinstance(err, RedisError)
