from __future__ import annotations

from django.apps import AppConfig


class ReplaysConfig(AppConfig):
    name = "heights_platform.replays"
    label = "replays"
