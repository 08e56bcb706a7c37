from __future__ import annotations

from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "heights_platform.matches"
    label = "matches"

    def ready(self) -> None:
        # Qualification games are matches' own: started when the bots app reports an
        # upload, judged when their result is recorded.
        from heights_platform.bots.signals import version_uploaded
        from heights_platform.matches.qualification import (
            qualification_recorded,
            qualification_start,
        )
        from heights_platform.matches.signals import match_recorded

        version_uploaded.connect(qualification_start, dispatch_uid="matches.qualification")
        match_recorded.connect(qualification_recorded, dispatch_uid="matches.qualification")
