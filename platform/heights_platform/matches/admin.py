"""Admin: matches with their seats inline (results are written by the runner's reply)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin

from heights_platform.matches.models import Match, MatchSeat

# ModelAdmin is generic for the type checker only (no django_stubs_ext monkeypatch here).
if TYPE_CHECKING:
    _MatchAdmin = admin.ModelAdmin[Match]
    _MatchSeatInline = admin.TabularInline[MatchSeat, Match]
else:
    _MatchAdmin = admin.ModelAdmin
    _MatchSeatInline = admin.TabularInline


class MatchSeatInline(_MatchSeatInline):
    model = MatchSeat
    extra = 0
    raw_id_fields = ("bot_version",)
    fields = (
        "seat",
        "bot_version",
        "rank",
        "score",
        "forfeit_reason",
        "forfeit_step",
        "moves",
        "think_ms",
        "max_move_ms",
    )


@admin.register(Match)
class MatchAdmin(_MatchAdmin):
    list_display = ("id", "kind", "status", "ladder", "tournament", "players", "created_at")
    list_filter = ("kind", "status", "ladder")
    search_fields = ("id",)
    date_hierarchy = "created_at"
    raw_id_fields = ("ladder", "tournament", "created_by")
    readonly_fields = ("seed_commitment", "finished_seq", "created_at")
    inlines = (MatchSeatInline,)
