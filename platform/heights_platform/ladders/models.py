from __future__ import annotations

from django.db import models

from heights_platform.common.catalogues import catalogue_column
from heights_platform.competition import settled


class Ladder(models.Model):
    """A ruleset (player count, options, catalogue) and the bots rated on it."""

    slug = models.SlugField(max_length=40, unique=True)
    name = models.CharField(max_length=80)
    players = models.PositiveSmallIntegerField()  # 2, 3 or 4
    options = models.JSONField(default=dict, blank=True)  # RuleOptions fields by name
    catalogue = catalogue_column()
    is_active = models.BooleanField(default=True)  # matchmaking runs while active
    # finished_seq of the last match rated here: ratings go in match order, and this
    # says so in one row instead of a search through the ladder's whole history.
    rated_seq = models.BigIntegerField(null=True, blank=True)
    # Bumped with every write that changes the leaderboard (ratings, joins, a bot's new
    # version): the key of its cached pages (common/page_cache.py).
    standings_version = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.slug


class LadderEntry(models.Model):
    """A bot on a ladder: its ratings and counters (the version is the bot's active one)."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="entries")
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="ladder_entries")
    elo = models.FloatField(default=1500.0)
    mu = models.FloatField(default=25.0)
    sigma = models.FloatField(default=25.0 / 3.0)
    games = models.PositiveIntegerField(default=0)
    wins = models.FloatField(default=0.0)  # shared wins count 1/k
    seat_counts = models.JSONField(default=list, blank=True)  # games played per seat
    last_match_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["ladder", "bot"], name="ladder_entry_once")]
        indexes = [
            models.Index(fields=["ladder", "-elo"]),
            models.Index(fields=["ladder", "-mu"]),
        ]

    @property
    def uncertainty(self) -> float:
        """mu +- this holds the skill with about 95% probability (competition.settled)."""
        return settled.uncertainty(self.sigma)

    @property
    def provisional(self) -> bool:
        """Too few rated games for the place to mean much yet (competition.settled)."""
        return settled.is_provisional(self.games)


class RatingChange(models.Model):
    """One entry's rating change from one match; unique, so a result applies exactly once."""

    entry = models.ForeignKey(LadderEntry, on_delete=models.CASCADE, related_name="history")
    match = models.ForeignKey("matches.Match", on_delete=models.CASCADE, related_name="+")
    elo_before = models.FloatField()
    elo_after = models.FloatField()
    mu_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_before = models.FloatField()
    sigma_after = models.FloatField()
    rank = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["entry", "match"], name="rating_once")]
        indexes = [models.Index(fields=["entry", "created_at"])]
