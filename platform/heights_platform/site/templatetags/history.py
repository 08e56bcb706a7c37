"""`{% rating_rows changes %}`: the rows of a bot's rating-history table, one per rating
change: the match (its finishing time, linked), the bot's rank, its opponents, and Elo,
mu and sigma before -> after.

Written in Python for the reason `seats.py` is: a bot's page shows 50 of these rows, and
as template markup (`{% url %}`, `|date` and six `|floatformat` a row) they were most of
that page's CPU (loadtests/README.md, "Platform"). Same cells and text as that markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from django import template
from django.urls import get_script_prefix
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from heights_platform.ladders.selectors import HistoryRow
from heights_platform.site.listing import SeatRow
from heights_platform.site.numbers import fixed
from heights_platform.site.route_links import link
from heights_platform.site.templatetags.seats import seat_list

register = template.Library()


@register.simple_tag
def rating_rows(changes: Sequence[tuple[HistoryRow, Sequence[SeatRow]]]) -> SafeString:
    if not changes:
        return mark_safe('<tr><td colspan="6" class="muted">No rated matches yet.</td></tr>')
    # Every value from a user went through escape() (here or in seat_list); the rest are
    # numbers, dates and our own markup.
    return mark_safe("".join(_row(change, opponents) for change, opponents in changes))


def _row(c: HistoryRow, opponents: Sequence[SeatRow]) -> str:
    r = c.rating
    finished = c.finished_at
    # As `|date:"Y-m-d H:i"|default:"match"`: the time in the site's zone.
    when = timezone.localtime(finished).strftime("%Y-%m-%d %H:%M") if finished else "match"
    href = link(get_script_prefix(), "site-match", c.match_id)
    return (
        f'<tr><td><a href="{href}">{when}</a></td><td>{int(c.rank)}</td>'
        f"<td>{seat_list(opponents)}</td>"
        f'<td class="num">{fixed(r.elo_before, 1)} → {fixed(r.elo_after, 1)}</td>'
        f'<td class="num">{fixed(r.mu_before, 2)} → {fixed(r.mu_after, 2)}</td>'
        f'<td class="num">{fixed(r.sigma_before, 2)} → {fixed(r.sigma_after, 2)}</td></tr>'
    )
