"""Stepping through a replay fast: parsed records and game states cached in the process.

Re-simulating a game from its start costs up to a few hundred milliseconds for a long
game; browsing steps one after another should not. Two LRU caches, keyed by the replay's
sha256 (so a changed row is a different key): parsed records, and states at every
`ANCHOR_EVERY`-th step a request passed. A request simulates from the nearest anchor at
or before its step: at most ANCHOR_EVERY - 1 actions, well under a millisecond compiled.
States are cloned out of and into the cache: a cached state is never mutated.

A replay's checkpoints (the state every ANCHOR_EVERY steps, stored with it in the
database, see `checkpoints_of`) bound the simulation where this process has no anchor
near the step: one small row read and decoded (~0.3 ms) instead of up to a whole game.
Anchors and checkpoints fall on the same steps, so a decoded checkpoint is an anchor
and the cache holds states at no other steps: 300 replays of ~1,300 steps need ~6,000,
which fit, where anchors every 32 steps needed twice that and churned.

Only anchors are kept, never the state of each step asked for, and their number is
bounded: a cached state is some 60 objects that Python's cyclic garbage collector walks
on every full collection, and a cache that both grows and churns makes those collections
frequent and long (400 ms with 14,000 states), stalling every request of the process.
"""

from __future__ import annotations

import bisect
import logging
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from heights_rules import (
    CHANCE,
    PUBLIC,
    GameState,
    ReplayError,
    replay_advance,
    replay_start,
)
from heights_rules import Replay as ReplayRecord

# Sized for random access over a few hundred replays of ~1,300 steps (a state is about
# 15 kB: some 130 MB per process at most). A request that misses starts from the
# replay's stored checkpoint, else re-simulates from the nearest anchor it finds (from
# step 0 at worst, about 10 ms for a whole 4-player game, compiled); see
# loadtests/README.md, "Platform".
MAX_RECORDS = 512
MAX_STATES = 8192
# A stored state is ~4 kB, ~1.2 kB compressed: every 64 steps adds about a tenth to a
# 4-player replay's row, and reaching any step costs at most 63 actions (< 0.5 ms).
ANCHOR_EVERY = 64
CHECKPOINT_EVERY = ANCHOR_EVERY  # the same steps: a decoded checkpoint is an anchor

log = logging.getLogger(__name__)

# step -> (a stored checkpoint's step <= step, its bytes), or None: how `state_at` reads
# a replay's checkpoints (replays.selectors gives one bound to a replay row).
CheckpointLoader = Callable[[int], tuple[int, bytes] | None]

_lock = threading.Lock()
_records: OrderedDict[str, ReplayRecord] = OrderedDict()
_states: OrderedDict[tuple[str, int], GameState] = OrderedDict()
_steps_cached: dict[str, list[int]] = {}  # sha -> sorted cached steps


@dataclass(frozen=True, slots=True)
class Step:
    """The state before action `step`, the action itself and the events it caused."""

    step: int
    state: GameState
    action: int | None  # None at the end of the game (step == number of actions)
    actor: int  # the seat, or CHANCE; TERMINAL at the end
    events: list[dict[str, Any]]


def record_cached(*, sha256: str) -> ReplayRecord | None:
    """The record parsed from bytes with this sha256, if this process holds it."""
    with _lock:
        record = _records.get(sha256)
        if record is not None:
            _records.move_to_end(sha256)
        return record


def record_load(*, sha256: str, data: bytes) -> ReplayRecord:
    with _lock:
        record = _records.get(sha256)
        if record is not None:
            _records.move_to_end(sha256)
            return record
    record = ReplayRecord.from_bytes(data)
    with _lock:
        _records[sha256] = record
        while len(_records) > MAX_RECORDS:
            _records.popitem(last=False)
    return record


def _nearest(sha256: str, step: int) -> tuple[int, GameState] | None:
    with _lock:
        steps = _steps_cached.get(sha256, [])
        i = bisect.bisect_right(steps, step)
        while i > 0:
            key = (sha256, steps[i - 1])
            state = _states.get(key)
            if state is not None:
                _states.move_to_end(key)
                return steps[i - 1], state.clone()
            i -= 1
    return None


