from __future__ import annotations

from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "heights_platform.bots"
    label = "bots"
