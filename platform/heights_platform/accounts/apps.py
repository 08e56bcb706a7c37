from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "heights_platform.accounts"
    label = "accounts"

    def ready(self) -> None:
        from heights_platform.accounts import schema  # noqa: F401  (registers the extension)
