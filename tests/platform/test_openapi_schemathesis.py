"""Property-based checks of the platform against its own OpenAPI schema (schemathesis).

The schema is loaded from the WSGI app (`/api/v1/schema/`); every operation gets a
bounded number of generated requests in both modes (positive: data the schema allows;
negative: data it forbids), with a fixed seed, derandomized, sent twice: as a real user
with an API token and anonymously, in the test database. Checks: no server error; the
status is documented and the response conforms to the schema (content type, headers,
body, the one error shape); data the schema forbids is refused (`negative_data_rejection`)
and data it allows is not refused for its shape (`positive_data_acceptance`, see
`shape_accepted`).

Path parameters naming an object (`bot_id`, `slug`, `replay_id`, ...) and the bot ids in
request bodies are pointed at objects made in the test database, so the checks see
success bodies, not only 404s (in negative mode only where the parameter is not the one
negated); each example's writes are rolled back.

Exclusions:
- Schema-valid data may still break a rule the schema cannot state (an unknown bot, a
  registration window that closes before it opens, a common password): a 400 from a
  view's rules is allowed in positive mode; a 400 from the schema check at the door
  (`details.in`) or a serializer's shape message (required, null, type) is not.
- Throttles are not disabled in settings (the views read their throttle classes and
  rates at import); the cache that holds their counters is cleared before each call.
- Matches and tournaments send Celery tasks: they are recorded, not sent (`sent_tasks`).
- The multipart upload (POST /bots/{bot_id}/versions/) is included, but its generated
  files are never valid bots (400 `invalid_upload`); a successful upload is covered by
  test_uploads.py and tests/e2e.
- Schemathesis' coverage and stateful phases are off (time budget); the fuzzing phase
  runs with a fixed seed, derandomized, without an example database.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
import schemathesis
from django.contrib.auth.models import User
from django.core import signals
from django.core.cache import cache
from django.db import close_old_connections, transaction
from django.utils import timezone
from hypothesis import HealthCheck, settings
from rest_framework import fields as drf_fields
from rest_framework.test import APIClient
from schemathesis import Case
from schemathesis.checks import CheckContext, not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.openapi.checks import UndefinedStatusCode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
)

from heights_platform.accounts.services import api_token_issue
from heights_platform.bots.models import Bot, BotVersion
from heights_platform.ladders.services import ladder_create, ladder_join
from heights_platform.matches.services import match_create, match_result_record
from heights_platform.replays import stepping
from heights_platform.replays.models import Replay
from heights_platform.tournaments.services import tournament_create, tournament_entry_register
from heights_platform.wsgi import application
from heights_runner.contract import MatchResult

EXAMPLES_PER_OPERATION = 12
CASES: list[str] = []  # every case sent, by operation: counted at the end of the module

_CONFIG = SchemathesisConfig.from_dict(
    {
        "seed": 20261122,
        "generation": {
            "mode": "all",
            "max-examples": EXAMPLES_PER_OPERATION,
            "deterministic": True,
            "database": "none",
        },
        # Coverage enumerates every boundary of every field: many more requests than
        # the time budget allows; the fuzzing phase samples the same space.
        "phases": {"coverage": {"enabled": False}, "stateful": {"enabled": False}},
        # A 400 for a view's rule on schema-valid data is judged by `shape_accepted`.
        "checks": {
            "positive_data_acceptance": {
                "expected-statuses": ["2xx", "304", "400", "401", "403", "404", "409", "429"]
            }
        },
    }
)

schema = schemathesis.openapi.from_wsgi("/api/v1/schema/?format=json", application, config=_CONFIG)


def documented_status(ctx: CheckContext, response: Any, case: Case[Any]) -> bool | None:
    """`status_code_conformance`: every status answered is one the schema documents."""
    status = int(response.status_code)
    documented = case.operation.responses.status_codes
    if str(status) not in documented:
        raise UndefinedStatusCode(
            operation=case.operation.label,
            status_code=status,
            defined_status_codes=list(documented),
            allowed_status_codes=[int(code) for code in documented if code.isdigit()],
            message=f"Received: {status}\nDocumented: {', '.join(documented)}",
        )
    return None


def error_shape(ctx: CheckContext, response: Any, case: Case[Any]) -> bool | None:
    """Every 4xx answer is the API's one error shape with a stable code."""
    if 400 <= int(response.status_code) < 500:
        body = response.json()
        if not (isinstance(body, dict) and {"code", "message", "details"} <= body.keys()):
            raise AssertionError(f"not the API's error shape: {str(body)[:300]}")
    return None


# DRF's messages for a value of the wrong shape: schema-valid data must never get them.
_SHAPE_MESSAGES = {
    str(message)
    for field in (
        drf_fields.Field,
        drf_fields.IntegerField,
        drf_fields.FloatField,
        drf_fields.BooleanField,
        drf_fields.CharField,
        drf_fields.ListField,
        drf_fields.DictField,
    )
    for key, message in field.default_error_messages.items()
    if key in ("required", "null", "invalid", "not_a_list", "not_a_dict")
}


