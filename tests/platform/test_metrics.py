"""/metrics stays bounded (labels from fixed sets) and private (a bearer token)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from prometheus_client import REGISTRY

TOKEN = "metrics-test-token"


def request_series() -> set[tuple[str, frozenset[tuple[str, str]]]]:
    """The label sets of heights_platform_requests_total and the latency histogram."""
    series: set[tuple[str, frozenset[tuple[str, str]]]] = set()
    for family in REGISTRY.collect():
        if family.name in ("heights_platform_requests", "heights_platform_request_seconds"):
            for sample in family.samples:
                series.add((sample.name, frozenset(sample.labels.items())))
    return series


def test_a_thousand_methods_and_paths_add_no_series() -> None:
    client = Client()
    # Warm-up: the label values the flood would reach (other, unmatched, 404, a route).
    client.generic("BREW", "/warm-up/")
    client.generic("BREW", "/api/v1/bots/warm-up/")
    client.get("/no-such-path/")
    before = request_series()
    for i in range(1000):
        client.generic(f"M{i}X", f"/random-{i}/path/")
        client.generic(f"Q{i}", f"/api/v1/bots/{i}-{i}/")
    after = request_series()
    assert after == before
    methods = {dict(labels).get("method", "") for _, labels in after} - {""}
    assert "other" in methods
    assert not any(m.startswith(("M", "Q")) for m in methods)


def test_metrics_are_not_served_without_a_token() -> None:
    response = Client().get("/metrics")
    assert response.status_code == 404
    assert b"heights_platform_requests_total" not in response.content


@pytest.mark.parametrize(
    ("header", "status"),
    [(None, 401), ("Bearer wrong", 401), (TOKEN, 401), (f"Bearer {TOKEN}", 200)],
)
def test_metrics_need_the_bearer_token(settings: Any, header: str | None, status: int) -> None:
    settings.HEIGHTS_METRICS_TOKEN = TOKEN
    extra = {"HTTP_AUTHORIZATION": header} if header else {}
    response = Client().get("/metrics", **extra)  # type: ignore[arg-type]
    assert response.status_code == status
    assert (b"heights_platform_requests_total" in response.content) == (status == 200)
    if status == 401:
        assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
