"""Cursor pagination: stable pages over tables that grow while a client reads them."""

from __future__ import annotations

from typing import Any

from rest_framework import pagination

MAX_CURSOR_CHARS = 200


class CursorPagination(pagination.CursorPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    ordering = "-created_at"

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
