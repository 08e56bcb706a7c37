"""JSON request bodies, parsed only once their nesting is known to be bounded.

Python's JSON parser recurses once per level: a body of a hundred thousand `[`, far
under the request size limit, ends in a RecursionError (a 500) instead of a refusal.
Nesting is counted before the text is parsed, with the rules core's bound for untrusted
JSON (`MAX_JSON_DEPTH`, 32 levels; no body of the API nests more than 3). The request
check (common/request_schema.py) reads bodies with `body_loads` too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.utils.json import strict_constant

from heights_rules import DocumentTooDeepError, bounded_json_loads


def body_loads(raw: bytes | str, *, strict: bool = True) -> Any:
    """The JSON document `raw`; a ValueError if it is not one, `DocumentTooDeepError`
    (a ValueError) if it nests past `MAX_JSON_DEPTH`. `strict` refuses NaN and Infinity."""
    return bounded_json_loads(raw, parse_constant=strict_constant if strict else None)


class NestedTooDeepError(ParseError):
    """DRF's parse error, carrying the bound (the error's `details.limit`)."""

    def __init__(self, err: DocumentTooDeepError) -> None:
        super().__init__(f"JSON parse error - the body is {err}; the limit is {err.limit} levels")
        self.limit = err.limit


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing a body nested too deep with a 400 naming the bound."""

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
        except DocumentTooDeepError as err:
            raise NestedTooDeepError(err) from None
        except ValueError as err:
            raise ParseError(f"JSON parse error - {err}") from None
