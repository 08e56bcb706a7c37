"""Through the API: chosen seeds only in unrated play, shown as chosen; rule options
refused with a 400 naming the option and what it allows, changing nothing."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from heights_platform.bots.models import Bot
from heights_platform.common.errors import ApiError
from heights_platform.ladders.models import Ladder
from heights_platform.matches.models import Match
from heights_platform.matches.services import match_create
from heights_platform.tournaments.models import Tournament

TOURNAMENTS, LADDERS, CHALLENGES = (
    "/api/v1/tournaments/",
    "/api/v1/ladders/",
    ("/api/v1/matches/challenges/"),
)

BAD_OPTIONS = [
    ({"end_trigger": "constructed"}, "end_trigger", "CONSTRUCTED, SUPPLY_EMPTY"),
    ({"end_trigger": 2}, "end_trigger", "CONSTRUCTED, SUPPLY_EMPTY"),
    ({"round_kap": 3}, "round_kap", "landing_hard_permille, landing_steady_permille"),
    ({"mayor_hard": "yes"}, "mayor_hard", "true, false"),
    ({"round_cap": "30"}, "round_cap", "integers 1..200"),
    ({"round_cap": 1000}, "round_cap", "integers 1..200"),
]


def _tournament_body(**overrides: Any) -> dict[str, Any]:
    now = timezone.now()
    return {
        "name": "cup",
        "format": "round_robin",
        "players": 2,
        "registration_opens_at": (now - timedelta(hours=1)).isoformat(),
        "registration_closes_at": (now + timedelta(hours=1)).isoformat(),
        **overrides,
    }


@pytest.fixture
def staff(make_user: Callable[..., User], client_for: Callable[[User], APIClient]) -> APIClient:
    user = make_user("staffer")
    user.is_staff = True
    user.save()
    return client_for(user)


def _refused(response: Any, field: str) -> dict[str, Any]:
    assert response.status_code == 400, response.json()
    body: dict[str, Any] = response.json()
    assert body["code"] == "invalid"
    assert field in body["details"]["fields"], body
    return body


def test_a_rated_tournament_refuses_a_chosen_seed(staff: APIClient) -> None:
    body = _refused(staff.post(TOURNAMENTS, _tournament_body(seed=7), format="json"), "seed")
    assert "rated: false" in body["message"]
    assert not Tournament.objects.exists()
    drawn = staff.post(TOURNAMENTS, _tournament_body(), format="json").json()
    assert (drawn["rated"], drawn["seed_chosen"], drawn["seed"]) == (True, False, None)
    chosen = staff.post(TOURNAMENTS, _tournament_body(rated=False, seed=7), format="json")
    assert chosen.status_code == 201, chosen.json()
    assert (chosen.json()["rated"], chosen.json()["seed_chosen"]) == (False, True)
    assert chosen.json()["seed"] is None  # published at the end, like a drawn one


def test_a_ladder_refuses_a_chosen_seed(staff: APIClient) -> None:
    payload = {"slug": "duel", "name": "Duel", "players": 2, "seed": 7}
    _refused(staff.post(LADDERS, payload, format="json"), "seed")
    assert not Ladder.objects.exists()


def test_ladder_matches_never_take_a_chosen_seed(
    make_user: Callable[..., User], make_active_bot: Callable[..., Bot]
) -> None:
    versions = [v for v in (make_active_bot(make_user()).active_version for _ in "ab") if v]
    with pytest.raises(ApiError) as caught:
        match_create(kind="ladder", seats=versions, players=2, options={}, seed=5, seed_chosen=True)
    assert "seed" in caught.value.details["fields"]
    assert not Match.objects.exists()


def test_a_challenge_may_choose_its_seed_and_says_so(
    client_for: Callable[[User], APIClient],
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    sent_tasks: list[dict[str, Any]],
) -> None:
    alice = make_user()
    mine, theirs = make_active_bot(alice), make_active_bot(make_user())
    payload = {"bot": mine.pk, "opponents": [theirs.pk]}
    client = client_for(alice)
    drawn = client.post(CHALLENGES, payload, format="json").json()
    chosen = client.post(CHALLENGES, {**payload, "seed": 2**40 + 3}, format="json").json()
    assert (drawn["seed_chosen"], chosen["seed_chosen"]) == (False, True)
    assert drawn["seed"] is None  # shown once finished
    assert chosen["seed"] is None
    expected = hashlib.sha256(f"rolling-heights-seed-v1:{2**40 + 3}".encode()).hexdigest()
    assert chosen["seed_commitment"] == expected
    assert Match.objects.get(pk=chosen["id"]).seed == 2**40 + 3
    _refused(client.post(CHALLENGES, {**payload, "seed": -1}, format="json"), "seed")


@pytest.fixture
def challenge(
    client_for: Callable[[User], APIClient],
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
) -> tuple[APIClient, dict[str, Any]]:
    """A client and a challenge payload of its user's bot against another's."""
    alice = make_user()
    mine, theirs = make_active_bot(alice), make_active_bot(make_user())
    return client_for(alice), {"bot": mine.pk, "opponents": [theirs.pk]}


@pytest.mark.parametrize(("options", "option", "allowed"), BAD_OPTIONS)
def test_every_endpoint_refuses_bad_options_naming_them(
    staff: APIClient,
    challenge: tuple[APIClient, dict[str, Any]],
    options: dict[str, Any],
    option: str,
    allowed: str,
) -> None:
    challenger, payload = challenge
    attempts = [
        (staff, TOURNAMENTS, _tournament_body(options=options)),
        (staff, LADDERS, {"slug": "duel", "name": "Duel", "players": 2, "options": options}),
        (challenger, CHALLENGES, {**payload, "options": options}),
    ]
    for client, url, payload in attempts:
        body = _refused(client.post(url, payload, format="json"), "options")
        assert (body["details"]["option"], body["details"]["allowed"][: len(allowed)]) == (
            option,
            allowed,
        )
        assert option in body["message"]
    assert not Tournament.objects.exists()
    assert not Ladder.objects.exists()
    assert not Match.objects.exists()
