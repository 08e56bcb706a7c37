"""`{% rating_rows %}` and `fixed`: a bot's rating history as the template markup it
replaced printed it, at a fraction of the cost."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template import Context, Template
from django.template.defaultfilters import floatformat

from heights_platform.ladders.selectors import bot_ladder_entries, rating_window
from heights_platform.site.listing import opponents_of, seat_rows
from heights_platform.site.numbers import fixed
from heights_platform.site.templatetags.history import rating_rows

# The rows as bot.html wrote them before the tag: the reference the tag must equal.
MARKUP = Template(
    """{% load seats %}{% for change, opponents in changes %}
    <tr>
      <td><a href="{% url 'site-match' change.match_id %}">{{ change.finished_at|date:"Y-m-d H:i"|default:"match" }}</a></td>
      <td>{{ change.rank }}</td>
      <td>{% seat_list opponents %}</td>
      <td class="num">{{ change.rating.elo_before|floatformat:1 }} → {{ change.rating.elo_after|floatformat:1 }}</td>
      <td class="num">{{ change.rating.mu_before|floatformat:2 }} → {{ change.rating.mu_after|floatformat:2 }}</td>
      <td class="num">{{ change.rating.sigma_before|floatformat:2 }} → {{ change.rating.sigma_after|floatformat:2 }}</td>
    </tr>
    {% empty %}<tr><td colspan="6" class="muted">No rated matches yet.</td></tr>
    {% endfor %}"""  # noqa: E501
)


def _squeezed(html: str) -> str:
    return re.sub(r">\s+<", "><", html).strip()


def test_the_rows_equal_the_markup_they_replace(world: dict[str, Any]) -> None:
    for bot in world["bots"]:
        for entry in bot_ladder_entries(bot=bot):
            window = rating_window(entry=entry, points=500, rows=50)
            seats = seat_rows(user=AnonymousUser(), match_ids=[r.match_id for r in window.rows])
            changes = [(row, opponents_of(seats[row.match_id], bot.pk)) for row in window.rows]
            assert changes, "the world's bots are rated"
            expected = MARKUP.render(Context({"changes": changes}))
            assert _squeezed(rating_rows(changes)) == _squeezed(expected)


def test_no_changes_is_one_row_saying_so() -> None:
    assert rating_rows([]) == _squeezed(MARKUP.render(Context({"changes": []})))


@pytest.mark.parametrize("places", [0, 1, 2, 3, 6])
def test_fixed_prints_what_floatformat_prints(places: int) -> None:
    rng = random.Random(places)
    edges = [0.0, -0.0, -0.04, -0.05, 0.05, 0.15, 0.25, 2.675, -1.25, 1500.25, 1e-7, 1e20]
    rounded = [round(rng.uniform(-100, 100), rng.randint(0, 4)) for _ in range(2000)]
    halves = [v + rng.choice((0.05, 0.005, -0.05, 0.5)) for v in rounded]
    ratings = [rng.uniform(-3000, 3000) for _ in range(2000)]
    for value in edges + rounded + halves + ratings + [float("nan"), float("inf")]:
        assert fixed(value, places) == floatformat(value, places), value


def test_fixed_refuses_places_it_does_not_keep() -> None:
    with pytest.raises(ValueError, match="places must be 0 to 6, not 7"):
        fixed(1.0, 7)