def _store(sha256: str, step: int, state: GameState) -> None:
    with _lock:
        key = (sha256, step)
        if key in _states:
            _states.move_to_end(key)
            return
        _states[key] = state.clone()
        bisect.insort(_steps_cached.setdefault(sha256, []), step)
        while len(_states) > MAX_STATES:
            (old_sha, old_step), _ = _states.popitem(last=False)
            cached = _steps_cached.get(old_sha, [])
            if old_step in cached:
                cached.remove(old_step)
            if not cached:
                _steps_cached.pop(old_sha, None)


def checkpoints_of(record: ReplayRecord) -> list[tuple[int, bytes]]:
    """(step, compressed state) every CHECKPOINT_EVERY steps of the record, for storing
    with the replay; ReplayError if the record does not simulate."""
    state = replay_start(record)
    found = []
    for index, _ in replay_advance(record, state):
        if (index + 1) % CHECKPOINT_EVERY == 0:
            found.append((index + 1, zlib.compress(state.to_bytes())))
    return found


def _checkpoint(load: CheckpointLoader, step: int) -> tuple[int, GameState] | None:
    stored = load(step)
    if stored is None:
        return None
    try:
        return stored[0], GameState.from_bytes(zlib.decompress(stored[1]))
    except (ReplayError, zlib.error, ValueError, KeyError, TypeError) as err:
        # Written by another version of the rules core, say: simulating still works.
        log.warning("unusable replay checkpoint at step %s: %s", stored[0], err)
        return None


def state_at(
    *, sha256: str, record: ReplayRecord, step: int, checkpoints: CheckpointLoader | None = None
) -> GameState:
    """The state after the first `step` actions (heights_rules.simulate, resumed from the
    nearest state this process or the database holds)."""
    if not 0 <= step <= len(record.actions):
        raise ReplayError(f"step {step} is outside 0..{len(record.actions)}")
    found = _nearest(sha256, step)
    if checkpoints is not None and (found is None or step - found[0] >= CHECKPOINT_EVERY):
        stored = _checkpoint(checkpoints, step)
        if stored is not None and (found is None or stored[0] > found[0]):
            _store(sha256, *stored)
            found = stored
    if found is None:
        start, state = 0, replay_start(record)
        _store(sha256, 0, state)
    else:
        start, state = found
    for index, _ in replay_advance(record, state, start, step):
        if (index + 1) % ANCHOR_EVERY == 0:
            _store(sha256, index + 1, state)
    return state


def step_view(
    *, sha256: str, record: ReplayRecord, step: int, checkpoints: CheckpointLoader | None = None
) -> Step:
    state = state_at(sha256=sha256, record=record, step=step, checkpoints=checkpoints)
    if step == len(record.actions):
        return Step(step, state, None, state.current_player(), [])
    action = record.actions[step]
    # The step's events, the one way through a record (a refused action is a ReplayError).
    _, events = next(replay_advance(record, state.clone(), step, step + 1))
    return Step(
        step,
        state,
        action,
        state.current_player(),
        [{"kind": e.kind, "player": e.player, "data": e.data} for e in events],
    )


def observation_of(state: GameState, viewer: int = PUBLIC) -> dict[str, Any]:
    """The rules core's observation for `viewer` (for PUBLIC, the spectator's view, as the
    engine serves it), less the `infoset`: the raw state document, which a page showing
    the game has no use for."""
    view = state.observation(viewer)
    view.pop("infoset", None)
    return view


def actor_label(actor: int) -> int | str:
    return "chance" if actor == CHANCE else actor


def anchors(sha256: str) -> list[int]:
    """The steps of the replay this process holds states of (for tests and debugging)."""
    with _lock:
        return list(_steps_cached.get(sha256, []))


def cache_clear() -> None:
    with _lock:
        _records.clear()
        _states.clear()
        _steps_cached.clear()
