"""Routes of the site: the pages at the root, the replay index at /viewer/."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from heights_platform.site import pages, signin, upload

urlpatterns: list[URLPattern | URLResolver] = [
    path("", pages.home, name="site-home"),
    path("ladders/<slug:slug>/", pages.ladder_detail, name="site-ladder"),
    path("bots/upload/", upload.bot_upload, name="site-upload"),
    path("bots/<id:bot_id>/", pages.bot_detail, name="site-bot"),
    path("matches/<uuid:match_id>/", pages.match_detail, name="site-match"),
    path("tournaments/<id:tournament_id>/", pages.tournament_detail, name="site-tournament"),
    path("viewer/", pages.viewer_index, name="site-viewer-index"),
    path("accounts/sign-in/", signin.SignInView.as_view(), name="site-sign-in"),
    path("accounts/sign-out/", signin.SignOutView.as_view(), name="site-sign-out"),
]
