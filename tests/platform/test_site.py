"""The site's pages through Django's test client: what each shows, what it refuses, and
what it keeps private. The browser tests (test_site_browser.py) crawl the same pages."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from tests.platform.site_world import SECRET_LOG, SECRET_REJECTION

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.matches.models import Match
from heights_platform.matches.selectors import (
    MatchFilter,
    access_seat_log,
    bot_match_list_page,
    match_list_page,
)
from heights_platform.replays.models import Replay


def _get(client: Client, path: str, status: int = 200) -> str:
    response = client.get(path)
    assert response.status_code == status, (path, response.status_code)
    assert response["Content-Type"].startswith("text/html")
    return response.content.decode()


def test_home_lists_ladders_running_tournaments_and_recent_matches(world: dict[str, Any]) -> None:
    html = _get(Client(), "/")
    assert 'href="/ladders/duel/"' in html
    assert f'href="/tournaments/{world["tournament"].pk}/"' in html
    for match in world["matches"]:
        assert f'href="/matches/{match.pk}/"' in html
    assert 'href="/viewer/"' in html


def test_ladder_page_ranks_by_both_ratings_and_links_every_bot(world: dict[str, Any]) -> None:
    client = Client()
    html = _get(client, "/ladders/duel/")
    for bot in world["bots"]:
        assert f'href="/bots/{bot.pk}/"' in html
    assert 'id="ladder-chart"' in html  # the chart's data, embedded
    by_elo = html.index(">alpha<"), html.index(">gamma<")
    conservative = _get(client, "/ladders/duel/?order=conservative")
    assert "<strong>\u03bc \u2212 3\u03c3 (OpenSkill)</strong>" in conservative
    assert by_elo[0] < by_elo[1]


def test_bot_page_shows_versions_ratings_and_matches_with_opponents(
    world: dict[str, Any],
) -> None:
    alpha, beta, gamma = world["bots"]
    html = _get(Client(), f"/bots/{beta.pk}/")
    assert "Rating on" in html
    assert 'id="elo-1"' in html
    assert 'id="skill-1"' in html
    # Both of beta's ladder opponents, linked, in its rating history and its matches.
    assert html.count(f'href="/bots/{alpha.pk}/"') >= 2
    assert html.count(f'href="/bots/{gamma.pk}/"') >= 2
    for match in world["matches"]:
        assert f'href="/matches/{match.pk}/"' in html
    assert "forfeit: illegal at step 7" in html


def test_a_bot_pages_matches_are_the_apis_bot_filter(world: dict[str, Any]) -> None:
    """The page reads them with bot_match_list_page, the API with MatchFilter."""
    for bot in [*world["bots"], world["draft"]]:
        api = MatchFilter({"bot": str(bot.pk)}, queryset=match_list_page()).qs
        assert list(bot_match_list_page(bot_id=bot.pk)) == list(api)
    assert list(bot_match_list_page(bot_id=world["bots"][1].pk)), "the world's bots played"


def test_match_page_shows_seats_ranks_forfeit_and_links_the_replay(world: dict[str, Any]) -> None:
    match = world["matches"][1]
    replay = Replay.objects.get(match=match)
    html = _get(Client(), f"/matches/{match.pk}/")
    assert f'href="/viewer/replays/{replay.pk}/"' in html
    assert f'href="/viewer/replays/{replay.pk}/#step=7"' in html  # the forfeit's step
    assert "action 3 is not legal" in html  # the forfeit's detail
    assert str(match.seed) in html  # finished: the seed is public
    assert SECRET_LOG not in html


def test_tournament_page_shows_standings_and_pairings(world: dict[str, Any]) -> None:
    tournament = world["tournament"]
    html = _get(Client(), f"/tournaments/{tournament.pk}/")
    assert "Round 1" in html
    assert "Round 3" in html
    for bot in world["bots"]:
        assert f'href="/bots/{bot.pk}/"' in html
    assert html.count('href="/matches/') == tournament.matches.count()


def test_viewer_index_links_every_replay(world: dict[str, Any]) -> None:
    html = _get(Client(), "/viewer/")
    for replay in Replay.objects.all():
        assert f'href="/viewer/replays/{replay.pk}/"' in html


@pytest.mark.parametrize(
    "path",
    [
        "/bots/987654/",
        "/ladders/nope/",
        f"/matches/{uuid.UUID(int=5)}/",
        "/tournaments/987654/",
        "/viewer/?page=2",
        "/no/such/page/",
    ],
)
def test_unknown_objects_are_404_pages(world: dict[str, Any], path: str) -> None:
    html = _get(Client(), path, status=404)
    assert "404" in html


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/ladders/duel/?order=bogus", "order must be one of elo, conservative"),
        ("/ladders/duel/?page=0", "page must be an integer from 1 to 10000"),
        ("/ladders/duel/?page=abc", "page must be an integer from 1 to 10000"),
        ("/ladders/duel/?page=1&page=2", "page must be given once"),
        ("/?utm=1", "unknown query parameter utm; allowed: none"),
        ("/viewer/?sort=new", "unknown query parameter sort; allowed: page"),
        ("/bots/99999999999999999999/", "bot_id in the path must be an integer from 1 to"),
    ],
)
def test_bad_parameters_are_400_pages_naming_what_is_allowed(
    world: dict[str, Any], path: str, said: str
) -> None:
    assert said in _get(Client(), path, status=400)


def test_the_api_still_answers_json_for_its_bad_parameters(world: dict[str, Any]) -> None:
    response = Client().get("/api/v1/ladders/duel/leaderboard/?utm=1")
    assert response.status_code == 400
    assert response.json()["details"]["unknown"] == ["utm"]


def test_private_things_are_not_shown(world: dict[str, Any]) -> None:
    draft = world["draft"]
    carol, bob = world["users"]["carol"], world["users"]["bob"]
    _get(Client(), f"/bots/{draft.pk}/", status=404)
    other = Client()
    other.force_login(bob)
    _get(other, f"/bots/{draft.pk}/", status=404)
    owner = Client()
    owner.force_login(carol)
    assert SECRET_REJECTION in _get(owner, f"/bots/{draft.pk}/")
    # The qualification match is public, but names the unqualified bot without a link.
    qualification = BotVersion.objects.get(bot=draft).qualification_match
    assert qualification is not None
    html = _get(Client(), f"/matches/{qualification.pk}/")
    assert "carol/draft" in html
    assert f'href="/bots/{draft.pk}/"' not in html
    gamma_seat = world["matches"][1].seats.get(seat=1)
    assert access_seat_log(user=carol, match_id=gamma_seat.match_id, seat=1)[1] == SECRET_LOG
    gamma_match = f"/matches/{gamma_seat.match_id}/"
    for page in ("/", "/viewer/", f"/bots/{world['bots'][2].pk}/", gamma_match):
        assert SECRET_LOG not in _get(owner, page)


def _signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_upload_creates_a_bot_and_its_version_and_queues_qualification(
    world: dict[str, Any], sent_tasks: list[dict[str, Any]]
) -> None:
    client = _signed_in(world["users"]["bob"])
    assert "Upload a bot" in _get(client, "/bots/upload/")
    file = SimpleUploadedFile("newbie.py", b"print('hello')\n")
    response = client.post("/bots/upload/", {"bot": "new", "name": "newbie", "file": file})
    bot = Bot.objects.get(owner=world["users"]["bob"], name="newbie")
    assert response.status_code == 302
    assert response["Location"] == f"/bots/{bot.pk}/"
    version = BotVersion.objects.get(bot=bot)
    assert version.status == BotVersion.Status.QUALIFYING
    assert version.filename == "newbie.py"
    assert "Version 1 of newbie uploaded" in _get(client, f"/bots/{bot.pk}/")


def test_a_refused_upload_shows_the_apis_reason_and_creates_nothing(
    world: dict[str, Any], sent_tasks: list[dict[str, Any]]
) -> None:
    bob = world["users"]["bob"]
    client = _signed_in(bob)
    bad = b"def main(:\n"
    api = Client()
    api.force_login(bob)
    beta = world["bots"][1]
    api_answer = api.post(
        f"/api/v1/bots/{beta.pk}/versions/", {"file": SimpleUploadedFile("x.py", bad)}
    )
    assert api_answer.status_code == 400
    before = (Bot.objects.count(), BotVersion.objects.count())
    file = SimpleUploadedFile("x.py", bad)
    response = client.post("/bots/upload/", {"bot": "new", "name": "broken", "file": file})
    assert response.status_code == 400
    assert api_answer.json()["message"] in response.content.decode()
    assert (Bot.objects.count(), BotVersion.objects.count()) == before


def test_upload_form_errors_name_the_field(world: dict[str, Any]) -> None:
    client = _signed_in(world["users"]["bob"])
    file = SimpleUploadedFile("ok.py", b"print(1)\n")
    response = client.post("/bots/upload/", {"bot": "new", "name": "Bad Name", "file": file})
    assert response.status_code == 400
    assert "lower-case letters, digits" in response.content.decode()
    alpha = world["bots"][0]  # alice's: not among bob's choices
    file = SimpleUploadedFile("ok.py", b"print(1)\n")
    response = client.post("/bots/upload/", {"bot": str(alpha.pk), "file": file})
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()


def test_upload_needs_sign_in_and_a_csrf_token(world: dict[str, Any]) -> None:
    response = Client().get("/bots/upload/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/sign-in/?next=/bots/upload/")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(world["users"]["bob"])
    file = SimpleUploadedFile("ok.py", b"print(1)\n")
    response = strict.post("/bots/upload/", {"bot": "new", "name": "sneaky", "file": file})
    assert response.status_code == 403
    assert not Bot.objects.filter(name="sneaky").exists()


def test_sign_in_with_a_password(world: dict[str, Any]) -> None:
    client = Client()
    response = client.post(
        "/accounts/sign-in/", {"username": "alice", "password": "correct-horse-battery-9"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert "Sign out alice" in _get(client, "/")
    wrong = Client().post("/accounts/sign-in/", {"username": "alice", "password": "nope"})
    assert wrong.status_code == 200
    assert "Please enter a correct username and password" in wrong.content.decode()


def test_sign_in_attempts_count_against_the_apis_log_in_rate(world: dict[str, Any]) -> None:
    client = Client()
    wrong = {"username": "alice", "password": "wrong-password"}
    statuses = [client.post("/accounts/sign-in/", wrong).status_code for _ in range(11)]
    assert statuses == [200] * 10 + [429]
    assert "too many sign-in attempts" in client.post("/accounts/sign-in/", wrong).content.decode()
    api = Client().post(
        "/api/v1/accounts/login/",
        {"username": "alice", "password": "correct-horse-battery-9"},
        content_type="application/json",
    )
    assert api.status_code == 429  # one counter for both doors


def test_long_lists_are_paginated(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from heights_platform.site import pages

    monkeypatch.setattr(pages, "MATCHES_PAGE", 1)
    beta = world["bots"][1]
    played = Match.objects.filter(seats__bot_version__bot=beta).distinct().count()
    html = _get(Client(), f"/bots/{beta.pk}/")
    assert f"page 1 of {played}" in html
    assert 'rel="next" href="?page=2"' in html
    second = _get(Client(), f"/bots/{beta.pk}/?page=2")
    assert 'rel="prev" href="?page=1"' in second
    _get(Client(), f"/bots/{beta.pk}/?page={played + 1}", status=404)


@pytest.mark.parametrize(
    ("path", "most"),
    [
        ("/", 7),
        ("/ladders/duel/", 9),  # one more for each charted bot, at most ten
        # Its page version, the bot, its matches (counted, a page), its ladders and for
        # each one its rating window, the seats of all the matches shown, its versions.
        ("/bots/{beta}/", 8),
        ("/matches/{match}/", 5),
        ("/tournaments/{tournament}/", 14),
        ("/viewer/", 5),
    ],
)
def test_pages_read_in_a_few_queries(
    world: dict[str, Any], django_assert_max_num_queries: Any, path: str, most: int
) -> None:
    """Bounded: no query per row of a list."""
    ids = {"beta": world["bots"][1].pk, "match": world["matches"][1].pk}
    url = path.format(**ids, tournament=world["tournament"].pk)
    with django_assert_max_num_queries(most):
        _get(Client(), url)


def test_uploads_count_against_the_apis_upload_rate(
    world: dict[str, Any], sent_tasks: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rest_framework.throttling import SimpleRateThrottle

    rates = {**SimpleRateThrottle.THROTTLE_RATES, "upload": "1/hour"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    bob, beta = world["users"]["bob"], world["bots"][1]
    client = _signed_in(bob)
    file = SimpleUploadedFile("one.py", b"print(1)\n")
    assert client.post("/bots/upload/", {"bot": str(beta.pk), "file": file}).status_code == 302
    file = SimpleUploadedFile("two.py", b"print(2)\n")
    response = client.post("/bots/upload/", {"bot": str(beta.pk), "file": file})
    assert response.status_code == 429
    assert "too many uploads" in response.content.decode()
    api = Client()
    api.force_login(bob)
    answer = api.post(
        f"/api/v1/bots/{beta.pk}/versions/", {"file": SimpleUploadedFile("x.py", b"print(3)\n")}
    )
    assert answer.status_code == 429  # one counter for both doors
    uploaded = BotVersion.objects.filter(bot=beta).order_by("number")
    assert list(uploaded.values_list("filename", flat=True)) == ["bot.py", "one.py"]
