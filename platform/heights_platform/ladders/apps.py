from __future__ import annotations

from django.apps import AppConfig


class LaddersConfig(AppConfig):
    name = "heights_platform.ladders"
    label = "ladders"

    def ready(self) -> None:
        # Ladders react to the apps below them; those know nothing of ladders.
        from heights_platform.bots.signals import version_activated
        from heights_platform.ladders import reactions
        from heights_platform.matches.signals import match_recorded, results_recorded

        uid = "ladders.reactions"
        match_recorded.connect(reactions.ladder_match_recorded, dispatch_uid=uid)
        results_recorded.connect(reactions.ladder_results_recorded, dispatch_uid=uid)
        version_activated.connect(reactions.ladder_entries_refresh, dispatch_uid=uid)
