"""Ladder.rated_seq: the finished_seq of the last rated match, filled from the history."""

from __future__ import annotations

from typing import Any

from django.db import migrations, models
from django.db.models import Max


def fill_rated_seq(apps: Any, schema_editor: Any) -> None:
    ladder_model = apps.get_model("ladders", "Ladder")
    change_model = apps.get_model("ladders", "RatingChange")
    for ladder in ladder_model.objects.all():
        last = change_model.objects.filter(entry__ladder=ladder).aggregate(
            seq=Max("match__finished_seq")
        )["seq"]
        if last is not None:
            ladder_model.objects.filter(pk=ladder.pk).update(rated_seq=last)


class Migration(migrations.Migration):
    dependencies = [("ladders", "0002_initial"), ("matches", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="ladder",
            name="rated_seq",
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(fill_rated_seq, migrations.RunPython.noop),
    ]
