from __future__ import annotations

from django.apps import AppConfig


class ReplaysConfig(AppConfig):
    name = "heights_platform.replays"
    label = "replays"

    def ready(self) -> None:
        # The replays app keeps what the matches app records; matches knows nothing of it.
        from heights_platform.matches.signals import replay_received
        from heights_platform.replays import reactions

        replay_received.connect(reactions.replay_prepare, dispatch_uid="replays.reactions")
