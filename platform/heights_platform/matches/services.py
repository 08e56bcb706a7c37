"""Writes of the matches app, one module each (re-exported here, the app's write API).

- `creation`: `match_create`, `challenge_create` and the one `options_check` of rule
  options and catalogue (ladders and tournaments call it too).
- `seeds`: seeds from `secrets`, their commitment, their width in the database.
- `sending`: the `MatchSpec` sent to the runner by task name, and sent again if stalled.
- `recording`: a runner's result recorded exactly once; the apps above hear of it
  through `signals.match_recorded` (ladders rate, tournaments advance).
- `qualification`: a new bot version's first game and its verdict.
"""

from __future__ import annotations

from heights_platform.matches.creation import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    challenge_create,
    match_create,
    options_check,
)
from heights_platform.matches.qualification import (
    QUALIFICATION_ATTEMPTS,
    match_create_for_qualification,
)
from heights_platform.matches.recording import (
    match_mark_running,
    match_result_record,
    match_results_record,
    seat_logs_prune,
)
from heights_platform.matches.seeds import SEED_BITS, SEED_LIMIT, seed_commitment, seed_draw
from heights_platform.matches.sending import (
    RESEND_QUEUED_AFTER,
    RESEND_UNSENT_AFTER,
    match_enqueue,
    match_limits,
    match_send_again,
    match_spec,
    matches_resend_stalled,
    seat_label,
    seat_name,
)

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "QUALIFICATION_ATTEMPTS",
    "RESEND_QUEUED_AFTER",
    "RESEND_UNSENT_AFTER",
    "SEED_BITS",
    "SEED_LIMIT",
    "challenge_create",
    "match_create",
    "match_create_for_qualification",
    "match_enqueue",
    "match_limits",
    "match_mark_running",
    "match_result_record",
    "match_results_record",
    "match_send_again",
    "match_spec",
    "matches_resend_stalled",
    "options_check",
    "seat_label",
    "seat_logs_prune",
    "seat_name",
    "seed_commitment",
    "seed_draw",
]
