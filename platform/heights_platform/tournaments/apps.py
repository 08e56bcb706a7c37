from __future__ import annotations

from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "heights_platform.tournaments"
    label = "tournaments"
