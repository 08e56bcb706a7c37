"""Writes of the replays app: checkpoints for replays recorded before they were stored.

A result's replay gets its checkpoints when it is recorded (replays.reactions); this
fills them in for older rows, one replay per transaction, safe to run twice or
alongside the platform (the unique (replay, step) constraint keeps one of each).
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import Exists, OuterRef

from heights_platform.replays import stepping
from heights_platform.replays.models import Replay, ReplayCheckpoint
from heights_rules import Replay as ReplayRecord
from heights_rules import ReplayError

log = logging.getLogger(__name__)


def replay_checkpoints_fill(*, limit: int | None = None) -> int:
    """Store the checkpoints of replays long enough to have some and having none;
    returns how many replays got them."""
    missing = (
        Replay.objects.filter(steps__gte=stepping.CHECKPOINT_EVERY)
        .exclude(Exists(ReplayCheckpoint.objects.filter(replay=OuterRef("pk"))))
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    filled = 0
    for replay_id in list(missing[:limit] if limit is not None else missing):
        replay = Replay.objects.only("pk", "data").get(pk=replay_id)
        try:
            checkpoints = stepping.checkpoints_of(ReplayRecord.from_bytes(bytes(replay.data)))
        except ReplayError as err:
            log.warning("replay %s does not simulate, no checkpoints: %s", replay_id, err)
            continue
        with transaction.atomic():
            ReplayCheckpoint.objects.bulk_create(
                [ReplayCheckpoint(replay_id=replay_id, step=s, state=b) for s, b in checkpoints],
                ignore_conflicts=True,
            )
        filled += 1
    return filled
