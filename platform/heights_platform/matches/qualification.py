"""Qualification: a new bot version's first game, against the built-in random bot.

The bots app asks for one when a version is uploaded (`bots.signals.version_uploaded`)
and learns the verdict through `bot_version_qualification_finished`; the matches app
plays it and reads its result (`signals.match_recorded`). Both receivers are joined in
`MatchesConfig.ready`.
"""

from __future__ import annotations

import logging
from typing import Any

from heights_platform.bots.models import BotVersion
from heights_platform.bots.services import (
    bot_version_qualification_finished,
    builtin_bots_ensure,
)
from heights_platform.matches.creation import match_create
from heights_platform.matches.models import Match, MatchSeat
from heights_runner.contract import INFRASTRUCTURE_FAILURE

log = logging.getLogger(__name__)


def match_create_for_qualification(*, version: BotVersion) -> Match:
    """A 2-player game of `version` (seat 0) against the built-in random bot (seat 1)."""
    opponent = builtin_bots_ensure()["random"]
    return match_create(
        kind=Match.Kind.QUALIFICATION,
        seats=[version, opponent],
        players=2,
        options={},
        created_by=version.bot.owner,
    )


def qualification_start(*, version: BotVersion, **_: Any) -> None:
    """Receiver of `version_uploaded`: the version's qualification match, in the upload's
    transaction (enqueued once it commits)."""
    match = match_create_for_qualification(version=version)
    BotVersion.objects.filter(pk=version.pk).update(qualification_match=match)
    version.qualification_match = match


def qualification_recorded(*, match: Match, **_: Any) -> None:
    """Receiver of `match_recorded`: a qualification's verdict for its version."""
    if match.kind == Match.Kind.QUALIFICATION:
        _qualification_finished(match=match)


# An infrastructure failure is never the bot's: its qualification is played again, up to
# this many times in all, before the version is turned down (with the failure named).
QUALIFICATION_ATTEMPTS = 3


def _qualification_finished(*, match: Match) -> None:
    seat = MatchSeat.objects.select_related("bot_version").get(match=match, seat=0)
    if match.status != Match.Status.FINISHED and _qualification_again(match=match, seat=seat):
        return
    if match.status != Match.Status.FINISHED:
        passed, error = False, f"the qualification game failed: {match.error}"
    elif seat.forfeit_reason:
        passed = False
        error = f"forfeit ({seat.forfeit_reason}) at step {seat.forfeit_step}: "
        error += seat.forfeit_detail
    else:
        passed, error = True, ""
    bot_version_qualification_finished(
        version=seat.bot_version, match=match, passed=passed, error=error
    )


def _qualification_again(*, match: Match, seat: MatchSeat) -> bool:
    """After an infrastructure failure, a new qualification match (while attempts last)."""
    if not match.error.startswith(INFRASTRUCTURE_FAILURE):
        return False
    failed = Match.objects.filter(
        kind=Match.Kind.QUALIFICATION,
        status=Match.Status.FAILED,
        seats__seat=0,
        seats__bot_version=seat.bot_version,
    ).count()
    if failed >= QUALIFICATION_ATTEMPTS:
        return False
    version = seat.bot_version
    if version.status != BotVersion.Status.QUALIFYING or version.qualification_match_id not in (
        None,
        match.pk,
    ):
        return False  # decided already, or another qualification stands: nothing to redo
    log.warning("qualification match %s failed (%s); playing it again", match.pk, match.error)
    again = match_create_for_qualification(version=version)
    # The version's result now comes from the new match (a result of the old is stale).
    BotVersion.objects.filter(pk=version.pk).update(qualification_match=again)
    return True
