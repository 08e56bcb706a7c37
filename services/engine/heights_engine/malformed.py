"""Requests whose bytes are no message of their method's type: refused, not crashed on.

grpc.aio parses a request with the method's deserializer before the handler runs, and a
`DecodeError` there leaves as `UNKNOWN`, "Unexpected DecodeError", with a traceback in
the log at ERROR for every such request: any client could fill the log, and a client
could not tell its own mistake from the service failing. Here a unary request reaches
its handler as raw bytes and is parsed there; a stream's requests are parsed by
`marked` parsers, whose failure is `MalformedRequestError` and nothing else, so a
`DecodeError` the service raises itself is never blamed on the client. Either way the
request is `INVALID_ARGUMENT` `MALFORMED_REQUEST`, naming the message type the method
takes, logged at INFO as every other refusal is. The metrics interceptor wraps each
served method once (metrics.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, NoReturn

from google.protobuf.message import DecodeError

from heights_engine import errors
from heights_engine.errors import Code, EngineError

log = logging.getLogger("heights_engine")
Parse = Callable[[bytes], Any]


class MalformedRequestError(Exception):
    """A request's bytes that `parse` could not read."""

    def __init__(self, parse: Parse, cause: DecodeError) -> None:
        super().__init__(str(cause))
        self.parse = parse
        self.cause = cause


def marked(parse: Parse) -> Parse:
    """`parse`, raising `MalformedRequestError` where it raised `DecodeError`."""

    def parse_request(raw: bytes) -> Any:
        try:
            return parse(raw)
        except DecodeError as err:
            raise MalformedRequestError(parse, err) from err

    return parse_request


def malformed(method: str, parse: Parse, err: DecodeError) -> EngineError:
    """The refusal of a request `parse` could not read (`parse` is a message's FromString)."""
    descriptor = getattr(getattr(parse, "__self__", None), "DESCRIPTOR", None)
    wanted = descriptor.full_name if descriptor is not None else "request message"
    # protobuf's text names the type again before its cause ("Error parsing message
    # with type 'x': Truncated message."): the cause alone.
    cause = str(err).rpartition(": ")[2] or "not the protobuf wire format"
    return EngineError(
        Code.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
        f"{method}: the request is not a serialized {wanted}: {cause}",
        {"method": method, "message_type": wanted},
    )


async def refuse_malformed(context: Any, method: str, parse: Parse, err: DecodeError) -> NoReturn:
    """Abort the call as `malformed` says, and log it as a refusal."""
    refusal = malformed(method, parse, err)
    status = errors.to_status(refusal)
    log.info("refused: %s", status.details, extra={"method": method, "reason": refusal.reason})
    await context.abort(status.code, status.details, status.trailing_metadata)
    raise AssertionError("unreachable: abort raises")


async def parsed(raw: bytes, parse: Parse | None, context: Any, method: str) -> Any:
    """The request `raw` parsed, or the call refused as MALFORMED_REQUEST."""
    if parse is None:  # the method takes raw bytes
        return raw
    try:
        return parse(raw)
    except DecodeError as err:
        await refuse_malformed(context, method, parse, err)
