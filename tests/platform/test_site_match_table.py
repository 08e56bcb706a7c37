"""`{% match_table_rows %}`: a table of matches as the template markup it replaced printed
it, byte for byte (whitespace between rows included), for every match of the site's
world: ladder and tournament matches, finished and not, linked seats and not."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.template import Context, Template

from heights_platform.matches.models import Match
from heights_platform.matches.selectors import bot_match_list_page, match_list_page
from heights_platform.site.listing import match_rows
from heights_platform.site.templatetags.match_table import match_table_rows

# The loop as _matches.html wrote it before the tag: the reference the tag must equal.
MARKUP = Template(
    """{% load seats %}{% for row in rows %}
  <tr>
    <td>{{ row.match.finished_at|date:"Y-m-d H:i"|default:"–" }}</td>
    <td>{{ row.match.kind }}{% if row.match.ladder %} · <a href="{% url 'site-ladder' row.match.ladder.slug %}">{{ row.match.ladder.slug }}</a>{% endif %}{% if row.match.tournament_id %} · <a href="{% url 'site-tournament' row.match.tournament_id %}">round {{ row.match.tournament_round }}</a>{% endif %}</td>
    <td>{% seat_list row.seats highlight %}</td>
    <td><a href="{% url 'site-match' row.match.pk %}">{{ row.match.status }}</a></td>
  </tr>
  {% empty %}
  <tr><td colspan="4" class="muted">No matches yet.</td></tr>
  {% endfor %}"""  # noqa: E501, RUF001
)


def _both(rows: list[Any], highlight: Any = "") -> tuple[str, str]:
    expected = MARKUP.render(Context({"rows": rows, "highlight": highlight}))
    return str(match_table_rows(rows, highlight)), expected


def test_every_match_of_the_world_prints_as_the_markup_did(world: dict[str, Any]) -> None:
    matches = list(match_list_page())
    kinds = {(m.ladder_id is not None, m.tournament_id is not None) for m in matches}
    assert {(True, False), (False, True)} <= kinds, "ladder and tournament matches"
    assert {m.status for m in matches} >= {Match.Status.FINISHED, Match.Status.QUEUED}
    carol: User = world["users"]["carol"]
    for reader in (AnonymousUser(), carol):  # carol sees her unqualified bot's link
        rows = match_rows(user=reader, matches=matches)
        for highlight in ("", None, world["bots"][1].pk):
            ours, expected = _both(rows, highlight)
            assert ours == expected


def test_a_bot_pages_rows_with_only_the_shown_columns_loaded(
    world: dict[str, Any], django_assert_num_queries: Any
) -> None:
    """The bot page's matches load a few columns: printing them reads nothing more."""
    beta = world["bots"][1]
    matches = list(bot_match_list_page(bot_id=beta.pk))
    assert matches
    rows = match_rows(user=AnonymousUser(), matches=matches)
    with django_assert_num_queries(0):
        ours = str(match_table_rows(rows, beta.pk))
    whole = match_list_page().in_bulk([m.pk for m in matches])  # every column loaded
    full = match_rows(user=AnonymousUser(), matches=[whole[m.pk] for m in matches])
    assert ours == _both(full, beta.pk)[1]


def test_no_matches_is_one_row_saying_so() -> None:
    ours, expected = _both([])
    assert ours == expected
