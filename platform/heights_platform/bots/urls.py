"""Routes of the bots API (under /api/v1/); a bot's detail, which lists its ladder
ratings, is the ladders app's and routed by the root URLconf."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from heights_platform.bots import apis

urlpatterns: list[URLPattern | URLResolver] = [
    path("", apis.BotListApi.as_view(), name="bots"),
    path("<id:bot_id>/versions/", apis.BotVersionListApi.as_view(), name="bot-versions"),
    path(
        "<id:bot_id>/versions/<id:number>/",
        apis.BotVersionDetailApi.as_view(),
        name="bot-version",
    ),
    path(
        "<id:bot_id>/versions/<id:number>/source/",
        apis.BotVersionSourceApi.as_view(),
        name="bot-version-source",
    ),
]
