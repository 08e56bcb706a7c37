from __future__ import annotations

from django.apps import AppConfig


class ViewerConfig(AppConfig):
    name = "heights_platform.viewer"
    label = "viewer"
