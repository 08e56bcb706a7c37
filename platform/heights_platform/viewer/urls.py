"""Routes of the viewer (under /viewer/)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from heights_platform.viewer import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("replays/<int:replay_id>/", views.replay_page, name="viewer-replay"),
    path("ladders/<slug:slug>/", views.ladder_page, name="viewer-ladder"),
    path("ladders/<slug:slug>/bots/<int:bot_id>/", views.ladder_bot_page, name="viewer-ladder-bot"),
    path("assets/<str:name>", views.viewer_asset, name="viewer-asset"),
]
