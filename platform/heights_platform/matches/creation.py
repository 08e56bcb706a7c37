"""Creating matches: checked arguments, one transaction, enqueued after commit.

A match and its seats are created in one transaction; the `MatchSpec` is sent to the
runner (`matches.sending`) only once that transaction commits. A seed chosen by a
person (`seed_chosen`) is for unrated play only: a ladder match refuses one.
`options_check` is the platform's one check of rule options and catalogue, here, in the
lowest app that takes them; ladders and tournaments call it too.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from heights_platform.bots.models import BotVersion
from heights_platform.bots.services import bot_pages_changed
from heights_platform.common.errors import ApiError
from heights_platform.matches.models import Match, MatchSeat
from heights_platform.matches.seeds import SEED_BITS, SEED_LIMIT, seed_commitment, seed_draw
from heights_platform.matches.sending import match_enqueue
from heights_rules import DEFAULT_CATALOGUE, RuleOptionError, load_catalogue, validate_options

MIN_PLAYERS, MAX_PLAYERS = 2, 4


def match_create(
    *,
    kind: str,
    seats: Sequence[BotVersion],
    players: int,
    options: dict[str, Any],
    catalogue: str = DEFAULT_CATALOGUE,
    ladder: Any = None,
    tournament: Any = None,
    tournament_round: int | None = None,
    duplicate_group: uuid.UUID | None = None,
    seed: int | None = None,
    seed_chosen: bool = False,
    created_by: User | None = None,
) -> Match:
    """Create a match and its seats (seat i plays `seats[i]`); enqueue it after commit.

    `seed`: a secret draw of the caller's (`seed_draw`), or one a person chose
    (`seed_chosen`, refused for ladder matches); drawn here when omitted."""
    if kind not in Match.Kind.values:
        raise ApiError("invalid", f"unknown match kind {kind!r}")
    if len(seats) != players:
        raise ApiError("invalid", f"{players} player(s) need {players} seat(s), got {len(seats)}")
    solo = players == 1
    if not solo and not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ApiError("invalid", "a match has 2 to 4 players (or 1 in solo)")
    if seed_chosen and (seed is None or kind == Match.Kind.LADDER):
        message = "a seed may be chosen only for unrated play; ladder seeds are secret draws"
        raise ApiError("invalid", message, {"fields": {"seed": [message]}})
    if seed is None:
        seed = seed_draw()
    elif not 0 <= seed < SEED_LIMIT:
        message = f"a seed is an integer in [0, 2**{SEED_BITS}), not {seed}"
        raise ApiError("invalid", message, {"fields": {"seed": [message]}})
    with transaction.atomic():
        match = Match.objects.create(
            kind=kind,
            ladder=ladder,
            tournament=tournament,
            tournament_round=tournament_round,
            duplicate_group=duplicate_group,
            created_by=created_by,
            players=players,
            solo=solo,
            options=dict(options),
            catalogue=catalogue,
            seed=seed,
            seed_commitment=seed_commitment(seed),
            seed_chosen=seed_chosen,
        )
        MatchSeat.objects.bulk_create(
            [MatchSeat(match=match, seat=i, bot_version=v) for i, v in enumerate(seats)]
        )
        bot_pages_changed(bot_ids=[v.bot_id for v in seats])  # their pages list it
        # robust: a broker outage must not undo or fail the caller's request; the match
        # stays queued (logged) and can be re-sent with `match_enqueue`.
        transaction.on_commit(lambda: match_enqueue(match=match), robust=True)
    return match


def options_check(*, options: dict[str, Any], catalogue: str) -> None:
    """400 `invalid` unless the rule options validate (`heights_rules.validate_options`,
    the engine's own check: details name the option and what it allows) and the
    catalogue is known. Every service that takes options calls it before writing."""

    try:
        validate_options(options)
    except RuleOptionError as err:
        message = f"invalid rule options: {err}"
        details = {"fields": {"options": [message]}, "option": err.option, "allowed": err.allowed}
        raise ApiError("invalid", message, details) from None
    try:
        load_catalogue(catalogue)
    except (ValueError, KeyError, OSError) as err:
        message = f"unknown catalogue {catalogue!r}: {err}"
        raise ApiError("invalid", message, {"fields": {"catalogue": [message]}}) from None


def challenge_create(
    *,
    user: User,
    bot_version: BotVersion,
    opponents: Sequence[BotVersion],
    options: dict[str, Any] | None = None,
    catalogue: str = DEFAULT_CATALOGUE,
    seed: int | None = None,
) -> Match:
    """An unrated match of the user's bot version (seat 0) against active opponents;
    `seed` chooses its seed (shown as chosen), else it is a secret draw."""
    if bot_version.bot.owner_id != user.pk:
        raise ApiError("permission_denied", "only the bot's owner may challenge with it")
    if bot_version.status == BotVersion.Status.REJECTED:
        raise ApiError("conflict", "a rejected version cannot play")
    inactive = [v.pk for v in opponents if v.status != BotVersion.Status.ACTIVE]
    if inactive:
        raise ApiError("conflict", "opponents must be active versions", {"versions": inactive})
    players = 1 + len(opponents)
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ApiError("invalid", "a challenge has 1 to 3 opponents")
    options_check(options=options or {}, catalogue=catalogue)
    return match_create(
        kind=Match.Kind.CHALLENGE,
        seats=[bot_version, *opponents],
        players=players,
        options=options or {},
        catalogue=catalogue,
        seed=seed,
        seed_chosen=seed is not None,
        created_by=user,
    )
