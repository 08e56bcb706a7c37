"""Every API page also renders as HTML (DRF's browsable API), for anyone and for a user."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import User
from rest_framework.test import APIClient


def _get_paths(api: APIClient) -> list[str]:
    schema = api.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    return sorted(
        path for path, item in schema["paths"].items() if "get" in item and "{" not in path
    )


def test_every_page_without_parameters_renders_as_html(
    api: APIClient, client_for: Callable[[User], APIClient], make_user: Callable[..., User]
) -> None:
    paths = _get_paths(api)
    assert "/api/v1/ladders/" in paths
    for client in (api, client_for(make_user())):
        for path in paths:
            page = client.get(path, HTTP_ACCEPT="text/html")
            assert page.status_code < 500, (path, page.status_code)
