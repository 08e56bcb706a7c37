"""Writes of the bots app: bots, uploaded versions, qualification outcomes, built-ins."""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Iterable, Mapping
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import Max, Model

from heights_platform.bots.models import Bot, BotPageVersion, BotVersion
from heights_platform.bots.selectors import bots_played_with
from heights_platform.bots.signals import version_activated, version_uploaded
from heights_platform.common.errors import ApiError
from heights_runner.contract import (
    BUILTIN_BOTS,
    MAX_BOT_BYTES,
    RUNTIMES,
    BundleError,
    FileKind,
    bundle_check,
)

# What an upload may be, for the API's schema and the site's form alike: the runtimes
# table says which languages a single source file may be in.
UPLOAD_HELP = (
    f"One source file ({', '.join(r.extension for r in RUNTIMES)}), or a .zip with bot.json "
    f"(or main.py) at its root; at most {MAX_BOT_BYTES} bytes (docs/bot-protocol.md)."
)

log = logging.getLogger(__name__)

ARENA_USERNAME = "arena"  # the system user owning the built-in bots; cannot log in
_BUILTIN_DESCRIPTIONS = {
    "random": "Plays a uniformly random legal action. The qualification opponent.",
    "greedy": "Plays the action with the best one-step evaluation.",
    "search": "Searches a few plies ahead with the greedy evaluation.",
    "noisy-greedy-50": "Greedy, but half of its choices are random legal actions.",
    "noisy-greedy-25": "Greedy, but a quarter of its choices are random legal actions.",
    "noisy-greedy-10": "Greedy, but a tenth of its choices are random legal actions.",
    "mcts": "Information-set Monte Carlo tree search with greedy rollouts; the strongest.",
}


def bot_create(*, owner: User, name: str, description: str = "") -> Bot:
    if Bot.objects.filter(owner=owner, name=name).exists():
        raise ApiError("conflict", f"you already have a bot named {name!r}", {"field": "name"})
    try:
        with transaction.atomic():
            return Bot.objects.create(owner=owner, name=name, description=description)
    except IntegrityError:  # a concurrent request took the name
        raise ApiError(
            "conflict", f"you already have a bot named {name!r}", {"field": "name"}
        ) from None


def bot_update(*, bot: Bot, description: str | None = None) -> Bot:
    """Change what is given; nothing else."""
    if description is not None:
        bot.description = description
        bot.save(update_fields=["description"])
        bot_pages_changed(bot_ids=[bot.pk])
    return bot


def bot_pages_changed(*, bot_ids: Iterable[int]) -> None:
    """Bump these bots' `BotPageVersion` once the current transaction commits (at once
    outside one): their cached pages are never served again. Call it in every write to
    what a bot's page shows (site/bot_page.py lists them).

    After the commit, not in the transaction: the writes that call it hold other locks
    (a ladder's row while it makes matches, a bot's row while it qualifies) and take them
    in different orders, so a bump that row-locked the counters mid-transaction could
    deadlock two of them. Alone, in sorted order, it waits for nobody. A page read
    between the commit and the bump (one statement) can still be the older one."""
    ids = sorted(set(bot_ids))
    if ids:
        transaction.on_commit(functools.partial(_bot_pages_bump, ids), robust=True)


_BUMP_CHUNK = 1_000  # bots per statement


def _bot_pages_bump(bot_ids: list[int]) -> None:
    table = BotPageVersion._meta.db_table
    for start in range(0, len(bot_ids), _BUMP_CHUNK):
        chunk = bot_ids[start : start + _BUMP_CHUNK]
        rows = ", ".join(["(%s, 1)"] * len(chunk))
        with connection.cursor() as cursor:
            # A bot's first bump creates its row (a missing row reads as version 0).
            cursor.execute(
                f"INSERT INTO {table} (bot_id, version) VALUES {rows} "
                f"ON CONFLICT (bot_id) DO UPDATE SET version = {table}.version + 1",
                chunk,
            )


def too_large_message(what: str, size: int) -> str:
    """What was too big, how big it was and what is allowed: `what` is the file's name,
    or "the request" when only its declared length is known (it is refused unread)."""
    return f"{what}: {size} bytes; a bot is at most {MAX_BOT_BYTES} bytes"


def too_large(what: str, size: int) -> ApiError:
    """The 413 for an upload over MAX_BOT_BYTES (`too_large_message`)."""
    return ApiError("too_large", too_large_message(what, size), {"limit": MAX_BOT_BYTES})


# Room for the multipart envelope around a file of the largest allowed size.
MULTIPART_SLACK = 64 * 1024
# A declared length of more digits is past any bound (and int() refuses 4,300 digits).
_MAX_LENGTH_DIGITS = 18


def declared_too_large(meta: Mapping[str, Any]) -> str | None:
    """Why an upload is refused unread by its declared Content-Length (past a bot and
    its multipart envelope), or None. Only ASCII digits are a length (str.isdigit takes
    "²", which int() refuses): anything else is left to the parsers, which bound what
    they read."""
    length = str(meta.get("CONTENT_LENGTH") or "")
    if not (length.isascii() and length.isdigit()):
        return None
    if len(length) > _MAX_LENGTH_DIGITS:
        return (
            f"the request: a length of {len(length)} digits; a bot is at most {MAX_BOT_BYTES} bytes"
        )
    if int(length) > MAX_BOT_BYTES + MULTIPART_SLACK:
        return too_large_message("the request", int(length))
    return None


