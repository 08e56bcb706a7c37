from __future__ import annotations

import uuid
from typing import TypeVar, cast

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef, Q, QuerySet

from heights_platform.common.catalogues import catalogue_column

_Model = TypeVar("_Model", bound=models.Model)
_Row = TypeVar("_Row")  # a queryset's row: a model or a values() dict


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
    # Duplicate matches of one table (a tournament pairing, a ladder table) share a group
    # id and a seed: the deal. Nothing that reveals the seed is shown until all have ended.
    duplicate_group = models.UUIDField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    players = models.PositiveSmallIntegerField()
    solo = models.BooleanField(default=False)
    options = models.JSONField(default=dict, blank=True)
    catalogue = catalogue_column()
    seed = models.BigIntegerField()  # secret until its deal ends (see `seed_public`)
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
            # `deal_unended`: a list row asks whether its group has a match still to end.
            models.Index(
                fields=["duplicate_group", "status"],
                name="match_deal_status",
                condition=Q(duplicate_group__isnull=False),
            ),
        ]

    # The seed and all that reveals it (the replay: with the seed, the deck order and
    # every die) are shown once this match has finished and no match on its deal (its
    # duplicate group, one seed) is still queued or running. One rule for every view,
    # serializer, page and export: `revealed` (querysets), `seed_revealed` (a match).
    UNENDED = (Status.QUEUED, Status.RUNNING)

    @staticmethod
    def deal_unended(ref: str = "") -> Exists:
        """True where a match on the deal of the row (`ref`: the path to its match, e.g.
        "match__" from a replay) is still queued or running."""
        unended = Match.objects.filter(
            duplicate_group=OuterRef(f"{ref}duplicate_group"), status__in=Match.UNENDED
        )
        return Exists(unended)

    @staticmethod
    def revealed(ref: str = "") -> Q:
        """The rows whose match's seed and replay may be shown (see `UNENDED`)."""
        return Q(~Match.deal_unended(ref), **{f"{ref}status": Match.Status.FINISHED})

    @classmethod
    def with_secrecy(cls, rows: QuerySet[_Model, _Row], ref: str = "") -> QuerySet[_Model, _Row]:
        """`rows` annotated with `seed_revealed` (`revealed` of the match at `ref`), one
        EXISTS a row."""
        revealed = models.ExpressionWrapper(cls.revealed(ref), output_field=models.BooleanField())
        # django-stubs types an annotated queryset of a type variable as of Model.
        return cast("QuerySet[_Model, _Row]", rows.annotate(seed_revealed=revealed))

    def unended_on_deal(self) -> int:
        """How many other matches on this match's deal are queued or running."""
        if self.duplicate_group is None:
            return 0
        siblings = Match.objects.filter(duplicate_group=self.duplicate_group)
        return siblings.exclude(pk=self.pk).filter(status__in=Match.UNENDED).count()

    @property
    def is_revealed(self) -> bool:
        """`seed_revealed` as annotated by `with_secrecy`, else asked of the database."""
        annotated: bool | None = getattr(self, "seed_revealed", None)
        if annotated is not None:
            return annotated
        return self.status == self.Status.FINISHED and self.unended_on_deal() == 0

    @property
    def seed_public(self) -> int | None:
        return self.seed if self.is_revealed else None

    def withheld_message(self, what: str = "replay") -> str:
        """Why this match's `what` (its replay, a bot's log) is not shown (it is not
        revealed)."""
        if self.status != self.Status.FINISHED:
            return f"match {self.pk} is {self.status}: its {what} is shown once it has finished"
        remain = self.unended_on_deal()
        matches, have = ("match", "has") if remain == 1 else ("matches", "have")
        return (
            f"the {what} of match {self.pk} is withheld until the {remain} other {matches} "
            f"on the same deal (its seed) {have} ended"
        )


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

    # `forfeit_detail` as every view shows it: "" until the match is revealed
    # (`Match.revealed`), as a crash's detail quotes the bot's last stderr line, what it
    # wrote of the deal (its dice, the markets) that its duplicates may still play.
    DETAIL_SHOWN = "forfeit_detail_shown"

    @staticmethod
    def detail_shown() -> models.Case:
        """The expression of `DETAIL_SHOWN`, for a queryset of seats."""
        return models.Case(
            models.When(Match.revealed("match__"), then=models.F("forfeit_detail")),
            default=models.Value(""),
            output_field=models.TextField(),
        )


class SeatLog(models.Model):
    """What a seat's bot wrote on stderr in its match (the runner keeps the last 64 KiB).

    Apart from `MatchSeat` so that the many reads of seats never load it, and shown only
    to the bot's owner and staff (`selectors.access_seat_log`).
    """

    seat = models.OneToOneField(
        MatchSeat, on_delete=models.CASCADE, primary_key=True, related_name="log"
    )
    text = models.TextField()
