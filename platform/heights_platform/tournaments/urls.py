"""Routes of the tournaments API (under /api/v1/)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from heights_platform.tournaments import apis

urlpatterns: list[URLPattern | URLResolver] = [
    path("", apis.TournamentListApi.as_view(), name="tournaments"),
    path("<id:tournament_id>/", apis.TournamentDetailApi.as_view(), name="tournament"),
    path(
        "<id:tournament_id>/entries/",
        apis.TournamentEntryListApi.as_view(),
        name="tournament-entries",
    ),
    path(
        "<id:tournament_id>/entries/<id:entry_id>/",
        apis.TournamentEntryWithdrawApi.as_view(),
        name="tournament-entry",
    ),
    path("<id:tournament_id>/start/", apis.TournamentStartApi.as_view(), name="tournament-start"),
    path(
        "<id:tournament_id>/standings/",
        apis.TournamentStandingsApi.as_view(),
        name="tournament-standings",
    ),
    path(
        "<id:tournament_id>/matches/",
        apis.TournamentMatchListApi.as_view(),
        name="tournament-matches",
    ),
]
