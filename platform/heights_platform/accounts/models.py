from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """An API token. Only its SHA-256 is stored: the key is shown once, at creation."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tokens"
    )
    name = models.CharField(max_length=64)
    prefix = models.CharField(max_length=8)  # shown in listings to tell tokens apart
    key_sha256 = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.user} / {self.name} ({self.prefix}…)"


class Profile(models.Model):
    """What a user shows of themselves beyond the username; created on first need."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    display_name = models.CharField(max_length=64, blank=True)

    def __str__(self) -> str:
        return f"{self.user} ({self.display_name})" if self.display_name else str(self.user)
