"""Settings for the test suite: real PostgreSQL (pytest-django creates test_* databases)."""

from __future__ import annotations

import os

import dj_database_url

from heights_platform.settings import *  # noqa: F403

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("HEIGHTS_TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/heights")
    )
}
# Fast hashing: the tests create many accounts; production keeps Django's default.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
