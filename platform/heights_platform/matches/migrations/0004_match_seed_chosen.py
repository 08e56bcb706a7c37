from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0003_seat_log"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="seed_chosen",
            field=models.BooleanField(default=False),
        ),
    ]
