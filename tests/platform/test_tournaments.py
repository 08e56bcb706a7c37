"""Tournaments API: create and validate, list and filter, register, withdraw, start."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.matches.models import Match
from heights_platform.tournaments.models import Tournament, TournamentEntry
from heights_platform.tournaments.services import MAX_ENTRIES, MAX_ROUND_ROBIN_ENTRIES

URL = "/api/v1/tournaments/"


def _iso(moment: datetime) -> str:
    return moment.isoformat()


def tournament_body(**overrides: Any) -> dict[str, Any]:
    now = timezone.now()
    body: dict[str, Any] = {
        "name": "Spring cup",
        "format": "round_robin",
        "players": 2,
        "registration_opens_at": _iso(now - timedelta(hours=1)),
        "registration_closes_at": _iso(now + timedelta(days=1)),
    }
    body.update(overrides)
    return body


@pytest.fixture
def owner(make_user: Callable[..., User]) -> User:
    return make_user("organiser")


@pytest.fixture
def owner_client(owner: User, client_for: Callable[[User], APIClient]) -> APIClient:
    return client_for(owner)


def create(client: APIClient, **overrides: Any) -> dict[str, Any]:
    response = client.post(URL, tournament_body(**overrides))
    assert response.status_code == 201, response.json()
    data: dict[str, Any] = response.json()
    return data


def test_create_returns_detail_with_progress(owner_client: APIClient) -> None:
    data = create(owner_client, options={"round_cap": 30}, duplicate=True)
    assert data["owner"] == "organiser"
    assert data["status"] == "registration"
    assert data["duplicate"] is True
    assert data["options"] == {"round_cap": 30}
    assert data["seed"] is None  # secret until the tournament ends
    assert data["entry_count"] == 0
    assert data["progress"]["matches_total"] == 0


def test_create_needs_authentication(api: APIClient) -> None:
    response = api.post(URL, tournament_body())
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"format": "ladder"}, "format"),
        ({"players": 1}, "players"),
        ({"players": 5}, "players"),
        ({"swiss_rounds": 3}, "swiss_rounds"),
        ({"format": "swiss", "swiss_rounds": 99}, "swiss_rounds"),
        ({"options": {"no_such_rule": 1}}, "options"),
        ({"options": {"round_cap": 0}}, "options"),
        ({"catalogue": "no-such-catalogue"}, "catalogue"),
    ],
)
def test_create_rejects_invalid_input(
    owner_client: APIClient, overrides: dict[str, Any], field: str
) -> None:
    response = owner_client.post(URL, tournament_body(**overrides))
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert field in body["details"]["fields"]


def test_create_rejects_bad_registration_window(owner_client: APIClient) -> None:
    now = timezone.now()
    backwards = tournament_body(
        registration_opens_at=_iso(now + timedelta(days=2)),
        registration_closes_at=_iso(now + timedelta(days=1)),
    )
    past = tournament_body(
        registration_opens_at=_iso(now - timedelta(days=2)),
        registration_closes_at=_iso(now - timedelta(days=1)),
    )
    for body in (backwards, past):
        response = owner_client.post(URL, body)
        assert response.status_code == 400
        assert "registration_closes_at" in response.json()["details"]["fields"]


def test_list_filters_and_paginates(owner_client: APIClient, api: APIClient) -> None:
    create(owner_client, name="a", format="swiss")
    create(owner_client, name="b", format="elimination")
    create(owner_client, name="c", format="swiss")
    page = api.get(URL, {"format": "swiss", "page_size": "1"}).json()
    assert [t["name"] for t in page["results"]] == ["c"]
    following = api.get(page["next"]).json()
    assert [t["name"] for t in following["results"]] == ["a"]
    assert following["next"] is None
    assert [t["name"] for t in api.get(URL, {"status": "registration"}).json()["results"]] == [
        "c",
        "b",
        "a",
    ]
    assert api.get(URL, {"status": "finished"}).json()["results"] == []
    assert api.get(URL, {"format": "bogus"}).json()["code"] == "invalid"


def test_detail_and_unknown_tournament(owner_client: APIClient, api: APIClient) -> None:
    data = create(owner_client)
    assert api.get(f"{URL}{data['id']}/").json()["name"] == "Spring cup"
    response = api.get(f"{URL}999999/")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_register_my_bot_once(
    owner_client: APIClient,
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
) -> None:
    tid = create(owner_client)["id"]
    alice = make_user("alice")
    bot = make_active_bot(alice, "rocket")
    alice_client = client_for(alice)
    response = alice_client.post(f"{URL}{tid}/entries/", {"bot": bot.pk})
    assert response.status_code == 201, response.json()
    entry = response.json()
    assert (entry["bot_name"], entry["owner"], entry["version"]) == ("rocket", "alice", 1)
    again = alice_client.post(f"{URL}{tid}/entries/", {"bot": bot.pk})
    assert again.status_code == 409
    assert again.json()["code"] == "conflict"
    # A new active version is still the same bot: at most one version per bot.
    assert bot.active_version is not None
    BotVersion.objects.filter(pk=bot.active_version.pk).update(status=BotVersion.Status.RETIRED)
    newer = BotVersion.objects.create(
        bot=bot,
        number=2,
        kind="py",
        filename="bot.py",
        sha256="f" * 64,
        size=1,
        content=b"#",
        status=BotVersion.Status.ACTIVE,
    )
    Bot.objects.filter(pk=bot.pk).update(active_version=newer)
    assert alice_client.post(f"{URL}{tid}/entries/", {"bot": bot.pk}).status_code == 409
    entries = alice_client.get(f"{URL}{tid}/entries/").json()
    assert [e["version"] for e in entries] == [1]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_round_robin_is_full_at_32_entries_other_formats_later(
    owner_client: APIClient,
    owner: User,
    make_active_bot: Callable[..., Bot],
    players: int,
) -> None:
    # A round robin schedules every pair in the request that starts it: 256 entries were
    # 32,640 two-player tables, and a 3-player schedule of 256 took over ten minutes of
    # CPU to build. Registration is where the bound is known and refused.
    round_robin = create(owner_client, players=players)["id"]
    swiss = create(owner_client, players=players, format="swiss")["id"]
    bots = [make_active_bot(owner, f"b{n}") for n in range(MAX_ROUND_ROBIN_ENTRIES + 1)]
    for bot in bots[:MAX_ROUND_ROBIN_ENTRIES]:
        response = owner_client.post(f"{URL}{round_robin}/entries/", {"bot": bot.pk})
        assert response.status_code == 201, response.json()
    refused = owner_client.post(f"{URL}{round_robin}/entries/", {"bot": bots[-1].pk})
    assert refused.status_code == 409, refused.json()
    body = refused.json()
    assert body["code"] == "conflict"
    assert f"full ({MAX_ROUND_ROBIN_ENTRIES} entries" in body["message"]
    assert body["details"] == {"limit": MAX_ROUND_ROBIN_ENTRIES}
    entries = owner_client.get(f"{URL}{round_robin}/entries/").json()
    assert len(entries) == MAX_ROUND_ROBIN_ENTRIES
    # Swiss and elimination schedule a round at a time: up to MAX_ENTRIES.
    for bot in bots:
        response = owner_client.post(f"{URL}{swiss}/entries/", {"bot": bot.pk})
        assert response.status_code == 201, response.json()
    assert MAX_ENTRIES > MAX_ROUND_ROBIN_ENTRIES


def test_a_round_robin_over_its_bound_does_not_start(
    owner_client: APIClient, owner: User, make_active_bot: Callable[..., Bot]
) -> None:
    # Entries registered before the bound existed (made here past registration's check):
    # the start would build their whole schedule in the request, so it is refused too.
    tid = create(owner_client)["id"]
    tournament = Tournament.objects.get(pk=tid)
    for n in range(MAX_ROUND_ROBIN_ENTRIES + 2):
        bot = make_active_bot(owner, f"old{n}")
        assert bot.active_version is not None
        TournamentEntry.objects.create(
            tournament=tournament, bot=bot, bot_version=bot.active_version
        )
    refused = owner_client.post(f"{URL}{tid}/start/")
    assert refused.status_code == 409, refused.json()
    body = refused.json()
    assert body["message"] == (
        f"{MAX_ROUND_ROBIN_ENTRIES + 2} entries cannot start: a round robin tournament "
        f"takes at most {MAX_ROUND_ROBIN_ENTRIES}; withdraw 2"
    )
    assert body["details"] == {
        "entries": MAX_ROUND_ROBIN_ENTRIES + 2,
        "limit": MAX_ROUND_ROBIN_ENTRIES,
    }
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTRATION  # nothing changed
    assert not Match.objects.filter(tournament=tournament).exists()


def test_cannot_register_another_users_bot(
    owner_client: APIClient,
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    api: APIClient,
) -> None:
    tid = create(owner_client)["id"]
    bot = make_active_bot(make_user("alice"))
    response = owner_client.post(f"{URL}{tid}/entries/", {"bot": bot.pk})
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
    assert api.post(f"{URL}{tid}/entries/", {"bot": bot.pk}).status_code == 401
    assert owner_client.post(f"{URL}{tid}/entries/", {"bot": 999999}).status_code == 404


def test_bot_without_active_version_cannot_register(
    owner: User, owner_client: APIClient, make_bot: Callable[..., Bot]
) -> None:
    tid = create(owner_client)["id"]
    response = owner_client.post(f"{URL}{tid}/entries/", {"bot": make_bot(owner).pk})
    assert response.status_code == 409


def test_registration_window(
    owner: User, owner_client: APIClient, make_active_bot: Callable[..., Bot]
) -> None:
    now = timezone.now()
    bot = make_active_bot(owner)
    not_yet = create(
        owner_client,
        registration_opens_at=_iso(now + timedelta(hours=1)),
        registration_closes_at=_iso(now + timedelta(hours=2)),
    )["id"]
    response = owner_client.post(f"{URL}{not_yet}/entries/", {"bot": bot.pk})
    assert response.status_code == 409
    assert response.json()["code"] == "conflict"
    closed = create(owner_client)["id"]
    Tournament.objects.filter(pk=closed).update(registration_closes_at=now - timedelta(seconds=1))
    assert owner_client.post(f"{URL}{closed}/entries/", {"bot": bot.pk}).status_code == 409
    open_now = create(owner_client)["id"]
    assert owner_client.post(f"{URL}{open_now}/entries/", {"bot": bot.pk}).status_code == 201


def register(
    client_for: Callable[[User], APIClient], tid: int, bots: list[Bot]
) -> list[dict[str, Any]]:
    entries = []
    for bot in bots:
        response = client_for(bot.owner).post(f"{URL}{tid}/entries/", {"bot": bot.pk})
        assert response.status_code == 201, response.json()
        entries.append(response.json())
    return entries


def test_withdraw_before_start_only(
    owner_client: APIClient,
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
) -> None:
    tid = create(owner_client)["id"]
    bots = [make_active_bot(make_user()) for _ in range(3)]
    entries = register(client_for, tid, bots)
    stranger = client_for(make_user())
    url = f"{URL}{tid}/entries/{entries[0]['id']}/"
    assert stranger.delete(url).json()["code"] == "permission_denied"
    assert client_for(bots[0].owner).delete(url).status_code == 204
    assert client_for(bots[0].owner).delete(url).status_code == 404
    assert owner_client.post(f"{URL}{tid}/start/").status_code == 200
    late = client_for(bots[1].owner).delete(f"{URL}{tid}/entries/{entries[1]['id']}/")
    assert late.status_code == 409
    assert late.json()["code"] == "conflict"


def test_start_permissions_and_state(
    owner_client: APIClient,
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
) -> None:
    tid = create(owner_client)["id"]
    register(client_for, tid, [make_active_bot(make_user())])
    other = client_for(make_user("mallory"))
    response = other.post(f"{URL}{tid}/start/")
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
    too_few = owner_client.post(f"{URL}{tid}/start/")
    assert too_few.status_code == 409
    assert too_few.json()["details"] == {"entries": 1}
    register(client_for, tid, [make_active_bot(make_user())])
    staff = make_user("referee")
    staff.is_staff = True
    staff.save()
    started = client_for(staff).post(f"{URL}{tid}/start/")
    assert started.status_code == 200
    data = started.json()
    assert data["status"] == "running"
    assert data["progress"]["matches_total"] == 1
    assert timezone.now() >= datetime.fromisoformat(data["registration_closes_at"])
    again = owner_client.post(f"{URL}{tid}/start/")
    assert again.status_code == 409


def test_matches_by_round_endpoint(
    owner_client: APIClient,
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
    api: APIClient,
) -> None:
    tid = create(owner_client)["id"]
    register(client_for, tid, [make_active_bot(make_user()) for _ in range(4)])
    owner_client.post(f"{URL}{tid}/start/")
    rounds = api.get(f"{URL}{tid}/matches/").json()
    assert [r["round"] for r in rounds] == [1, 2, 3]
    assert all(len(r["matches"]) == 2 for r in rounds)
    match = rounds[0]["matches"][0]
    assert match["status"] == "queued"
    assert match["seed"] is None
    assert [s["seat"] for s in match["seats"]] == [0, 1]
    only = api.get(f"{URL}{tid}/matches/", {"round": 2}).json()
    assert [r["round"] for r in only] == [2]
    assert Match.objects.filter(tournament_id=tid, kind=Match.Kind.TOURNAMENT).count() == 6
    assert api.get(f"{URL}{tid}/matches/", {"round": 0}).status_code == 400


def test_admin_lists(owner_client: APIClient, make_user: Callable[..., User]) -> None:
    from django.test import Client

    tid = create(owner_client)["id"]
    admin_user = make_user("boss")
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    client = Client()
    client.force_login(admin_user)
    for path in ("tournament/", "tournamententry/", "tournamentbye/", f"tournament/{tid}/change/"):
        response = client.get(f"/admin/tournaments/{path}")
        assert response.status_code == 200, path
