"""Content negotiation that names what it wants: a body in a type the view does not
parse, or with no Content-Type at all, is a 415 listing the types it does."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rest_framework import exceptions
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.request import Request


class UnsupportedMediaType(exceptions.UnsupportedMediaType):
    """DRF's 415, carrying the accepted types (the error's `details.accepted`)."""

    def __init__(self, given: str, accepted: list[str]) -> None:
        shown = f"Content-Type {given!r}" if given else "a body without a Content-Type"
        detail = f"{shown} is not accepted here; send one of: {', '.join(accepted)}"
        super().__init__(given, detail=detail)
        self.accepted = accepted


class ContentNegotiation(DefaultContentNegotiation):
    def select_parser(self, request: Request, parsers: Iterable[BaseParser]) -> Any:
        parsers = list(parsers)
        parser = super().select_parser(request, parsers)
        if parser is None:
            accepted = [str(p.media_type) for p in parsers]
            raise UnsupportedMediaType(request.content_type or "", accepted)
        return parser
