"""Rendered pages of the public read API, cached in the process and keyed by data version.

The leaderboard and the replay lists are read far more often than they change, and
building one costs 7-12 ms of CPU (queries compiled, rows serialized) where serving a
stored copy costs well under one. A page is stored as the JSON bytes it renders to,
under a key that holds a *version* of the data it shows, read in the same request
before the page is built:

- a ladder's leaderboard: `Ladder.standings_version`, bumped in the transaction of every
  write that changes what the leaderboard shows (ratings applied or recomputed, a bot
  joining, a new active version);
- replay lists: the highest `Match.finished_seq`: a replay, its seats' results and the
  match's `finished_seq` are written in one transaction, and nothing on a list page
  changes after that.

So a write makes every older page unreachable at once, in every process, with no
message between them. The version is read before the page, so a stored page is never
older than its key says. Edits outside the services (the admin, by hand in SQL) do
not bump a version: `TTL_SECONDS` bounds how long such an edit stays unseen.

`shared_cached_response` keeps pages in Django's cache instead (Redis, shared by every
process, when `HEIGHTS_PLATFORM_REDIS_URL` is set): for pages with a key space too wide
for one process's few hundred slots to hold what readers ask for, such as the match
list of each of a thousand bots (keyed by the bot's `BotPageVersion`, matches/apis.py).

Bytes rather than the serialized lists and dicts: those would be thousands of objects
for the cyclic garbage collector to walk on every full collection (see `wsgi.py`), and
a hit asking for plain JSON is sent those bytes as they are (rendering a 50-row page
again costs more than a millisecond).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from django.core.cache import cache
from django.http import HttpResponse
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

MAX_PAGES = 512  # a few tens of kB each at most: some 10 MB per process
TTL_SECONDS = 30.0

_lock = threading.Lock()
_pages: OrderedDict[Hashable, tuple[float, bytes]] = OrderedDict()


def cached_response(
    request: Request, key: Hashable, build: Callable[[], Any]
) -> Response | HttpResponse:
    """The page `build()` returns, from the cache when `key` (which must hold the data
    version and every input of the page, the absolute URL included) was built recently.

    Plain JSON (what API clients ask for) is sent as the stored bytes; any other
    rendering (the browsable API, an indented JSON) goes through DRF as usual."""
    full_key = (key, request.build_absolute_uri())
    body = _get(full_key)
    if body is not None:
        return _respond(request, body)
    data = build()
    body = JSONRenderer().render(data)
    _put(full_key, body)
    return _respond(request, body, data)


def shared_cached_response(
    request: Request, key: str, build: Callable[[], Any], *, seconds: float
) -> Response | HttpResponse:
    """As `cached_response`, with the pages in Django's cache for `seconds` at most: `key`
    must hold the data version and every input of the page but its absolute URL, which is
    added (hashed: Redis keys stay short whatever the query string)."""
    url = hashlib.sha256(request.build_absolute_uri().encode()).hexdigest()[:32]
    full_key = f"page:{key}:{url}"
    body = cache.get(full_key)
    if isinstance(body, bytes):
        return _respond(request, body)
    data = build()
    body = JSONRenderer().render(data)
    cache.set(full_key, body, seconds)
    return _respond(request, body, data)


def _respond(request: Request, body: bytes, data: Any = None) -> Response | HttpResponse:
    """The page's stored bytes as they are for plain JSON; any other rendering through
    DRF, from `data` when the page was just built (else parsed back from the bytes)."""
    if _plain_json(request):
        return HttpResponse(body, content_type="application/json")
    return Response(json.loads(body) if data is None else data)


def _plain_json(request: Request) -> bool:
    renderer = getattr(request, "accepted_renderer", None)
    media_type = getattr(request, "accepted_media_type", "")
    return isinstance(renderer, JSONRenderer) and media_type == "application/json"


def _get(key: Hashable) -> bytes | None:
    with _lock:
        found = _pages.get(key)
        if found is None:
            return None
        stored_at, body = found
        if time.monotonic() - stored_at > TTL_SECONDS:
            del _pages[key]
            return None
        _pages.move_to_end(key)
        return body


def _put(key: Hashable, body: bytes) -> None:
    with _lock:
        _pages[key] = (time.monotonic(), body)
        _pages.move_to_end(key)
        while len(_pages) > MAX_PAGES:
            _pages.popitem(last=False)


def cache_clear() -> None:
    with _lock:
        _pages.clear()
