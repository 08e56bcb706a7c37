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
