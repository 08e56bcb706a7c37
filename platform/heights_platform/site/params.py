"""Query parameters of the pages: each page declares its own, each with a bound.

A parameter the page does not declare, a repeated one or a value out of bounds is a
`ParamError`, shown as a 400 page naming the parameter and what is allowed (the same
rule the API applies, common/request_schema.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from django.http import QueryDict

MAX_VALUE_CHARS = 200
MAX_PAGE = 10_000  # a page number past any list the site shows
_DIGITS = re.compile(r"[0-9]{1,9}")


class ParamError(ValueError):
    """A query parameter the page refuses; `allowed` says what it would accept."""

    def __init__(self, message: str, *, field: str, allowed: str) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.allowed = allowed


@dataclass(frozen=True, slots=True)
class Number:
    low: int
    high: int
    default: int

    def parse(self, name: str, raw: str) -> int:
        if _DIGITS.fullmatch(raw) and self.low <= int(raw) <= self.high:
            return int(raw)
        allowed = f"an integer from {self.low} to {self.high}"
        raise ParamError(f"{name} must be {allowed}, not {raw!r}", field=name, allowed=allowed)


@dataclass(frozen=True, slots=True)
class Choice:
    values: tuple[str, ...]
    default: str

    def parse(self, name: str, raw: str) -> str:
        if raw in self.values:
            return raw
        allowed = "one of " + ", ".join(self.values)
        raise ParamError(f"{name} must be {allowed}, not {raw!r}", field=name, allowed=allowed)


@dataclass(frozen=True, slots=True)
class Text:
    max_chars: int
    default: str = ""

    def parse(self, name: str, raw: str) -> str:
        if len(raw) <= self.max_chars:
            return raw
        allowed = f"at most {self.max_chars} characters"
        raise ParamError(f"{name} must be {allowed}", field=name, allowed=allowed)


Param = Number | Choice | Text
PAGE = Number(1, MAX_PAGE, 1)


def query_read(query: QueryDict, spec: Mapping[str, Param]) -> dict[str, int | str]:
    """The page's parameters, defaults filled in; refuses anything `spec` does not allow."""
    unknown = sorted(set(query) - spec.keys())
    if unknown:
        allowed = ", ".join(sorted(spec)) or "none"
        raise ParamError(
            f"unknown query parameter {', '.join(unknown)}; allowed: {allowed}",
            field=unknown[0],
            allowed=allowed,
        )
    values: dict[str, int | str] = {}
    for name, param in spec.items():
        given = query.getlist(name)
        if len(given) > 1:
            raise ParamError(f"{name} must be given once", field=name, allowed="one value")
        if not given:
            values[name] = param.default
        elif len(given[0]) > MAX_VALUE_CHARS:
            allowed = f"at most {MAX_VALUE_CHARS} characters"
            raise ParamError(f"{name} must be {allowed}", field=name, allowed=allowed)
        else:
            values[name] = param.parse(name, given[0])
    return values


def page_of(values: Mapping[str, int | str]) -> int:
    page = values["page"]
    assert isinstance(page, int)
    return page
