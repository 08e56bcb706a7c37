"""The rating charts' data, embedded in the page as JSON and drawn by static/site/charts.js.

A series is `{"label", "points": [[x, y], ...], "band": [[x, low, high], ...]}`; the x axis
counts matches from 0 (the rating before the first one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from heights_platform.ladders.models import RatingChange
from heights_platform.ladders.selectors import RatingPoint

MAX_BOTS_CHARTED = 10  # a ladder's chart: its top bots only, or the lines blur together
MAX_POINTS = 500  # a bot's chart: its latest matches only


def ladder_chart(*, histories: Sequence[tuple[str, Sequence[RatingChange]]]) -> dict[str, Any]:
    """Elo of each (label, history), on one x axis: the ladder's matches in finishing
    order, numbered from 1 (a match none of these bots played is left out)."""
    seqs = sorted(
        {c.match.finished_seq or 0 for _, changes in histories for c in changes[-MAX_POINTS:]}
    )
    index = {seq: i + 1 for i, seq in enumerate(seqs)}
    series = []
    for label, changes in histories:
        recent = list(changes[-MAX_POINTS:])
        points: list[list[float]] = []
        if recent:
            points.append([index[recent[0].match.finished_seq or 0] - 1, recent[0].elo_before])
        points += [[index[c.match.finished_seq or 0], c.elo_after] for c in recent]
        series.append({"label": label, "points": points})
    return {"y_label": "Elo", "x_label": "ladder match", "series": series}


def bot_charts(*, changes: Sequence[RatingPoint]) -> dict[str, dict[str, Any]]:
    """A bot's Elo, and its mu with a band of ±sigma, match by match (oldest first)."""
    recent = list(changes[-MAX_POINTS:])
    elo: list[list[float]] = []
    mu: list[list[float]] = []
    band: list[list[float]] = []
    if recent:
        first = recent[0]
        elo.append([0, first.elo_before])
        mu.append([0, first.mu_before])
        band.append([0, first.mu_before - first.sigma_before, first.mu_before + first.sigma_before])
    for i, c in enumerate(recent, start=1):
        elo.append([i, c.elo_after])
        mu.append([i, c.mu_after])
        band.append([i, c.mu_after - c.sigma_after, c.mu_after + c.sigma_after])
    x_label = "the bot's match on this ladder"
    return {
        "elo": {"y_label": "Elo", "x_label": x_label, "series": [{"label": "Elo", "points": elo}]},
        "skill": {
            "y_label": "mu ± sigma",
            "x_label": x_label,
            "series": [{"label": "mu", "points": mu, "band": band}],
        },
    }
