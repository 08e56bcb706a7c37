from __future__ import annotations

from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "heights_platform.tournaments"
    label = "tournaments"

    def ready(self) -> None:
        # Tournaments react to recorded results; the matches app knows nothing of them.
        from heights_platform.matches.signals import match_recorded
        from heights_platform.tournaments.reactions import tournament_match_recorded

        match_recorded.connect(tournament_match_recorded, dispatch_uid="tournaments.reactions")
