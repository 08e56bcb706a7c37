"""URL map: every resource under /api/v1/, the schema and docs, admin, health."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from heights_platform.common.health import healthz, readyz
from heights_platform.common.metrics import metrics_view

api_v1 = [
    path("accounts/", include("heights_platform.accounts.urls")),
    path("bots/", include("heights_platform.bots.urls")),
    path("ladders/", include("heights_platform.ladders.urls")),
    path("matches/", include("heights_platform.matches.urls")),
    path("tournaments/", include("heights_platform.tournaments.urls")),
    path("replays/", include("heights_platform.replays.urls")),
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/v1/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("admin/", admin.site.urls),
    path("healthz", healthz),
    path("readyz", readyz),
    path("metrics", metrics_view),
    path("viewer/", include("heights_platform.viewer.urls")),
]
