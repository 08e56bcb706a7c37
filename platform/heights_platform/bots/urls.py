"""Routes of the bots API (under /api/v1/)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from heights_platform.bots import apis

urlpatterns: list[URLPattern | URLResolver] = [
    path("", apis.BotListApi.as_view(), name="bots"),
    path("<int:bot_id>/", apis.BotDetailApi.as_view(), name="bot"),
    path("<int:bot_id>/versions/", apis.BotVersionListApi.as_view(), name="bot-versions"),
    path(
        "<int:bot_id>/versions/<int:number>/",
        apis.BotVersionDetailApi.as_view(),
        name="bot-version",
    ),
    path(
        "<int:bot_id>/versions/<int:number>/source/",
        apis.BotVersionSourceApi.as_view(),
        name="bot-version-source",
    ),
]
