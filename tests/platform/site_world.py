"""A small arena for the site's page tests, made through the services the API uses.

Three users with a qualified bot each on a two-player ladder, two ladder matches (the
second with a forfeit and a seat log), a round-robin tournament with its first round
played, and carol's `draft`, whose only version failed qualification (private).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.bots.services import (
    bot_create,
    bot_version_create,
    bot_version_qualification_finished,
)
from heights_platform.ladders.services import ladder_create, ladder_join
from heights_platform.matches.models import Match
from heights_platform.matches.services import match_create, match_result_record
from heights_platform.tournaments.services import (
    tournament_create,
    tournament_entry_register,
    tournament_start,
)
from heights_runner.contract import MatchResult

SECRET_LOG = "gamma private stderr line"
SECRET_REJECTION = "Traceback: the private rejection of draft"


def _version(bot: Bot) -> BotVersion:
    assert isinstance(bot.active_version, BotVersion)
    return bot.active_version


def _ladder_matches(bots: list[Bot], play: Callable[..., MatchResult]) -> list[Match]:
    ladder = ladder_create(slug="duel", name="Duel", players=2)
    for bot in bots:
        ladder_join(ladder=ladder, bot=bot)
    alpha, beta, gamma = (_version(b) for b in bots)
    first = match_create(
        kind="ladder", seats=[alpha, beta], players=2, options={}, ladder=ladder, seed=4242
    )
    match_result_record(result=play(first, ranks=[1, 2]))
    second = match_create(
        kind="ladder", seats=[beta, gamma], players=2, options={}, ladder=ladder, seed=77
    )
    result = play(second, forfeit_seat=1)
    logs = ["", SECRET_LOG]
    seats = tuple(
        dataclasses.replace(s, log=log) for s, log in zip(result.seats, logs, strict=True)
    )
    match_result_record(result=dataclasses.replace(result, seats=seats))
    return [first, second]


def _tournament(owner: User, bots: list[Bot], play: Callable[..., MatchResult]) -> Any:
    now = timezone.now()
    tournament = tournament_create(
        owner=owner,
        name="Spring Cup",
        format="round_robin",
        players=2,
        registration_opens_at=now - timedelta(hours=1),
        registration_closes_at=now + timedelta(hours=1),
        seed=11,
        rated=False,  # a chosen seed is for unrated play only
    )
    for bot in bots:
        tournament_entry_register(tournament=tournament, bot=bot, user=bot.owner)
    tournament_start(tournament=tournament, user=owner)
    for match in Match.objects.filter(tournament=tournament, tournament_round=1):
        match_result_record(result=play(match))
    return tournament


def site_world_create(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play: Callable[..., MatchResult],
) -> dict[str, Any]:
    users = {name: make_user(name) for name in ("alice", "bob", "carol")}
    bots = [
        make_active_bot(users["alice"], "alpha"),
        make_active_bot(users["bob"], "beta"),
        make_active_bot(users["carol"], "gamma"),
    ]
    matches = _ladder_matches(bots, play)
    tournament = _tournament(users["alice"], bots, play)
    draft = bot_create(owner=users["carol"], name="draft")
    version = bot_version_create(bot=draft, filename="draft.py", content=b"print('hi')\n")
    assert version.qualification_match is not None
    bot_version_qualification_finished(
        version=version, match=version.qualification_match, passed=False, error=SECRET_REJECTION
    )
    return {
        "users": users,
        "bots": bots,
        "matches": matches,
        "tournament": tournament,
        "draft": draft,
    }
