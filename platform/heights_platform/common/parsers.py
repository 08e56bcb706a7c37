"""JSON request bodies, read within bounds of nesting and of size.

Python's JSON parser recurses once per level: a body of a hundred thousand `[`, far
under the request size limit, ended in a RecursionError (a 500) instead of a refusal.
Nesting is counted before the text is parsed, with the rules core's bound for untrusted
JSON (`MAX_JSON_DEPTH`, 32 levels; no body of the API nests more than 3).

The values a body holds are counted once it is parsed: checking 150,000 rule options
(2 MiB) against the schema took 10 s of CPU, and that check (common/request_schema.py)
runs before authentication and throttles. No body of the API needs more than a few
dozen values (a challenge: its bot, three opponents, some rule options).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.utils.json import strict_constant

from heights_rules import DocumentTooDeepError, bounded_json_loads

MAX_BODY_VALUES = 1_000  # every value counts: objects, arrays and what they hold


class BodyOutOfBoundsError(ValueError):
    """A JSON body nests too deep or holds too many values (`limit`)."""

    def __init__(self, message: str, limit: int) -> None:
        super().__init__(message)
        self.limit = limit

    @property
    def message(self) -> str:
        return f"JSON parse error - the body is {self}; the limit is {self.limit}"


def _values_count(document: Any, limit: int) -> int:
    """How many values `document` holds, itself included; counting stops past `limit`."""
    count, pending = 0, [document]
    while pending and count <= limit:
        value = pending.pop()
        count += 1
        if isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return count


def body_loads(raw: bytes | str, *, strict: bool = True) -> Any:
    """The JSON document `raw`; a ValueError if it is not one, `BodyOutOfBoundsError`
    (a ValueError) past the bounds. `strict` refuses NaN and Infinity."""
    try:
        document = bounded_json_loads(raw, parse_constant=strict_constant if strict else None)
    except DocumentTooDeepError as err:
        raise BodyOutOfBoundsError(str(err), err.limit) from None
    if _values_count(document, MAX_BODY_VALUES) > MAX_BODY_VALUES:
        raise BodyOutOfBoundsError(f"holding more than {MAX_BODY_VALUES} values", MAX_BODY_VALUES)
    return document


class BoundedParseError(ParseError):
    """DRF's parse error for a body past a bound, carrying it (the error's `details.limit`)."""

    def __init__(self, err: BodyOutOfBoundsError) -> None:
        super().__init__(err.message)
        self.limit = err.limit


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing a body past the bounds with a 400 naming the bound."""

    def parse(
        self,
        stream: IO[Any] | None,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        raw = stream.read() if stream is not None else b""
        try:
            return body_loads(raw.decode(encoding), strict=self.strict)
        except BodyOutOfBoundsError as err:
            raise BoundedParseError(err) from None
        except ValueError as err:
            raise ParseError(f"JSON parse error - {err}") from None
