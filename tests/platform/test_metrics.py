"""/metrics stays bounded (labels from fixed sets) and private (a bearer token)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from prometheus_client import REGISTRY

from heights_platform.bots.models import Bot
from heights_platform.common.metrics import result_count
from heights_platform.matches.services import match_create, match_result_record
from heights_runner.contract import MatchResult

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


def _count(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_a_recorded_result_and_its_forfeits_are_counted_once_it_commits(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    """The matches app counts what it records (common.metrics.result_count), by status and
    forfeit reason, after the commit; a result recorded again counts nothing."""
    versions = [make_active_bot(make_user()).active_version for _ in range(2)]
    assert None not in versions
    match = match_create(
        kind="challenge", seats=[v for v in versions if v], players=2, options={}, seed=11
    )
    result = play_result(match, forfeit_seat=1)
    finished = ("heights_platform_match_results_total", {"status": "finished"})
    illegal = ("heights_platform_forfeits_total", {"reason": "illegal"})
    before = (_count(finished[0], **finished[1]), _count(illegal[0], **illegal[1]))
    with django_capture_on_commit_callbacks(execute=False) as pending:
        match_result_record(result=result)
    assert (_count(finished[0], **finished[1]), _count(illegal[0], **illegal[1])) == before
    for callback in pending:
        callback()
    after = (_count(finished[0], **finished[1]), _count(illegal[0], **illegal[1]))
    assert after == (before[0] + 1, before[1] + 1)
    with django_capture_on_commit_callbacks(execute=True):
        match_result_record(result=result)  # already finished: ignored
    assert (_count(finished[0], **finished[1]), _count(illegal[0], **illegal[1])) == after


def test_a_forfeit_reason_outside_the_runners_list_is_counted_as_other() -> None:
    before = _count("heights_platform_forfeits_total", reason="other")
    result_count(match_id="m", status="finished", forfeit_reasons=["x" * 40, "timeout"])
    assert _count("heights_platform_forfeits_total", reason="other") == before + 1
    assert (
        REGISTRY.get_sample_value("heights_platform_forfeits_total", {"reason": "x" * 40}) is None
    )