def _messages(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for value in node.values():
            yield from _messages(value)
    elif isinstance(node, list):
        for value in node:
            yield from _messages(value)
    else:
        yield str(node)


def shape_accepted(ctx: CheckContext, response: Any, case: Case[Any]) -> bool | None:
    """Positive mode: a 400 may come from a view's rule, never from the request's shape
    (the schema check at the door, or a serializer's required/null/type message)."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    details = response.json().get("details", {})
    shape = sorted(set(_messages(details.get("fields", {}))) & _SHAPE_MESSAGES)
    if "in" in details or shape:
        raise AssertionError(f"schema-valid data refused for its shape: {response.json()}")
    return None


_CHECKS: list[Any] = [
    not_a_server_error,
    documented_status,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    error_shape,
    negative_data_rejection,
    positive_data_acceptance,
    shape_accepted,
]


@pytest.fixture
def world(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    builtin_versions: dict[str, BotVersion],
    play_result: Callable[..., MatchResult],
    sent_tasks: list[dict[str, Any]],
) -> dict[str, Any]:
    """A user with a token, their bot on a ladder, a finished game's replay, a tournament."""
    user = make_user("prober")
    other = make_user("rival")
    key = api_token_issue(user=user, name="schemathesis").key
    spare = api_token_issue(user=user, name="spare").token
    mine, theirs = make_active_bot(user, "probe"), make_active_bot(other, "rival-bot")
    assert mine.active_version is not None
    assert theirs.active_version is not None
    ladder = ladder_create(slug="duel", name="Duel", players=2)
    ladder_join(ladder=ladder, bot=mine)
    ladder_join(ladder=ladder, bot=theirs)
    match = match_create(
        kind="ladder",
        seats=[mine.active_version, theirs.active_version],
        players=2,
        options={"round_cap": 3},
        ladder=ladder,
        seed=20261122,  # the same game, and so the same replay, on every run
    )
    match_result_record(result=play_result(match))
    replay = Replay.objects.get(match=match)
    now = timezone.now()
    tournament = tournament_create(
        owner=user,
        name="Probe cup",
        format="round_robin",
        players=2,
        registration_opens_at=now - timedelta(minutes=1),
        registration_closes_at=now + timedelta(hours=1),
    )
    entry = tournament_entry_register(tournament=tournament, bot=mine, user=user)
    return {
        "key": key,
        "steps": replay.steps,
        "body": {"bot": mine.pk, "opponents": [theirs.pk], "version": 1},
        "path": {
            "token_id": spare.pk,
            "username": user.username,
            "bot_id": mine.pk,
            "number": 1,
            "slug": ladder.slug,
            "match_id": str(match.pk),
            "replay_id": replay.pk,
            "tournament_id": tournament.pk,
            "entry_id": entry.pk,
        },
    }


@pytest.fixture(autouse=True)
def _requests_keep_the_test_transaction() -> Iterator[None]:
    """As Django's test client does: a request must not close the test's connection."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    stepping.cache_clear()
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def _negated(case: Case[Any], location: str) -> bool:
    meta = case.meta
    if meta is None:
        return False
    return any(
        str(where.value) == location and info.mode.is_negative
        for where, info in meta.components.items()
    )


def _point_at_world(case: Case[Any], world: dict[str, Any]) -> None:
    if _negated(case, "path"):
        return _point_body(case, world)
    params = case.path_parameters
    for name, value in world["path"].items():
        if name in params:
            params[name] = value
    if isinstance(params.get("step"), int):
        params["step"] = abs(params["step"]) % (world["steps"] + 1)
    return _point_body(case, world)


def _point_body(case: Case[Any], world: dict[str, Any]) -> None:
    if _negated(case, "body"):
        return
    body = case.body
    if isinstance(body, dict):  # ids in bodies: one of my bots, a rival's, version 1
        body.update({k: v for k, v in world["body"].items() if k in body})


@pytest.fixture(scope="module", autouse=True)
def _count_cases() -> Iterator[None]:
    yield
    operations = len({label for label, _ in (c.rsplit(" as ", 1) for c in CASES)})
    print(f"\nschemathesis: {len(CASES)} cases over {operations} operations")


@schema.parametrize()
@pytest.mark.parametrize("caller", ["user", "anonymous"])
# `world` is made once per operation and shared by its examples, on purpose: the
# examples probe the same objects (each operation's test is its own transaction).
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_api_conforms_to_its_schema(case: Case[Any], world: dict[str, Any], caller: str) -> None:
    _point_at_world(case, world)
    CASES.append(f"{case.operation.label} as {caller}")
    cache.clear()  # throttle counters
    headers = {"Authorization": f"Token {world['key']}"} if caller == "user" else {}
    # Each example starts from the same world: its writes are rolled back, and so is a
    # transaction the database aborted (the test's transaction stands for autocommit).
    savepoint = transaction.savepoint()
    try:
        response = case.call(headers=headers)
    finally:
        transaction.savepoint_rollback(savepoint)
    case.validate_response(response, checks=_CHECKS, headers=headers)


@pytest.mark.parametrize("path", ["/api/v1/replays/", "/api/v1/matches/"])
@pytest.mark.parametrize(
    "query",
    [
        "created_before=0513-05-26T10:26:15-16:09",  # found by this module's fuzzing
        "created_after=0001-01-01T00:00:00%2B05:00",
        "created_after=9999-12-31T23:59:59-05:00",
    ],
)
def test_dates_the_database_cannot_hold_are_invalid_not_an_outage(
    api: APIClient, path: str, query: str
) -> None:
    response = api.get(f"{path}?{query}")
    assert response.status_code in (200, 400), response.content
    if response.status_code == 400:
        assert response.json()["code"] == "invalid"
