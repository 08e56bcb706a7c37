"""Routes of the matches API (under /api/v1/)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from heights_platform.matches import apis

urlpatterns: list[URLPattern | URLResolver] = [
    path("", apis.MatchListApi.as_view(), name="matches"),
    path("challenges/", apis.ChallengeCreateApi.as_view(), name="match-challenges"),
    path("<uuid:match_id>/", apis.MatchDetailApi.as_view(), name="match"),
    path("<uuid:match_id>/seats/<seat:seat>/log/", apis.SeatLogApi.as_view(), name="seat-log"),
]
