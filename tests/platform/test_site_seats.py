"""`{% seat_list %}`: a match's seats as the site shows them, escaped, linked only when
the reader may open the bot's page."""

from __future__ import annotations

from dataclasses import replace

from django.template import Context, Template

from heights_platform.site.listing import SeatRow
from heights_platform.site.templatetags.seats import seat_list

SEAT = SeatRow(
    seat=0,
    bot_id=12,
    bot_name="<b>bold</b>",
    owner="ann",
    version=3,
    label="ann/<b>bold</b> v3",
    rank=2,
    score=41,
    forfeit_reason="",
    forfeit_step=None,
    forfeit_detail="",
    linked=True,
)


def test_a_seat_shows_rank_link_version_and_score_with_its_name_escaped() -> None:
    html = seat_list([SEAT])
    assert html == (
        '<ol class="seat-list"><li><span class="rank">#2</span> '
        '<a href="/bots/12/">ann/&lt;b&gt;bold&lt;/b&gt;</a> '
        '<span class="muted">v3</span> <span class="score">41</span></li></ol>'
    )


def test_an_unlinked_seat_a_forfeit_and_the_highlighted_bot() -> None:
    seat = replace(
        SEAT,
        linked=False,
        rank=None,
        score=None,
        forfeit_reason="illegal",
        forfeit_step=7,
        forfeit_detail='said "x"',
    )
    html = seat_list([seat], 12)
    assert html.startswith('<ol class="seat-list"><li class="me">ann/&lt;b&gt;')
    assert "<a " not in html
    forfeit = '<span class="forfeit" title="said &quot;x&quot;">forfeit: illegal at step 7</span>'
    assert forfeit in html
    assert '<li class="me">' not in seat_list([seat], 13)


def test_the_tag_renders_in_a_template_with_no_highlight_given() -> None:
    page = Template("{% load seats %}{% seat_list seats highlight %}")
    html = page.render(Context({"seats": [SEAT]}))  # highlight unset: "" in templates
    assert html.startswith('<ol class="seat-list"><li><span class="rank">')
