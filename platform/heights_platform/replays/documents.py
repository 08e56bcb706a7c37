"""What the replay viewer reads, built from a replay record with no Django: one step's
document (as `GET /api/v1/replays/{id}/steps/{n}/` serves it) and the seats' results.

The platform's step API and `heights view` (a replay file on the author's machine) both
build their documents here, so a local page shows exactly what the platform would.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from heights_platform.replays import stepping
from heights_rules import PUBLIC, action_text, replay_advance, replay_start
from heights_rules import Replay as ReplayRecord


def step_document(
    *, record: ReplayRecord, view: stepping.Step, viewer: int = PUBLIC
) -> dict[str, Any]:
    """The observation before action `view.step` (at the end, the final state), the
    action with the acting bot's debug note, and the events it caused."""
    action = None
    if view.action is not None:
        action = {
            "id": view.action,
            "text": action_text(view.action),
            "actor": stepping.actor_label(view.actor),
            "debug": record.debug.get(view.step, ""),
        }
    return {
        "step": view.step,
        "steps": len(record.actions),
        "viewer": "public" if viewer == PUBLIC else viewer,
        "observation": stepping.observation_of(view.state, viewer),
        "action": action,
        "events": view.events,
    }


def step_documents(record: ReplayRecord) -> Iterator[dict[str, Any]]:
    """Every step's public document in order, simulating the game once (what
    `step_document` gives for each step, without re-simulating from an anchor each time);
    ReplayError if the record does not simulate."""
    state = replay_start(record)
    before = state.clone()
    for index, events in replay_advance(record, state):
        view = stepping.Step(
            index,
            before,
            record.actions[index],
            before.current_player(),
            [{"kind": e.kind, "player": e.player, "data": e.data} for e in events],
        )
        yield step_document(record=record, view=view)
        before = state.clone()
    final = stepping.Step(len(record.actions), state, None, state.current_player(), [])
    yield step_document(record=record, view=final)
