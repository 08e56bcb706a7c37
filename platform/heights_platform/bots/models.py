from __future__ import annotations

from django.conf import settings
from django.db import models


class Bot(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bots"
    )
    name = models.SlugField(max_length=40)
    description = models.TextField(blank=True, max_length=2000)
    # The version that plays in ladders; set when a version passes qualification.
    active_version = models.ForeignKey(
        "bots.BotVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="bot_name_per_owner")]
        indexes = [models.Index(fields=["-created_at"])]

    def __str__(self) -> str:
        return f"{self.owner}/{self.name}"


class BotVersion(models.Model):
    """One uploaded program. Immutable once created: a change is a new version."""

    class Kind(models.TextChoices):
        BUILTIN = "builtin"
        # A single source file is of its language's suffix (heights_runner.runtimes).
        PY = "py"
        JS = "js"
        JAVA = "java"
        CPP = "cpp"
        RS = "rs"
        ZIP = "zip"

    class Status(models.TextChoices):
        QUALIFYING = "qualifying"  # waiting for / playing its qualification game
        ACTIVE = "active"  # passed; the bot's current version
        REJECTED = "rejected"  # failed validation or qualification (see `error`)
        RETIRED = "retired"  # passed, later replaced by a newer version

    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=8, choices=Kind.choices)
    filename = models.CharField(max_length=100)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveIntegerField()
    content = models.BinaryField()  # the file or archive; only the owner may read it
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUALIFYING)
    error = models.TextField(blank=True)  # why it was rejected, for the owner
    qualification_match = models.ForeignKey(
        "matches.Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bot", "number"], name="bot_version_number")]
        indexes = [models.Index(fields=["bot", "-number"])]

    def __str__(self) -> str:
        return f"{self.bot} v{self.number}"


class BotPageVersion(models.Model):
    """A counter of what a bot's page on the site shows (`site/bot_page.py` keys its cached
    rendering by it): bumped after the commit of every write that changes the page
    (`services.bot_pages_changed`). A row of its own rather than a column of `Bot`, so
    that no `bot.save()` of a stale object can set it back to a value already used."""

    bot = models.OneToOneField(Bot, on_delete=models.CASCADE, primary_key=True, related_name="+")
    version = models.BigIntegerField(default=0)
