"""Admin: tokens are listed and revocable, never shown by their hash nor created here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from heights_platform.accounts.models import ApiToken, Profile

# ModelAdmin is generic for the type checker only (no django_stubs_ext monkeypatch here).
if TYPE_CHECKING:
    _ApiTokenAdmin = admin.ModelAdmin[ApiToken]
    _ProfileAdmin = admin.ModelAdmin[Profile]
else:
    _ApiTokenAdmin = admin.ModelAdmin
    _ProfileAdmin = admin.ModelAdmin


@admin.register(ApiToken)
class ApiTokenAdmin(_ApiTokenAdmin):
    list_display = ("id", "user", "name", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("created_at", "last_used_at", "revoked_at")
    search_fields = ("user__username", "name", "prefix")
    list_select_related = ("user",)
    fields = ("user", "name", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = fields
    actions = ("revoke",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a key is shown once, to its owner, by the log-in API

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())


@admin.register(Profile)
class ProfileAdmin(_ProfileAdmin):
    list_display = ("user", "display_name")
    search_fields = ("user__username", "display_name")
    raw_id_fields = ("user",)
