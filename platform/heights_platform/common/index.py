"""GET /api/v1/: where each resource, the schema and the docs are, for a client that
starts from the root (the address `make up` prints)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

RESOURCES = ("accounts", "bots", "ladders", "matches", "tournaments", "replays")
# What the index links to: URL names of the resources' entry points.
LINKS = {
    "register": "accounts-register",
    "login": "accounts-login",
    "me": "accounts-me",
    "bots": "bots",
    "ladders": "ladders",
    "matches": "matches",
    "tournaments": "tournaments",
    "replays": "replays",
    "runtimes": "runtimes",
    "schema": "schema",
    "docs": "docs",
    "redoc": "redoc",
}


class ApiIndex(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(exclude=True)  # navigation, not a resource
    def get(self, request: Request) -> Response:
        links: dict[str, Any] = {
            key: request.build_absolute_uri(reverse(name)) for key, name in LINKS.items()
        }
        return Response(links)
