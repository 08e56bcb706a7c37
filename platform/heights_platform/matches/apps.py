from __future__ import annotations

from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "heights_platform.matches"
    label = "matches"
