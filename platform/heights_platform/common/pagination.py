"""Cursor pagination: stable pages over tables that grow while a client reads them."""

from __future__ import annotations

from rest_framework import pagination


class CursorPagination(pagination.CursorPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    ordering = "-created_at"
