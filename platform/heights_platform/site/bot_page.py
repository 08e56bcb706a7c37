"""A bot's page as a reader who is not signed in sees it, cached whole.

The bot page is the heaviest page a spectator asks for (tens of milliseconds of CPU:
its rating history and its matches with their seats), and most readers see the same
bytes. Those bytes are kept in Django's cache (the configured backend: Redis shared by
every process when `HEIGHTS_PLATFORM_REDIS_URL` is set, else each process's memory) under a key
holding the bot's `BotPageVersion`, read before anything else of the page. Every write
to what the page shows bumps it once it commits (`bots.services.bot_pages_changed`):

- the bot's matches created, started, finished, failed or reaped (`matches`: creation,
  `match_mark_running`, `match_result_record` and `match_results_record`);
- its ratings and history (`ladders`: `ratings_apply`, the batch and the recompute);
- a ladder joined (`ladder_join`); its description (`bot_update`);
- a version uploaded, activated, rejected or retired (`bots.services`), and, when the bot
  first becomes public, the pages of every bot it played, which link its seats from then.

Names cannot change through the services (bots and users are not renamed, ladders keep
their names). The admin's bot and ladder forms bump the pages their names show on (the
bot's and those of the bots it played; the ladder's bots and those seated in its
matches). Other admin edits (a user renamed, a version or an entry changed) and edits in
SQL bump nothing: `CACHE_SECONDS` bounds how long they stay unseen, as it does for a
crash between a commit and its bump.

Only the anonymous rendering is kept: a signed-in reader's page names them in the header,
carries their CSRF token and may show private parts (rejection texts, their own unqualified
bots' links), so theirs is always rendered afresh; so is a page with a message to show
once. Only a 200 is kept: a bot not public yet is a 404 rendered each time.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path

from django.contrib.messages import get_messages
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.urls import get_script_prefix

from heights_platform.bots.selectors import bot_page_version

CACHE_SECONDS = 300


def public_reader(request: HttpRequest) -> bool:
    """Whether the request sees the public rendering: not signed in, no message pending."""
    return not request.user.is_authenticated and len(get_messages(request)) == 0


@functools.cache
def _code_digest() -> str:
    """The site's templates and code: a page rendered by other code is never served
    (a cache shared across a deploy would hold the old code's pages)."""
    root = Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".html"):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _key(*, bot_id: int, number: int) -> str:
    version = bot_page_version(bot_id=bot_id)  # first: the page is never older than it
    prefix = get_script_prefix()  # the page's links start with it
    return f"site-bot:{_code_digest()}:{prefix}:{bot_id}:{version}:{number}"


def cached_bot_page(
    *, bot_id: int, number: int, render: Callable[[], HttpResponse]
) -> HttpResponse:
    """Page `number` of the bot's page for a public reader: the stored bytes while the
    bot's page version is unchanged, else `render()`'s response, stored if a 200."""
    key = _key(bot_id=bot_id, number=number)
    body = cache.get(key)
    if isinstance(body, bytes):
        return HttpResponse(body)  # text/html; charset=utf-8, as render() answers
    response = render()
    if response.status_code == 200:
        cache.set(key, response.content, CACHE_SECONDS)
    return response
