"""Every model change has its migration: a default that follows a constant elsewhere
(the rules core's DEFAULT_CATALOGUE, say) changes the models without touching them."""

from __future__ import annotations

import io

from django.core.management import call_command


def test_the_models_need_no_new_migration() -> None:
    out = io.StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as missing:
        raise AssertionError(f"models without migrations:\n{out.getvalue()}") from missing
