"""The bot side of protocol version 1: read JSON lines on stdin, answer on stdout.

Anything a bot wants to log goes to stderr (the runner keeps a bounded amount of it);
stdout carries protocol messages only, one JSON object per line.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

from heights_sdk.bot import Bot, Decision, LegalAction
from heights_sdk.patch import PatchError, apply_patch

PROTOCOL_VERSION = 1
MAX_DEBUG = 200  # characters of a debug note the runner keeps
# Offered features this SDK takes: observations sent as patches cost the runner and the
# bot a fraction of whole ones, and the SDK hands the bot whole observations either way.
FEATURES = ("patch",)


class ProtocolError(RuntimeError):
    """The runner sent something this SDK does not understand."""


def decision_from_message(msg: dict[str, Any], observation: dict[str, Any]) -> Decision:
    game_ms = msg["time"].get("game_ms")
    return Decision(
        step=int(msg["step"]),
        decision=str(observation.get("decision", "")),
        legal=tuple(LegalAction(int(a["id"]), str(a["text"])) for a in observation["legal"]),
        observation=observation,
        move_ms=int(msg["time"]["move_ms"]),
        bank_ms=int(msg["time"]["bank_ms"]),
        game_ms=None if game_ms is None else int(game_ms),
    )


def action_id(action: Any) -> int:
    """The id to send for what `choose` returned: an id, or a `LegalAction` (a bot that
    picks from `decision.legal` may hand back the entry itself)."""
    if isinstance(action, LegalAction):
        return action.id
    try:
        return int(action)
    except (TypeError, ValueError):
        raise TypeError(
            f"choose() returned {action!r} ({type(action).__name__}); expected a legal "
            "action id (int) or a LegalAction from decision.legal, optionally with a note "
            "as (action, note)"
        ) from None


def _send(out: IO[str], msg: dict[str, Any]) -> None:
    out.write(json.dumps(msg, separators=(",", ":")) + "\n")
    out.flush()


def run(bot: Bot, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
    """Play one game: hello → ready, decide → action (repeated), end."""
    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    observation: Any = None  # the last observation, the base of the next patch
    step = -1  # and the step it was sent for
    for line in inp:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            if msg.get("protocol") != PROTOCOL_VERSION:
                raise ProtocolError(f"protocol {msg.get('protocol')} is not supported")
            bot.seat, bot.players = int(msg["seat"]), int(msg["players"])
            bot.options = dict(msg.get("options", {}))
            bot.on_start(msg)
            offered = msg.get("features", [])
            taken = [f for f in FEATURES if f in offered]
            _send(out, {"type": "ready", "name": bot.name, "features": taken})
        elif kind == "decide":
            observation = _observation(msg, observation, step)
            step = int(msg["step"])
            choice = bot.choose(decision_from_message(msg, observation))
            action, note = choice if isinstance(choice, tuple) else (choice, "")
            reply: dict[str, Any] = {"type": "action", "id": action_id(action)}
            if note:
                reply["debug"] = str(note)[:MAX_DEBUG]
            _send(out, reply)
        elif kind == "end":
            bot.on_end(msg)
            return
        else:
            raise ProtocolError(f"unknown message type {kind!r}")


def _observation(msg: dict[str, Any], last: Any, last_step: int) -> Any:
    """The decision's whole observation: sent as it is, or as a patch of the last one."""
    if "patch" not in msg:
        return msg["observation"]
    if last is None or msg.get("base_step") != last_step:
        raise ProtocolError(
            f"a patch from step {msg.get('base_step')}, but this bot holds {last_step}"
        )
    try:
        return apply_patch(last, msg["patch"])
    except PatchError as err:
        raise ProtocolError(f"step {msg.get('step')}: the patch does not apply: {err}") from None
