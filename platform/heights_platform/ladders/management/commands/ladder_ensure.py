"""`manage.py ladder_ensure SLUG`: a ladder that exists afterwards, with bots entered.

Idempotent: an existing ladder is kept as it is (its players and options are not
changed), and a bot already on it stays. `make up` opens one with the built-in bots so
that a bot author's entry has opponents without a staff account.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from heights_platform.bots.models import Bot
from heights_platform.common.errors import ApiError
from heights_platform.ladders.models import Ladder
from heights_platform.ladders.services import ladder_create, ladder_join


class Command(BaseCommand):
    help = "Create a ladder unless it exists, and enter bots in it (owner/name)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--name", default="", help="shown name (default: the slug)")
        parser.add_argument("--players", type=int, default=2, help="2 to 4 (default 2)")
        parser.add_argument("--enter", nargs="*", default=[], metavar="OWNER/BOT")

    def handle(self, *args: Any, **options: Any) -> None:
        slug: str = options["slug"]
        try:
            ladder = Ladder.objects.filter(slug=slug).first()
            if ladder is None:
                ladder = ladder_create(
                    slug=slug, name=options["name"] or slug, players=options["players"]
                )
                self.stdout.write(f"ladder {slug}: created ({ladder.players} players)")
            if not ladder.is_active:  # staff closed it: left closed, and nobody enters
                self.stdout.write(f"ladder {slug}: closed, left as it is")
                return
            for label in options["enter"]:
                owner, _, name = label.partition("/")
                bot = Bot.objects.filter(owner__username=owner, name=name).first()
                if bot is None:
                    raise CommandError(f"no bot {label!r}")
                _, created = ladder_join(ladder=ladder, bot=bot)
                self.stdout.write(f"ladder {slug}: {label} {'entered' if created else 'was on it'}")
        except ApiError as err:
            raise CommandError(f"ladder {slug}: {err.message}") from None
