"""`{% match_table_rows rows highlight %}`: the rows of a table of matches (`MatchRow`s):
when the match finished, its kind with its ladder or tournament round (linked), its seats
(`seat_list`), and its status linking the match's page.

Written in Python for the reason `seats.py` and `history.py` are: a bot's page lists 20
matches, and the template markup this replaces (a `{% for %}` with `|date`, three
`{% url %}` and five `{% if %}` a row) was a quarter of that page's CPU when rendered
afresh (cProfile, loadtests/README.md "Platform"). The same text as that markup, the
whitespace between rows included (tests/platform/test_site_match_table.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from django import template
from django.urls import get_script_prefix
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from heights_platform.site.listing import MatchRow
from heights_platform.site.route_links import link
from heights_platform.site.templatetags.seats import seat_list

register = template.Library()

# What `{% empty %}` printed: the table says there is nothing, in one row.
NO_MATCHES = '\n  <tr><td colspan="4" class="muted">No matches yet.</td></tr>\n  '


@register.simple_tag
def match_table_rows(rows: Sequence[MatchRow], highlight: object = None) -> SafeString:
    if not rows:
        return mark_safe(NO_MATCHES)
    prefix = get_script_prefix()
    # Every value from a user went through escape() (here or in seat_list); the rest are
    # numbers, dates, ids and our own markup.
    return mark_safe("".join(_row(row, highlight, prefix) for row in rows))


def _row(row: MatchRow, highlight: object, prefix: str) -> str:
    match = row.match
    finished = match.finished_at
    # As `|date:"Y-m-d H:i"|default:` an en dash: the time in the site's zone, or a dash.
    when = timezone.localtime(finished).strftime("%Y-%m-%d %H:%M") if finished else "\u2013"
    kind = escape(str(match.kind))
    ladder = match.ladder  # selected with the match where a page lists it
    if ladder is not None:
        slug = ladder.slug
        kind += f' · <a href="{link(prefix, "site-ladder", slug)}">{escape(slug)}</a>'
    if match.tournament_id:
        href = link(prefix, "site-tournament", match.tournament_id)
        kind += f' · <a href="{href}">round {match.tournament_round}</a>'
    href = link(prefix, "site-match", match.pk)
    return (
        f"\n  <tr>\n    <td>{when}</td>\n    <td>{kind}</td>\n"
        f"    <td>{seat_list(row.seats, highlight)}</td>\n"
        f'    <td><a href="{href}">{escape(str(match.status))}</a></td>\n  </tr>\n  '
    )
