"""`{% seat_list seats highlight %}`: one match's seats, inline (rank, bot, version, score,
forfeit), the bot linked when its page is public.

Written in Python rather than as an included template: a bot's page lists ~70 matches'
seats (its rating history and its matches), and an `{% include %}` with a `{% url %}` per
seat made that page's rendering most of its CPU (loadtests/README.md, "Platform").
"""

from __future__ import annotations

from collections.abc import Sequence

from django import template
from django.urls import reverse
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import SafeString

from heights_platform.site.listing import SeatRow

register = template.Library()


@register.simple_tag
def seat_list(seats: Sequence[SeatRow], highlight: int | None = None) -> SafeString:
    items = format_html_join("", "{}", ((_seat(s, highlight),) for s in seats))
    return format_html('<ol class="seat-list">{}</ol>', items)


def _seat(s: SeatRow, highlight: int | None) -> SafeString:
    name = f"{s.owner}/{s.bot_name}"
    parts: list[SafeString] = []
    if s.rank:
        parts.append(format_html('<span class="rank">#{}</span>', s.rank))
    if s.linked:
        parts.append(format_html('<a href="{}">{}</a>', reverse("site-bot", args=[s.bot_id]), name))
    else:
        parts.append(conditional_escape(name))
    parts.append(format_html('<span class="muted">v{}</span>', s.version))
    if s.score is not None:
        parts.append(format_html('<span class="score">{}</span>', s.score))
    if s.forfeit_reason:
        at = format_html(" at step {}", s.forfeit_step) if s.forfeit_step is not None else ""
        parts.append(
            format_html(
                '<span class="forfeit" title="{}">forfeit: {}{}</span>',
                s.forfeit_detail,
                s.forfeit_reason,
                at,
            )
        )
    inline = format_html_join(" ", "{}", ((part,) for part in parts))
    if highlight is not None and s.bot_id == highlight:
        return format_html('<li class="me">{}</li>', inline)
    return format_html("<li>{}</li>", inline)
