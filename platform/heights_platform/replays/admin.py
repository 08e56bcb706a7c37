"""Admin: replay metadata only; the blob is never loaded or shown (the API serves it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from heights_platform.replays.models import Replay

# ModelAdmin is generic for the type checker only (no django_stubs_ext monkeypatch here).
if TYPE_CHECKING:
    _ReplayAdmin = admin.ModelAdmin[Replay]
else:
    _ReplayAdmin = admin.ModelAdmin


@admin.register(Replay)
class ReplayAdmin(_ReplayAdmin):
    list_display = ("id", "match", "steps", "size", "sha256", "created_at")
    search_fields = ("sha256",)
    date_hierarchy = "created_at"
    fields = ("match", "steps", "size", "sha256", "created_at")
    readonly_fields = ("match", "steps", "size", "sha256", "created_at")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Replay]:
        return super().get_queryset(request).defer("data")
