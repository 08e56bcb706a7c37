"""`manage.py ladder_ratings SLUG [--recompute]`: rate a ladder's results in one batch."""

from __future__ import annotations

import time
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from heights_platform.ladders.selectors import access_ladder_by_slug
from heights_platform.ladders.services import ladder_ratings_recompute, ratings_apply_pending


class Command(BaseCommand):
    help = (
        "Rate the ladder's finished matches not rated yet, in match order, in one "
        "transaction; --recompute rates its whole history again from the start."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--recompute", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        ladder = access_ladder_by_slug(slug=options["slug"])
        start = time.perf_counter()
        if options["recompute"]:
            rated = ladder_ratings_recompute(ladder=ladder)
        else:
            rated = ratings_apply_pending(ladder=ladder)
        seconds = time.perf_counter() - start
        self.stdout.write(f"{ladder.slug}: {rated} match(es) rated in {seconds:.2f} s")
