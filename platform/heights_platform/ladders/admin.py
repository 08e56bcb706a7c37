"""Admin: ladders and their entries (ratings are written by matches, not by hand)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.http import HttpRequest

from heights_platform.bots.services import bot_pages_changed
from heights_platform.ladders.models import Ladder, LadderEntry
from heights_platform.matches.models import MatchSeat

# ModelAdmin is generic for the type checker only (no django_stubs_ext monkeypatch here).
if TYPE_CHECKING:
    _LadderAdmin = admin.ModelAdmin[Ladder]
    _LadderEntryAdmin = admin.ModelAdmin[LadderEntry]
else:
    _LadderAdmin = _LadderEntryAdmin = admin.ModelAdmin


@admin.register(Ladder)
class LadderAdmin(_LadderAdmin):
    list_display = ("slug", "name", "players", "catalogue", "is_active", "created_at")
    list_filter = ("is_active", "players")
    search_fields = ("slug", "name")

    def save_model(self, request: HttpRequest, obj: Ladder, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        # Its name and slug show on the pages of its bots and of the bots in its matches.
        entered = LadderEntry.objects.filter(ladder=obj).values_list("bot_id", flat=True)
        seated = MatchSeat.objects.filter(match__ladder=obj).values_list(
            "bot_version__bot_id", flat=True
        )
        bot_pages_changed(bot_ids=[*entered, *seated.distinct()])


@admin.register(LadderEntry)
class LadderEntryAdmin(_LadderEntryAdmin):
    list_display = ("ladder", "bot", "elo", "mu", "sigma", "games", "wins", "last_match_at")
    list_filter = ("ladder",)
    search_fields = ("bot__name", "bot__owner__username")
    list_select_related = ("ladder", "bot__owner")
    raw_id_fields = ("bot",)
    readonly_fields = ("elo", "mu", "sigma", "games", "wins", "seat_counts", "last_match_at")
