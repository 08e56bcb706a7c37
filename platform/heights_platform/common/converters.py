"""Path converters for the API's integers, with the bounds the schema documents.

Each matches any run of digits, as Django's `int` does, so that a value out of bounds
reaches the request check (common/request_schema.py) and is a 400 naming the parameter
and its range, not an anonymous 404. `PATH_SCHEMAS` puts the bounds in the schema
(drf-spectacular's PATH_CONVERTER_OVERRIDES).
"""

from __future__ import annotations

from typing import Any

from django.urls import register_converter

MAX_ID = 2**63 - 1  # PostgreSQL's bigint
MAX_INDEX = 2**31 - 1


class _Digits:
    regex = "[0-9]+"

    def to_python(self, value: str) -> int:
        return int(value)  # over 4,300 digits: ValueError, no match (404)

    def to_url(self, value: int) -> str:
        return str(value)


class IdConverter(_Digits):
    """An object's id or number: 1 .. 2**63 - 1."""


class IndexConverter(_Digits):
    """A position from 0 (a replay's step): 0 .. 2**31 - 1."""


class SeatConverter(_Digits):
    """A seat of a game: 0 .. 3."""


PATH_SCHEMAS: dict[str, dict[str, Any]] = {
    "id": {"type": "integer", "minimum": 1, "maximum": MAX_ID},
    "index": {"type": "integer", "minimum": 0, "maximum": MAX_INDEX},
    "seat": {"type": "integer", "minimum": 0, "maximum": 3},
}


def converters_register() -> None:
    register_converter(IdConverter, "id")
    register_converter(IndexConverter, "index")
    register_converter(SeatConverter, "seat")
