"""The ladders app's reactions to the apps below it, joined in `LaddersConfig.ready`.

A recorded ladder result is rated in the recording transaction, so ratings apply in
`finished_seq` order; a batch is rated once all of its results are in. A bot whose new
version becomes active keeps its ratings' means and gets a fresh uncertainty, so the
ladder re-learns it quickly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from heights_platform.bots.models import Bot
from heights_platform.competition.plackett_luce import DEFAULT_SIGMA
from heights_platform.ladders.models import Ladder, LadderEntry
from heights_platform.ladders.services import (
    ratings_apply,
    ratings_apply_pending,
    standings_changed,
)
from heights_platform.matches.models import Match


def _rated(match: Match) -> bool:
    return (
        match.kind == Match.Kind.LADDER
        and match.status == Match.Status.FINISHED
        and match.ladder_id is not None
    )


def ladder_match_recorded(*, match: Match, batch: bool, **_: Any) -> None:
    """Receiver of `matches.signals.match_recorded`."""
    if _rated(match) and not batch:
        ratings_apply(match=match)


def ladder_results_recorded(*, matches: Sequence[Match], **_: Any) -> None:
    """Receiver of `matches.signals.results_recorded`: each ladder's new results at once."""
    rated = {m.ladder_id for m in matches if _rated(m) and m.ladder_id is not None}
    for ladder in Ladder.objects.filter(pk__in=rated).order_by("pk"):
        ratings_apply_pending(ladder=ladder)


def ladder_entries_refresh(*, bot: Bot, **_: Any) -> None:
    """Receiver of `bots.signals.version_activated`: a fresh uncertainty on every ladder;
    the bot's leaderboards show it and the new version number."""
    LadderEntry.objects.filter(bot=bot).update(sigma=DEFAULT_SIGMA)
    ladders = LadderEntry.objects.filter(bot=bot).values_list("ladder_id", flat=True)
    standings_changed(ladder_ids=ladders)
