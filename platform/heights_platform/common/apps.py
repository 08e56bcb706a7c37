from __future__ import annotations

from django.apps import AppConfig


class CommonConfig(AppConfig):
    name = "heights_platform.common"
    label = "common"

    def ready(self) -> None:
        from heights_platform.common import metrics
        from heights_platform.common.converters import converters_register

        metrics.connect()
        converters_register()  # before any URLconf is loaded
