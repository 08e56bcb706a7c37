"""A seed, and everything that reveals it, is shown once every match on it has ended.

A duplicate tournament plays each table's rotations on one secret seed: the replay of a
finished rotation, with that seed, is the deal (deck order, every die) of its siblings.
So the API (match detail and list, replay list, detail, download, steps, verify) and
the site's pages show a finished rotation as they show an unfinished match until the
last rotation on its seed has ended (finished or failed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from heights_platform.bots.models import Bot
from heights_platform.matches.models import Match
from heights_platform.matches.services import match_mark_running, match_result_record, seed_draw
from heights_platform.replays.models import Replay
from heights_platform.tournaments.models import Tournament
from heights_platform.tournaments.services import tournament_entry_register, tournament_start
from heights_runner.contract import MatchResult


def _duplicate_tournament(
    make_user: Callable[..., User], make_active_bot: Callable[..., Bot]
) -> list[Match]:
    staff = make_user("organiser")
    staff.is_staff = True
    staff.save()
    now = timezone.now()
    tournament = Tournament.objects.create(
        owner=staff,
        name="cup",
        format=Tournament.Format.ROUND_ROBIN,
        players=2,
        options={"round_cap": 2},
        duplicate=True,
        seed=seed_draw(),
        registration_opens_at=now,
        registration_closes_at=now + timedelta(hours=1),
    )
    for name in ("alice", "bob"):
        bot = make_active_bot(make_user(name))
        tournament_entry_register(tournament=tournament, bot=bot, user=staff)
    tournament_start(tournament=tournament, user=staff)
    rotations = list(Match.objects.filter(tournament=tournament).order_by("created_at"))
    assert len(rotations) == 2
    assert len({m.seed for m in rotations}) == 1
    assert len({m.duplicate_group for m in rotations}) == 1
    return rotations


def _tournament_row(api: APIClient, match: Match) -> dict[str, Any]:
    rounds = api.get(f"/api/v1/tournaments/{match.tournament_id}/matches/").json()
    rows: list[dict[str, Any]] = [m for r in rounds for m in r["matches"]]
    (row,) = [m for m in rows if m["id"] == str(match.pk)]
    return row


def _withheld(api: APIClient, site: Client, match: Match, replay: Replay, remain: int) -> None:
    assert _tournament_row(api, match)["seed"] is None
    detail = api.get(f"/api/v1/matches/{match.pk}/").json()
    assert detail["status"] == "finished"
    assert detail["seed"] is None
    assert detail["replay"] is None
    assert detail["seed_commitment"] == match.seed_commitment
    listed = api.get("/api/v1/matches/").json()["results"]
    (row,) = [r for r in listed if r["id"] == str(match.pk)]
    assert row["seed"] is None
    assert row["replay"] is None
    assert api.get("/api/v1/replays/").json()["results"] == []
    for path in ("", "download/", "steps/0/", "verify/"):
        response = api.get(f"/api/v1/replays/{replay.pk}/{path}")
        assert response.status_code == 404, (path, response.status_code)
        body = response.json()
        assert body["code"] == "not_found"
        assert f"{remain} other match" in body["message"], body["message"]
        assert "same deal" in body["message"], body["message"]
    page = site.get(f"/matches/{match.pk}/").content.decode()
    assert str(match.seed) not in page
    assert f"/viewer/replays/{replay.pk}/" not in page
    assert match.seed_commitment in page
    index = site.get("/viewer/").content.decode()
    assert f"/viewer/replays/{replay.pk}/" not in index


def _shown(api: APIClient, site: Client, match: Match, replay: Replay) -> None:
    assert _tournament_row(api, match)["seed"] == match.seed
    detail = api.get(f"/api/v1/matches/{match.pk}/").json()
    assert detail["seed"] == match.seed
    assert detail["replay"] == replay.pk
    listed = api.get("/api/v1/matches/").json()["results"]
    (row,) = [r for r in listed if r["id"] == str(match.pk)]
    assert row["seed"] == match.seed
    assert row["replay"] == replay.pk
    assert replay.pk in [r["id"] for r in api.get("/api/v1/replays/").json()["results"]]
    for path in ("", "download/", "steps/0/", "verify/"):
        response = api.get(f"/api/v1/replays/{replay.pk}/{path}")
        assert response.status_code == 200, (path, response.status_code)
    assert api.get(f"/api/v1/replays/{replay.pk}/").json()["seed_text"] == str(match.seed)
    page = site.get(f"/matches/{match.pk}/").content.decode()
    assert str(match.seed) in page
    assert f"/viewer/replays/{replay.pk}/" in page
    assert f"/viewer/replays/{replay.pk}/" in site.get("/viewer/").content.decode()


def test_a_finished_rotation_is_withheld_until_its_siblings_end(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    sent_tasks: list[dict[str, Any]],
) -> None:
    first, second = _duplicate_tournament(make_user, make_active_bot)
    api, site = APIClient(), Client()

    match_result_record(result=play_result(first))
    first.refresh_from_db()
    replay = Replay.objects.get(match=first)
    _withheld(api, site, first, replay, remain=1)  # the sibling is queued

    assert match_mark_running(match_id=str(second.pk))
    _withheld(api, site, first, replay, remain=1)  # ... and running

    match_result_record(result=play_result(second))
    _shown(api, site, first, replay)
    _shown(api, site, second, Replay.objects.get(match=second))


def test_a_failed_sibling_ends_the_deal(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    sent_tasks: list[dict[str, Any]],
) -> None:
    first, second = _duplicate_tournament(make_user, make_active_bot)
    api, site = APIClient(), Client()
    match_result_record(result=play_result(first))
    replay = Replay.objects.get(match=first)
    _withheld(api, site, first, replay, remain=1)

    failure = replace(play_result(second), status="failed", error="engine down")
    assert match_result_record(result=failure) is not None
    _shown(api, site, first, replay)
    detail = api.get(f"/api/v1/matches/{second.pk}/").json()
    assert detail["seed"] is None  # a failed match shows no seed, as before


def test_a_bots_log_of_a_finished_rotation_waits_for_its_siblings(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    client_for: Callable[[User], APIClient],
    sent_tasks: list[dict[str, Any]],
) -> None:
    """What a bot wrote in one rotation (its observations: the markets, its dice) is of
    the deal its siblings still play: its owner reads it once they have ended."""
    first, second = _duplicate_tournament(make_user, make_active_bot)
    result = play_result(first)
    seats = tuple(replace(s, log=f"seat {s.seat} saw the markets\n") for s in result.seats)
    match_result_record(result=replace(result, seats=seats))
    seat = first.seats.select_related("bot_version__bot__owner").get(seat=0)
    owner = client_for(seat.bot_version.bot.owner)
    url = f"/api/v1/matches/{first.pk}/seats/0/log/"

    withheld = owner.get(url)
    assert withheld.status_code == 200
    assert withheld.json()["status"] == "finished"
    assert withheld.json()["log"] == ""
    assert withheld.json()["withheld"] == (
        f"the bot's log of match {first.pk} is withheld until the 1 other match on the "
        "same deal (its seed) has ended"
    )

    match_result_record(result=play_result(second))
    shown = owner.get(url).json()
    assert (shown["log"], shown["withheld"]) == ("seat 0 saw the markets\n", "")


def test_a_forfeit_detail_of_a_finished_rotation_waits_for_its_siblings(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    sent_tasks: list[dict[str, Any]],
    committed: Callable[[], Any],
) -> None:
    """A crash's forfeit detail quotes the bot's last stderr line, public: what it wrote
    of the deal (its dice, the markets) waits for the siblings, as its log does."""
    first, second = _duplicate_tournament(make_user, make_active_bot)
    words = "last words: my dice were 3 and 5"
    result = play_result(first, forfeit_seat=0)
    seats = tuple(
        replace(s, forfeit=replace(s.forfeit, detail=words)) if s.forfeit else s
        for s in result.seats
    )
    with committed():  # the bots' cached match lists are bumped once a result commits
        match_result_record(result=replace(result, seats=seats))
    api, site = APIClient(), Client()

    def details() -> list[str]:
        detail = api.get(f"/api/v1/matches/{first.pk}/").json()
        listed = api.get("/api/v1/matches/").json()["results"]
        (row,) = [r for r in listed if r["id"] == str(first.pk)]
        bot = first.seats.get(seat=0).bot_version.bot_id
        by_bot = api.get(f"/api/v1/matches/?bot={bot}").json()["results"]
        (mine,) = [r for r in by_bot if r["id"] == str(first.pk)]
        return [
            seats[0]["forfeit"]["detail"]
            for seats in (detail["seats"], row["seats"], mine["seats"])
        ]

    assert details() == ["", "", ""]
    assert api.get(f"/api/v1/matches/{first.pk}/").json()["seats"][0]["forfeit"]["reason"]
    assert words not in site.get(f"/matches/{first.pk}/").content.decode()
    assert words not in site.get("/").content.decode()

    with committed():
        match_result_record(result=play_result(second))
    assert details() == [words, words, words]
    assert words in site.get(f"/matches/{first.pk}/").content.decode()
    replay = Replay.objects.get(match=first)
    shown = api.get(f"/api/v1/replays/{replay.pk}/").json()["seats"][0]["forfeit"]["detail"]
    assert shown == words
