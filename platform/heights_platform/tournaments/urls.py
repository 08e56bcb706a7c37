"""Routes of the tournaments API (under /api/v1/)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from heights_platform.tournaments import apis

urlpatterns: list[URLPattern | URLResolver] = [
    path("", apis.TournamentListApi.as_view(), name="tournaments"),
    path("<int:tournament_id>/", apis.TournamentDetailApi.as_view(), name="tournament"),
    path(
        "<int:tournament_id>/entries/",
        apis.TournamentEntryListApi.as_view(),
        name="tournament-entries",
    ),
    path(
        "<int:tournament_id>/entries/<int:entry_id>/",
        apis.TournamentEntryWithdrawApi.as_view(),
        name="tournament-entry",
    ),
    path("<int:tournament_id>/start/", apis.TournamentStartApi.as_view(), name="tournament-start"),
    path(
        "<int:tournament_id>/standings/",
        apis.TournamentStandingsApi.as_view(),
        name="tournament-standings",
    ),
    path(
        "<int:tournament_id>/matches/",
        apis.TournamentMatchListApi.as_view(),
        name="tournament-matches",
    ),
]
