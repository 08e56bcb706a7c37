from __future__ import annotations

from django.apps import AppConfig


class LaddersConfig(AppConfig):
    name = "heights_platform.ladders"
    label = "ladders"
