from __future__ import annotations

from django.db import models


class Replay(models.Model):
    """A finished match's replay record (gzip canonical JSON, heights_rules.replay)."""

    match = models.OneToOneField("matches.Match", on_delete=models.PROTECT, related_name="replay")
    data = models.BinaryField()
    sha256 = models.CharField(max_length=64)
    size = models.PositiveIntegerField()
    steps = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["-created_at"])]


class ReplayCheckpoint(models.Model):
    """The game state every `stepping.CHECKPOINT_EVERY` steps of a replay, stored with
    it (zlib of heights_rules' state bytes), so browsing a step simulates at most that
    many actions in any process, even one that has never seen the replay."""

    replay = models.ForeignKey(Replay, on_delete=models.CASCADE, related_name="checkpoints")
    step = models.PositiveIntegerField()
    state = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["replay", "step"], name="replay_checkpoint_once")
        ]
