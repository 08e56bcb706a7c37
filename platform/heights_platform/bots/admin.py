"""Admin: bots and versions to find and inspect; versions are read-only (immutable)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.bots.selectors import bots_played_with
from heights_platform.bots.services import bot_pages_changed

# ModelAdmin is generic for the type checker only (no django_stubs_ext monkeypatch here).
if TYPE_CHECKING:
    _BotAdmin = admin.ModelAdmin[Bot]
    _BotVersionAdmin = admin.ModelAdmin[BotVersion]
else:
    _BotAdmin = admin.ModelAdmin
    _BotVersionAdmin = admin.ModelAdmin


@admin.register(Bot)
class BotAdmin(_BotAdmin):
    list_display = ("id", "owner", "name", "active_version", "created_at")
    list_filter = ("created_at",)
    search_fields = ("name", "owner__username", "description")
    list_select_related = ("owner", "active_version")
    raw_id_fields = ("owner", "active_version")
    date_hierarchy = "created_at"

    def save_model(self, request: HttpRequest, obj: Bot, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        # Its name, owner and active version show on its page and on those of the bots
        # it played (site/bot_page.py).
        bot_pages_changed(bot_ids=[obj.pk, *bots_played_with(bot=obj)])


@admin.register(BotVersion)
class BotVersionAdmin(_BotVersionAdmin):
    list_display = ("id", "bot", "number", "kind", "status", "size", "created_at")
    list_filter = ("status", "kind", "created_at")
    search_fields = ("bot__name", "bot__owner__username", "sha256", "filename")
    list_select_related = ("bot", "bot__owner")
    fields = (
        "bot",
        "number",
        "kind",
        "filename",
        "sha256",
        "size",
        "status",
        "error",
        "qualification_match",
        "created_at",
    )
    readonly_fields = fields
    date_hierarchy = "created_at"

    def get_queryset(self, request: HttpRequest) -> QuerySet[BotVersion]:
        return super().get_queryset(request).defer("content")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # versions come from uploads (checked) or builtin_bots_ensure

    def has_delete_permission(self, request: HttpRequest, obj: BotVersion | None = None) -> bool:
        return False  # matches and replays refer to versions; they stay