def _bot_file_check(filename: str, content: bytes) -> FileKind:
    """The upload's kind, or the stable reason it is refused (translated here, once):
    `details` names the reason, and the limit or naming rule broken with its value."""
    if len(content) > MAX_BOT_BYTES:
        raise too_large(filename, len(content))
    try:
        return bundle_check(filename, content).kind
    except BundleError as err:
        if err.code == "too_large":
            raise too_large(filename, len(content)) from None
        details: dict[str, object] = {"reason": err.code}
        if err.limit is not None:
            details.update(limit=err.limit, value=err.value)
        if err.entry is not None:
            details["entry"] = err.entry
        raise ApiError("invalid_upload", str(err), details) from None


def bot_version_create(*, bot: Bot, filename: str, content: bytes) -> BotVersion:
    """Check the file, store it as the next version and ask for its qualification game.

    A refused file creates nothing. The version and its qualification match are created
    in one transaction (`version_uploaded`: the matches app creates the match, and
    enqueues it once that commits).
    """
    kind = _bot_file_check(filename, content)

    with transaction.atomic():
        Bot.objects.select_for_update().filter(pk=bot.pk).first()  # numbers in upload order
        latest = BotVersion.objects.filter(bot=bot).aggregate(n=Max("number"))["n"] or 0
        version = BotVersion.objects.create(
            bot=bot,
            number=latest + 1,
            kind=kind,
            filename=filename,
            sha256=hashlib.sha256(content).hexdigest(),
            size=len(content),
            content=content,
            status=BotVersion.Status.QUALIFYING,
        )
        bot_pages_changed(bot_ids=[bot.pk])
        version_uploaded.send(sender=BotVersion, version=version)
    return version


def bot_version_qualification_finished(
    *, version: BotVersion, match: Model, passed: bool, error: str
) -> None:
    """Apply a qualification result; a repeated or stale result changes nothing.

    Passed: the version becomes the bot's active one (the previous one retires) unless a
    newer version already did, in which case it retires at once. Failed: rejected, with
    `error` for the owner.
    """
    with transaction.atomic():
        bot = (
            Bot.objects.select_for_update(of=("self",))
            .select_related("active_version")
            .get(pk=version.bot_id)
        )
        current = BotVersion.objects.select_for_update().defer("content").get(pk=version.pk)
        if current.status != BotVersion.Status.QUALIFYING:
            return  # already decided: this is a redelivery
        if current.qualification_match_id not in (None, match.pk):
            log.warning("%s: ignoring result of stale qualification match %s", current, match.pk)
            return
        current.qualification_match_id = match.pk
        if not passed:
            current.status = BotVersion.Status.REJECTED
            current.error = error or "the version failed its qualification game"
        elif bot.active_version is not None and bot.active_version.number > current.number:
            current.status = BotVersion.Status.RETIRED  # passed, but a newer one is active
        else:
            _bot_version_activate(bot=bot, version=current)
        current.save(update_fields=["status", "error", "qualification_match"])
        bot_pages_changed(bot_ids=[bot.pk])
    for field in ("status", "error", "qualification_match_id"):
        setattr(version, field, getattr(current, field))


def _bot_version_activate(*, bot: Bot, version: BotVersion) -> None:
    previous = bot.active_version
    if previous is not None and previous.pk != version.pk:
        BotVersion.objects.filter(pk=previous.pk).update(status=BotVersion.Status.RETIRED)
    if previous is None:
        # Public from now on: the pages of the bots it played (its qualification's
        # opponents, its challenges') link its seats now.
        bot_pages_changed(bot_ids=bots_played_with(bot=bot))
    version.status = BotVersion.Status.ACTIVE
    bot.active_version = version
    bot.save(update_fields=["active_version"])
    # New code plays differently: the ladders app resets the bot's rating uncertainty
    # (in this transaction, under the bot's lock).
    version_activated.send(sender=Bot, bot=bot)


def builtin_bots_ensure() -> dict[str, BotVersion]:
    """The built-in bots (`arena/random`, ...), each with its one active version; idempotent."""
    with transaction.atomic():
        arena, created = User.objects.get_or_create(username=ARENA_USERNAME)
        if created or arena.has_usable_password():
            arena.set_unusable_password()
            arena.save(update_fields=["password"])
        versions: dict[str, BotVersion] = {}
        for name in BUILTIN_BOTS:
            bot, _ = Bot.objects.get_or_create(
                owner=arena,
                name=name,
                defaults={"description": _BUILTIN_DESCRIPTIONS.get(name, "")},
            )
            bot = (
                Bot.objects.select_for_update(of=("self",))
                .select_related("active_version")
                .get(pk=bot.pk)
            )
            version = bot.active_version
            if version is None:
                latest = BotVersion.objects.filter(bot=bot).aggregate(n=Max("number"))["n"] or 0
                version = BotVersion.objects.create(
                    bot=bot,
                    number=latest + 1,
                    kind=BotVersion.Kind.BUILTIN,
                    filename=name,
                    sha256=hashlib.sha256(name.encode()).hexdigest(),
                    size=0,
                    content=b"",
                    status=BotVersion.Status.ACTIVE,
                )
                bot.active_version = version
                bot.save(update_fields=["active_version"])
                bot_pages_changed(bot_ids=[bot.pk])
            versions[name] = version
    return versions
