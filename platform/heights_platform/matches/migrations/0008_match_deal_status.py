from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0007_alter_match_catalogue_v4"),
    ]

    operations = [
        # Match.deal_unended: each list row asks whether its duplicate group has a match
        # still queued or running.
        migrations.AddIndex(
            model_name="match",
            index=models.Index(
                condition=models.Q(("duplicate_group__isnull", False)),
                fields=["duplicate_group", "status"],
                name="match_deal_status",
            ),
        ),
    ]
