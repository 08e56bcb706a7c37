"""Cursor pagination: stable pages over tables that grow while a client reads them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import DataError
from django.db.models import QuerySet
from rest_framework import pagination
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.views import APIView

MAX_CURSOR_CHARS = 200


class CursorPagination(pagination.CursorPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    ordering = "-created_at"
    invalid_cursor_message = (
        "invalid cursor: pass back the next or previous link of a page of this list"
    )

    def paginate_queryset(
        self,
        queryset: QuerySet[Any, Any] | Sequence[Any],
        request: Request,
        view: APIView | None = None,
    ) -> list[Any] | None:
        """A cursor carries the ordering field's value in the last row shown, and nothing
        signs it: a forged one that is no value of that field (a time, a number) fails in
        the lookup (ValidationError, ValueError), and is refused as DRF refuses any other
        malformed cursor. So is a time PostgreSQL cannot hold once in UTC, where it
        compares (0001-01-01T00:00+23:59): a DataError there."""
        try:
            return super().paginate_queryset(queryset, request, view)
        except (ValidationError, ValueError, TypeError, DataError):
            if getattr(self, "cursor", None) is None:
                raise  # no cursor was given: not the client's doing
            raise NotFound(self.invalid_cursor_message) from None

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        """The parameters with their bounds, which the request check enforces."""
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        bounds = {
            self.page_size_query_param: {"minimum": 1, "maximum": self.max_page_size},
            self.cursor_query_param: {"maxLength": MAX_CURSOR_CHARS},
        }
        for parameter in parameters:
            parameter["schema"].update(bounds.get(parameter["name"], {}))
        return parameters
