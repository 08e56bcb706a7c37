"""The tournaments app's reaction to recorded results, joined in `TournamentsConfig.ready`."""

from __future__ import annotations

from typing import Any

from heights_platform.matches.models import Match
from heights_platform.tournaments.services import tournament_match_finished


def tournament_match_recorded(*, match: Match, **_: Any) -> None:
    """Receiver of `matches.signals.match_recorded`: a table's game is in."""
    if match.kind == Match.Kind.TOURNAMENT:
        tournament_match_finished(match=match)
