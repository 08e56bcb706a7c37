"""A seat's bot log (its stderr, kept by the runner): recorded with the result, shown
to the bot's owner and staff only, never in the public match and replay views."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.matches.models import Match, SeatLog
from heights_platform.matches.services import match_create, match_result_record
from heights_runner.contract import LOG_CUT_NOTE, LOG_JSON_BYTES, MatchResult


def _played(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    logs: tuple[str, str],
) -> tuple[Match, list[User]]:
    owners = [make_user(), make_user()]
    bots = [make_active_bot(owner) for owner in owners]
    versions: list[BotVersion] = [b.active_version for b in bots if b.active_version]
    match = match_create(kind="challenge", seats=versions, players=2, options={})
    result = play_result(match)
    seats = tuple(
        dataclasses.replace(s, log=log) for s, log in zip(result.seats, logs, strict=True)
    )
    match_result_record(result=dataclasses.replace(result, seats=seats))
    return match, owners


def _log_url(match: Match, seat: int) -> str:
    return f"/api/v1/matches/{match.pk}/seats/{seat}/log/"


def test_the_owner_reads_their_seat_log_and_nobody_else_does(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    client_for: Callable[[User], APIClient],
    api: APIClient,
) -> None:
    match, (alice, bob) = _played(
        make_user, make_active_bot, play_result, ("thinking\x00 hard\n", "bob's secret plan\n")
    )
    mine = client_for(alice).get(_log_url(match, 0))
    assert mine.status_code == 200
    assert mine.json() == {
        "match": str(match.pk),
        "seat": 0,
        "status": "finished",
        "log": "thinking\ufffd hard\n",  # PostgreSQL text takes no NUL
        "withheld": "",
    }
    assert mine["Cache-Control"] == "private, no-store"

    theirs = client_for(alice).get(_log_url(match, 1))
    assert theirs.status_code == 404
    assert theirs.json()["code"] == "not_found"
    assert api.get(_log_url(match, 1)).status_code == 404
    assert api.get(_log_url(match, 0)).status_code == 404
    assert client_for(alice).get(_log_url(match, 3)).status_code == 404  # no such seat
    out_of_range = client_for(alice).get(_log_url(match, 5))  # no game has a seat 5
    assert out_of_range.status_code == 400
    assert out_of_range.json()["details"] == {
        "in": "path",
        "field": "seat",
        "allowed": "an integer from 0 to 3",
    }

    staff = make_user()
    staff.is_staff = True
    staff.save()
    assert client_for(staff).get(_log_url(match, 1)).json()["log"] == "bob's secret plan\n"
    assert client_for(bob).get(_log_url(match, 1)).json()["log"] == "bob's secret plan\n"

    # The public views of the match never carry a log.
    for url in (f"/api/v1/matches/{match.pk}/", "/api/v1/matches/", "/api/v1/replays/"):
        page = api.get(url)
        assert page.status_code == 200
        assert "secret plan" not in json.dumps(page.json())


def test_a_bot_that_wrote_nothing_has_an_empty_log_and_a_long_one_keeps_its_end(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    client_for: Callable[[User], APIClient],
) -> None:
    # Control bytes are 6 bytes each as JSON: 120 KB, over the bound, so the start goes.
    long = "\x01" * 20_000 + "the end\n"
    match, (alice, bob) = _played(make_user, make_active_bot, play_result, ("", long))
    assert client_for(alice).get(_log_url(match, 0)).json()["log"] == ""
    kept = client_for(bob).get(_log_url(match, 1)).json()["log"]
    assert kept.startswith(LOG_CUT_NOTE)
    assert kept.endswith("\x01the end\n")
    assert len(json.dumps(kept)) <= LOG_JSON_BYTES
    assert SeatLog.objects.filter(seat__match=match).count() == 1


def test_a_log_the_runner_cut_keeps_its_note_of_what_was_dropped(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    client_for: Callable[[User], APIClient],
) -> None:
    # What the runner sends for a bot that wrote more than 64 KiB of plain text.
    runner_cut = "[4096 earlier bytes dropped]\n" + ("y" * 99 + "\n") * 655 + "y" * 36
    match, (alice, _bob) = _played(make_user, make_active_bot, play_result, (runner_cut, ""))
    assert client_for(alice).get(_log_url(match, 0)).json()["log"] == runner_cut


def test_a_queued_match_has_no_log_yet(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
) -> None:
    alice = make_user()
    bots = [make_active_bot(alice), make_active_bot(make_user())]
    versions: list[BotVersion] = [b.active_version for b in bots if b.active_version]
    match = match_create(kind="challenge", seats=versions, players=2, options={})
    reply = client_for(alice).get(_log_url(match, 0))
    assert reply.status_code == 200
    assert reply.json()["status"] == "queued"
    assert reply.json()["log"] == ""
    assert reply.json()["withheld"] == (
        f"match {match.pk} is queued: its bot's log is shown once it has finished"
    )


def test_logs_of_old_matches_are_pruned_and_the_matches_stay(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    settings: Any,
) -> None:
    from heights_platform.matches.tasks import prune_seat_logs

    settings.HEIGHTS_SEAT_LOG_DAYS = 30
    old, _ = _played(make_user, make_active_bot, play_result, ("old a", "old b"))
    recent, _ = _played(make_user, make_active_bot, play_result, ("recent", ""))
    Match.objects.filter(pk=old.pk).update(finished_at=timezone.now() - timedelta(days=31))
    assert prune_seat_logs() == 2
    assert list(SeatLog.objects.values_list("text", flat=True)) == ["recent"]
    assert Match.objects.filter(pk__in=[old.pk, recent.pk]).count() == 2
    assert prune_seat_logs() == 0


def test_a_forfeit_detail_quoting_a_nul_from_the_bots_stderr_is_recorded(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> None:
    # A crash's detail quotes the bot's last stderr line, whatever bytes it wrote: a NUL
    # there made PostgreSQL refuse the seat's row, and the forfeit was never recorded.
    bots = [make_active_bot(make_user()) for _ in range(2)]
    versions: list[BotVersion] = [b.active_version for b in bots if b.active_version]
    match = match_create(kind="challenge", seats=versions, players=2, options={})
    result = play_result(match, forfeit_seat=0)
    forfeit = result.seats[0].forfeit
    assert forfeit is not None
    crashed = dataclasses.replace(
        forfeit, reason="crash", detail="stdout closed: exited with status 1; stderr: \x00boom"
    )
    seats = (dataclasses.replace(result.seats[0], forfeit=crashed), result.seats[1])
    match_result_record(result=dataclasses.replace(result, seats=seats))
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED, match.error
    seat = match.seats.get(seat=0)
    assert seat.forfeit_reason == "crash"
    assert seat.forfeit_detail.endswith("stderr: \ufffdboom")
