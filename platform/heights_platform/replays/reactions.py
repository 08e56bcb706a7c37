"""How the replays app reacts to the matches app: it keeps each finished match's replay.

`replay_prepare` joins `matches.signals.replay_received` (replays.apps): before the
results lock it simulates the game once for the replay's checkpoints, and returns the
write that stores the replay and its checkpoints in the recording transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from heights_platform.matches.models import Match
from heights_platform.replays import stepping
from heights_platform.replays.models import Replay, ReplayCheckpoint
from heights_rules import Replay as ReplayRecord
from heights_rules import ReplayError

log = logging.getLogger(__name__)


def replay_prepare(
    *, match: Match, record: ReplayRecord, data: bytes, sha256: str, **_: Any
) -> Callable[[], None]:
    """Receiver of `matches.signals.replay_received`: the checkpoints of `record` (none if
    it does not simulate), and the write of the replay with them."""
    try:
        checkpoints = stepping.checkpoints_of(record)
    except ReplayError as err:
        # Verification (replays.selectors.replay_verify) reports such a replay; the result
        # stands as the runner played it, and its steps are simulated from the start.
        log.warning("match %s: replay does not simulate, no checkpoints: %s", match.pk, err)
        checkpoints = []

    def store() -> None:
        row = Replay.objects.create(
            match=match, data=data, sha256=sha256, size=len(data), steps=len(record.actions)
        )
        ReplayCheckpoint.objects.bulk_create(
            [ReplayCheckpoint(replay=row, step=step, state=state) for step, state in checkpoints]
        )

    return store
