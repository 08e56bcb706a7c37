"""Ladder.standings_version: the version of its leaderboard, the key of cached pages."""

from __future__ import annotations

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("ladders", "0003_ladder_rated_seq")]

    operations = [
        migrations.AddField(
            model_name="ladder",
            name="standings_version",
            field=models.BigIntegerField(default=0),
        ),
    ]
