"""What the matches app tells the apps above it: a replay arrived, a result was recorded.

The matches app knows nothing of ladders, tournaments or qualification rules: each app
that creates matches of its kind joins these signals in its `AppConfig.ready` and
reacts to its own matches (`match.kind`). Receivers run in the recording transaction,
so what they write commits or rolls back with the result; an exception in one undoes
the recording, and the runner's message is redelivered.
"""

from __future__ import annotations

from django.dispatch import Signal

# Sent once per recorded result (finished or failed), with `match` and `batch`: True
# when the result is one of `match_results_record`'s batch, which then sends
# `results_recorded` once all of its results are in (a ladder rates them together).
match_recorded = Signal()

# Sent at the end of `match_results_record`, with `matches`: those it recorded.
results_recorded = Signal()

# Sent once per `finished` result whose replay reads and fits the match, before the
# results lock is taken, with `match`, `record` (the parsed heights_rules.Replay), `data`
# (its bytes as received) and `sha256`: receivers may do slow work here (the replays app
# simulates the game for its checkpoints) without holding up other results. Each returns
# a callable that writes what it prepared: recording calls them in its transaction, once
# the result is accepted, so they commit or roll back with it.
replay_received = Signal()
