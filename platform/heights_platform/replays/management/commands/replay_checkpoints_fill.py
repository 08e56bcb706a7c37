"""`manage.py replay_checkpoints_fill`: checkpoints for replays recorded without them."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from heights_platform.replays.services import replay_checkpoints_fill


class Command(BaseCommand):
    help = "Store step checkpoints for replays that have none (idempotent)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--limit", type=int, default=None, help="at most this many replays")

    def handle(self, *args: Any, **options: Any) -> None:
        filled = replay_checkpoints_fill(limit=options["limit"])
        self.stdout.write(f"checkpoints stored for {filled} replay(s)")
