"""What the bots app tells the apps above it; they join in their `AppConfig.ready`.

Receivers run in the sender's transaction: what they write commits with it.
"""

from __future__ import annotations

from django.dispatch import Signal

# Sent with `version` when an uploaded version is stored (status `qualifying`): the
# matches app starts its qualification game.
version_uploaded = Signal()

# Sent with `bot` when a version becomes the bot's active one: new code plays
# differently, so the ladders app resets the bot's rating uncertainty.
version_activated = Signal()
