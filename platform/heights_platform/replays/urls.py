"""Routes of the replays API (under /api/v1/)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from heights_platform.replays import apis

urlpatterns: list[URLPattern | URLResolver] = [
    path("", apis.ReplayListApi.as_view(), name="replays"),
    path("<id:replay_id>/", apis.ReplayDetailApi.as_view(), name="replay"),
    path("<id:replay_id>/download/", apis.ReplayDownloadApi.as_view(), name="replay-download"),
    path("<id:replay_id>/steps/<index:step>/", apis.ReplayStepApi.as_view(), name="replay-step"),
    path("<id:replay_id>/verify/", apis.ReplayVerifyApi.as_view(), name="replay-verify"),
]
