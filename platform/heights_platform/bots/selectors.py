"""Reads of the bots app; `access_*` is the only way to fetch a protected object.

Bots and versions' metadata are public. A version's source and its rejection text are
the owner's (and staff's): to anyone else the source does not exist (404, not 403, so
that the answer is the same whether or not the version has readable source).
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from heights_platform.bots.models import Bot, BotPageVersion, BotVersion
from heights_platform.common.errors import ApiError

AnyUser = User | AnonymousUser


def bot_list(
    *, owner: str | None = None, name: str | None = None, active: bool | None = None
) -> QuerySet[Bot]:
    """Bots, newest first; `owner` and `name` match case-insensitively."""
    # The active version's source (up to 1 MB) is never part of a bot's public metadata.
    queryset = (
        Bot.objects.select_related("owner", "active_version")
        .defer("active_version__content")
        .order_by("-created_at")
    )
    if owner:
        queryset = queryset.filter(owner__username__iexact=owner)
    if name:
        queryset = queryset.filter(name__iexact=name)
    if active is not None:
        queryset = queryset.filter(active_version__isnull=not active)
    return queryset


def access_bot_by_id(*, bot_id: int) -> Bot:
    bot = (
        Bot.objects.select_related("owner", "active_version")
        .defer("active_version__content")
        .filter(pk=bot_id)
        .first()
    )
    if bot is None:
        raise ApiError("not_found", "no such bot")
    return bot


def bot_page_version(*, bot_id: int) -> int:
    """The version of what the bot's page shows (`BotPageVersion`; 0 before its first
    bump, and for an unknown bot). One primary-key lookup."""
    found = BotPageVersion.objects.filter(bot_id=bot_id).values_list("version", flat=True)
    return next(iter(found), 0)


def bots_played_with(*, bot: Bot) -> list[int]:
    """The ids of the bots that played a match with `bot` (its own too, if it played):
    their pages show its seats, with its name, owner and link."""
    seated = Bot.objects.filter(versions__seats__match__seats__bot_version__bot_id=bot.pk)
    return list(seated.values_list("pk", flat=True).distinct())


def access_bot_for_owner_by_id(*, user: AnyUser, bot_id: int) -> Bot:
    """A bot its owner may change: anyone else gets 403 (the bot itself is public)."""
    bot = access_bot_by_id(bot_id=bot_id)
    if bot.owner_id != user.pk:
        raise ApiError("permission_denied", "only the bot's owner may change it")
    return bot


def access_bot_for_entry_by_id(*, user: AnyUser, bot_id: int) -> Bot:
    """A bot `user` may enter in a ladder: their own, or any bot for staff (the arena's
    built-in bots are owned by the system user and entered by staff)."""
    bot = access_bot_by_id(bot_id=bot_id)
    if bot.owner_id != user.pk and not user.is_staff:
        raise ApiError("permission_denied", "only the bot's owner (or staff) may enter it")
    return bot


def bot_private_visible(*, user: AnyUser, bot: Bot) -> bool:
    """Whether `user` may read the bot's sources and its versions' rejection texts."""
    return bool(user.is_authenticated and (bot.owner_id == user.pk or user.is_staff))


def bot_version_list(*, bot: Bot) -> QuerySet[BotVersion]:
    """Newest first; without the content, which listings never need."""
    return BotVersion.objects.filter(bot=bot).defer("content").order_by("-number")


def access_bot_version_by_number(*, bot: Bot, number: int) -> BotVersion:
    version = bot_version_list(bot=bot).filter(number=number).first()
    if version is None:
        raise ApiError("not_found", f"bot {bot.name!r} has no version {number}")
    return version


def access_bot_version_source_by_number(*, user: AnyUser, bot_id: int, number: int) -> BotVersion:
    """A version with its content, for its owner or staff; anyone else gets 404."""
    bot = access_bot_by_id(bot_id=bot_id)
    version = BotVersion.objects.filter(bot=bot, number=number).first()
    if (
        version is None
        or not bot_private_visible(user=user, bot=bot)
        or version.kind == BotVersion.Kind.BUILTIN
    ):
        raise ApiError("not_found", "no such source")
    return version
