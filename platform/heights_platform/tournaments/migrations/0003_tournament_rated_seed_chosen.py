from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0002_entry_bot_byes_progress"),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="rated",
            field=models.BooleanField(default=True),
        ),
        migrations.AddField(
            model_name="tournament",
            name="seed_chosen",
            field=models.BooleanField(default=False),
        ),
    ]
