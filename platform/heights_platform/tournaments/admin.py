"""Admin: tournaments and their entries, listed; scheduling happens through the services."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin

from heights_platform.tournaments.models import Tournament, TournamentBye, TournamentEntry

if TYPE_CHECKING:
    TournamentAdminBase = admin.ModelAdmin[Tournament]
    EntryAdminBase = admin.ModelAdmin[TournamentEntry]
    EntryInlineBase = admin.TabularInline[TournamentEntry, Tournament]
    ByeAdminBase = admin.ModelAdmin[TournamentBye]
else:  # ModelAdmin is generic only in the stubs
    TournamentAdminBase = EntryAdminBase = ByeAdminBase = admin.ModelAdmin
    EntryInlineBase = admin.TabularInline


class EntryInline(EntryInlineBase):
    model = TournamentEntry
    fields = ("bot", "bot_version", "seed_number", "points", "place", "eliminated_round")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Tournament)
class TournamentAdmin(TournamentAdminBase):
    list_display = (
        "id",
        "name",
        "owner",
        "format",
        "players",
        "duplicate",
        "status",
        "current_round",
        "rounds_total",
        "registration_closes_at",
        "created_at",
    )
    list_filter = ("status", "format", "players", "duplicate")
    search_fields = ("name", "owner__username")
    list_select_related = ("owner",)
    raw_id_fields = ("owner",)
    readonly_fields = ("status", "current_round", "rounds_total", "started_at", "finished_at")
    inlines = (EntryInline,)


@admin.register(TournamentEntry)
class TournamentEntryAdmin(EntryAdminBase):
    list_display = ("id", "tournament", "bot_version", "seed_number", "points", "place")
    list_filter = ("tournament__status", "eliminated")
    search_fields = ("tournament__name", "bot__name", "bot__owner__username")
    list_select_related = ("tournament", "bot_version__bot__owner")
    raw_id_fields = ("tournament", "bot", "bot_version")


@admin.register(TournamentBye)
class TournamentByeAdmin(ByeAdminBase):
    list_display = ("id", "tournament", "entry", "round")
    raw_id_fields = ("tournament", "entry")
