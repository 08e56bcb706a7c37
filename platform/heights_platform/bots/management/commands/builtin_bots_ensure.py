"""`manage.py builtin_bots_ensure`: create the arena user and its built-in bots (idempotent)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from heights_platform.bots.services import builtin_bots_ensure


class Command(BaseCommand):
    help = "Create the `arena` user and its built-in bots, each with one active version."

    def handle(self, *args: Any, **options: Any) -> None:
        for name, version in builtin_bots_ensure().items():
            self.stdout.write(f"{name}: {version} ({version.status})")
