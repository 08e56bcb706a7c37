from __future__ import annotations

from django.apps import AppConfig


class SiteConfig(AppConfig):
    name = "heights_platform.site"
    label = "site"
    verbose_name = "Site"
