from __future__ import annotations

from django.conf import settings
from django.db import models

from heights_platform.common.catalogues import catalogue_column


class Tournament(models.Model):
    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin"
        SWISS = "swiss"
        ELIMINATION = "elimination"

    class Status(models.TextChoices):
        REGISTRATION = "registration"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    name = models.CharField(max_length=80)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    format = models.CharField(max_length=12, choices=Format.choices)
    players = models.PositiveSmallIntegerField()  # per game: 2, 3 or 4
    options = models.JSONField(default=dict, blank=True)
    catalogue = catalogue_column()
    duplicate = models.BooleanField(default=False)  # each pairing once per seat rotation
    swiss_rounds = models.PositiveSmallIntegerField(null=True, blank=True)
    # Seeding order (and, when chosen, every match seed); secret until the end.
    seed = models.BigIntegerField()
    # Rated play refuses a chosen seed; an unrated tournament may fix one (seed_chosen).
    rated = models.BooleanField(default=True)
    seed_chosen = models.BooleanField(default=False)
    registration_opens_at = models.DateTimeField()
    registration_closes_at = models.DateTimeField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTRATION)
    current_round = models.PositiveSmallIntegerField(default=0)
    # Known once the tournament starts (elimination: an upper bound until it ends).
    rounds_total = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = (
            models.Index(fields=["status", "-created_at"]),
            models.Index(fields=["format", "-created_at"]),
        )

    def __str__(self) -> str:
        return f"{self.name} ({self.format}, {self.status})"


class TournamentEntry(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    # The bot as well as its version: a bot enters at most once, whichever version it sends.
    bot = models.ForeignKey("bots.Bot", on_delete=models.PROTECT, related_name="+")
    bot_version = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="+")
    seed_number = models.PositiveSmallIntegerField(null=True, blank=True)  # 1 = top seed
    points = models.FloatField(default=0.0)
    # Tie-break columns from the last standings computation (competition.standings).
    tiebreaks = models.JSONField(default=dict, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)  # final standing
    eliminated = models.BooleanField(default=False)
    eliminated_round = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["tournament", "bot_version"], name="entry_once"),
            models.UniqueConstraint(fields=["tournament", "bot"], name="entry_bot_once"),
        )

    def __str__(self) -> str:
        return f"{self.tournament_id} / {self.bot_version}"


class TournamentBye(models.Model):
    """A round an entry sat out: it scores as a win (Swiss) or advances (elimination)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="byes")
    entry = models.ForeignKey(TournamentEntry, on_delete=models.CASCADE, related_name="byes")
    round = models.PositiveSmallIntegerField()

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["tournament", "entry", "round"], name="bye_once"),
        )
