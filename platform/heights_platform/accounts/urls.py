"""Routes of the accounts API (under /api/v1/); a user's public profile, which lists their
bots, is the bots app's and routed by the root URLconf."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from heights_platform.accounts import apis

urlpatterns: list[URLPattern | URLResolver] = [
    path("register/", apis.UserRegisterApi.as_view(), name="accounts-register"),
    path("login/", apis.UserLogInApi.as_view(), name="accounts-login"),
    path("tokens/", apis.ApiTokenListApi.as_view(), name="accounts-tokens"),
    path("tokens/<id:token_id>/", apis.ApiTokenRevokeApi.as_view(), name="accounts-token"),
    path("me/", apis.MeApi.as_view(), name="accounts-me"),
    path("me/password/", apis.MePasswordChangeApi.as_view(), name="accounts-password"),
]
