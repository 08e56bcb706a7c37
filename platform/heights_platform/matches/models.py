from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from heights_platform.common.catalogues import catalogue_column


class Match(models.Model):
    class Kind(models.TextChoices):
        LADDER = "ladder"
        TOURNAMENT = "tournament"
        CHALLENGE = "challenge"  # a user's bot against chosen opponents; unrated
        QUALIFICATION = "qualification"  # a new version against the random bot

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        FINISHED = "finished"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    ladder = models.ForeignKey(
        "ladders.Ladder", null=True, blank=True, on_delete=models.PROTECT, related_name="matches"
    )
    tournament = models.ForeignKey(
        "tournaments.Tournament",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="matches",
    )
    tournament_round = models.PositiveSmallIntegerField(null=True, blank=True)
    # Duplicate matches of one tournament pairing share a group id and a seed.
    duplicate_group = models.UUIDField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    players = models.PositiveSmallIntegerField()
    solo = models.BooleanField(default=False)
    options = models.JSONField(default=dict, blank=True)
    catalogue = catalogue_column()
    seed = models.BigIntegerField()  # secret until the match ends (see `seed_public`)
    seed_commitment = models.CharField(max_length=64, blank=True)
    # The seed was chosen by the creator (unrated play only), not drawn in secret.
    seed_chosen = models.BooleanField(default=False)
    termination = models.CharField(max_length=24, blank=True)
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    # Match order for ratings: results apply in the order matches finished.
    finished_seq = models.BigIntegerField(null=True, blank=True, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # When the match was last handed to the broker (null: never, e.g. a broker outage
    # at creation); `matches_resend_stalled` uses it to re-send at most once a period.
    sent_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["-created_at"]),
            models.Index(fields=["status", "-created_at"]),
            models.Index(fields=["ladder", "-created_at"]),
            models.Index(fields=["tournament", "tournament_round"]),
        ]

    @property
    def seed_public(self) -> int | None:
        return self.seed if self.status == self.Status.FINISHED else None


class MatchSeat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    bot_version = models.ForeignKey(
        "bots.BotVersion", on_delete=models.PROTECT, related_name="seats"
    )
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.IntegerField(null=True, blank=True)
    forfeit_reason = models.CharField(max_length=16, blank=True)
    forfeit_step = models.IntegerField(null=True, blank=True)
    forfeit_detail = models.TextField(blank=True)
    moves = models.PositiveIntegerField(default=0)
    think_ms = models.PositiveIntegerField(default=0)
    max_move_ms = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="match_seat_once")]
        indexes = [models.Index(fields=["bot_version", "match"])]


class SeatLog(models.Model):
    """What a seat's bot wrote on stderr in its match (the runner keeps the last 64 KiB).

    Apart from `MatchSeat` so that the many reads of seats never load it, and shown only
    to the bot's owner and staff (`selectors.access_seat_log`).
    """

    seat = models.OneToOneField(
        MatchSeat, on_delete=models.CASCADE, primary_key=True, related_name="log"
    )
    text = models.TextField()
