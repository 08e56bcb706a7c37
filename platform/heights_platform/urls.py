"""URL map: every resource under /api/v1/, the schema and docs, admin, health, the viewer
and the site's pages."""

from __future__ import annotations

from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerView,
)

from heights_platform.bots.profile_apis import UserDetailApi
from heights_platform.bots.runtimes_api import RuntimeListApi
from heights_platform.common.health import healthz, readyz
from heights_platform.common.index import RESOURCES, ApiIndex
from heights_platform.common.metrics import metrics_view
from heights_platform.ladders.bot_apis import BotDetailApi

# Django calls it for a path no route matches (with DEBUG off): JSON under /api/.
handler404 = "heights_platform.common.errors.not_found_view"
# ... and for a request past Django's own limits (body size, number of fields).
handler400 = "heights_platform.common.errors.bad_request_view"

api_v1: list[URLPattern | URLResolver] = [
    path("", ApiIndex.as_view(), name="api-index"),
    # Under accounts/, but it lists the user's bots: the bots app's view (apps in layers).
    path("accounts/users/<str:username>/", UserDetailApi.as_view(), name="accounts-user"),
    # Under bots/, but it lists the bot's ladder ratings: the ladders app's view.
    path("bots/<id:bot_id>/", BotDetailApi.as_view(), name="bot"),
    *(path(f"{name}/", include(f"heights_platform.{name}.urls")) for name in RESOURCES),
    path("runtimes/", RuntimeListApi.as_view(), name="runtimes"),
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/v1/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path(
        "api/v1/redoc/",
        # The platform's own template: drf-spectacular's loads web fonts from the internet.
        SpectacularRedocView.as_view(url_name="schema", template_name="viewer/redoc.html"),
        name="redoc",
    ),
    path("admin/", admin.site.urls),
    path("healthz", healthz),
    path("readyz", readyz),
    path("metrics", metrics_view),
    path("viewer/", include("heights_platform.viewer.urls")),
    # The site to browse: /, ladders, bots, matches, tournaments, /viewer/, sign-in.
    path("", include("heights_platform.site.urls")),
]
