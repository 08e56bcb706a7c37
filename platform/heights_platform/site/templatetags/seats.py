"""`{% seat_list seats highlight %}`: one match's seats, inline (rank, bot, version, score,
forfeit), the bot linked when its page is public.

Written in Python rather than as an included template: a bot's page lists ~70 matches'
seats (its rating history and its matches), and an `{% include %}` with a `{% url %}` per
seat made that page's rendering most of its CPU (loadtests/README.md, "Platform").
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from html import escape

from django import template
from django.urls import get_script_prefix, reverse
from django.utils.safestring import SafeString, mark_safe

from heights_platform.site.listing import SeatRow

register = template.Library()


@register.simple_tag
def seat_list(seats: Sequence[SeatRow], highlight: object = None) -> SafeString:
    prefix = get_script_prefix()  # a thread-local read: once a match, not once a seat
    items = "".join(_seat(s, highlight, prefix) for s in seats)
    # Every value from a user (names, forfeit details) went through escape() in _seat;
    # the rest are integers and our own markup.
    return mark_safe(f'<ol class="seat-list">{items}</ol>')


def _seat(s: SeatRow, highlight: object, prefix: str) -> str:
    # html.escape, not format_html: the same escaping (Django's escape is html.escape),
    # without a lazy-string check and a SafeString per value, ~70 seats a bot page.
    name = escape(f"{s.owner}/{s.bot_name}")
    parts: list[str] = []
    if s.rank:
        parts.append(f'<span class="rank">#{int(s.rank)}</span>')
    if s.linked:
        href = _bot_href(prefix, s.bot_id)
        parts.append(f'<a href="{href}">{name}</a>')
    else:
        parts.append(name)
    parts.append(f'<span class="muted">v{int(s.version)}</span>')
    if s.score is not None:
        parts.append(f'<span class="score">{int(s.score)}</span>')
    if s.forfeit_reason:
        at = f" at step {int(s.forfeit_step)}" if s.forfeit_step is not None else ""
        parts.append(
            f'<span class="forfeit" title="{escape(s.forfeit_detail)}">'
            f"forfeit: {escape(s.forfeit_reason)}{at}</span>"
        )
    mine = highlight is not None and s.bot_id == highlight
    return ('<li class="me">' if mine else "<li>") + " ".join(parts) + "</li>"


# A bot page links ~280 seats; reverse() walks the URL resolver each time (~1/6 of that
# page's CPU, cProfile). A bot's link depends only on its id and the script prefix (the
# argument that keeps the key honest when the site is mounted under a path).
@lru_cache(maxsize=4096)
def _bot_href(prefix: str, bot_id: int) -> str:
    del prefix  # part of the key only: reverse() reads it itself
    return escape(reverse("site-bot", args=[bot_id]))
