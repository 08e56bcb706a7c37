"""Routes of the ladders API (under /api/v1/)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from heights_platform.ladders import apis

urlpatterns: list[URLPattern | URLResolver] = [
    path("", apis.LadderListApi.as_view(), name="ladders"),
    path("<slug:slug>/", apis.LadderDetailApi.as_view(), name="ladder"),
    path(
        "<slug:slug>/leaderboard/", apis.LadderLeaderboardApi.as_view(), name="ladder-leaderboard"
    ),
    path("<slug:slug>/join/", apis.LadderJoinApi.as_view(), name="ladder-join"),
    path(
        "<slug:slug>/bots/<id:bot_id>/history/",
        apis.LadderBotHistoryApi.as_view(),
        name="ladder-bot-history",
    ),
]
