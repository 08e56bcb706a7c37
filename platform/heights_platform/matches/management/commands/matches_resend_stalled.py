"""`manage.py matches_resend_stalled`: send again the matches that waited too long."""

from __future__ import annotations

from argparse import ArgumentParser
from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand

from heights_platform.matches import services


class Command(BaseCommand):
    help = (
        "Send again to the runner the matches never sent or queued for too long (beat does "
        "this every minute; harmless to repeat; running matches are the reaper's)."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        defaults = (services.RESEND_UNSENT_AFTER, services.RESEND_QUEUED_AFTER)
        for name, default in zip(("unsent", "queued"), defaults, strict=True):
            parser.add_argument(
                f"--{name}-after",
                type=float,
                default=default.total_seconds(),
                metavar="SECONDS",
                help=f"re-send {name} matches after this long (default {default})",
            )
        parser.add_argument("--limit", type=int, default=500, help="at most this many")

    def handle(self, *args: Any, **options: Any) -> None:
        sent = services.matches_resend_stalled(
            unsent_after=timedelta(seconds=options["unsent_after"]),
            queued_after=timedelta(seconds=options["queued_after"]),
            limit=options["limit"],
        )
        for match in sent:
            self.stdout.write(f"{match.pk} {match.status}")
        self.stdout.write(f"{len(sent)} match(es) sent again")
