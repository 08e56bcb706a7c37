"""The runner's side of bot protocol version 1 (docs/bot-protocol.md).

Messages are single-line JSON objects. What a bot sends back is parsed strictly: a
reply that is not one JSON object of the expected type is a fault of the bot, reported
as a `ProtocolViolationError` with the forfeit reason to record. Whether the action is legal
is the engine's call (engines.EngineRefusedError).
"""

from __future__ import annotations

import json
from typing import Any

from heights_rules import ACTION_SPACE_VERSION
from heights_runner.contract import MatchSpec, TimeLimits
from heights_runner.engines import Turn

PROTOCOL_VERSION = 1
MAX_DEBUG = 200  # characters of a debug note kept in the replay
MAX_NAME = 40
# The ids an action may have on the wire (game.proto's Action.id is an int32).
MIN_ACTION_ID, MAX_ACTION_ID = -(2**31), 2**31 - 1
# Optional behaviours the runner offers in `hello`; a bot takes them in `ready`.
PATCH = "patch"  # `decide` may carry a JSON Patch from the previous observation
FEATURES = (PATCH,)


class ProtocolViolationError(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason  # "garbage" or "illegal"
        self.detail = detail


def _line(msg: dict[str, Any]) -> str:
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


def hello(spec: MatchSpec, seat: int) -> str:
    limits: TimeLimits = spec.limits
    return _line(
        {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "action_space_version": ACTION_SPACE_VERSION,
            "seat": seat,
            "players": spec.players,
            "solo": spec.solo,
            "seat_names": [s.name for s in spec.seats],
            "options": spec.options,
            "catalogue": spec.catalogue,
            "features": list(FEATURES),
            # Whether decisions with a single legal action are played without a `decide`.
            "forced_played": spec.play_forced,
            "limits": {
                "move_ms": limits.move_ms,
                "bank_ms": limits.bank_ms,
                "start_ms": limits.start_ms,
                "game_ms": limits.game_ms,
            },
        }
    )


def decide(
    turn: Turn, move_ms: int, bank_ms: int, *, game_ms: int | None = None, patch: bool = False
) -> str:
    """The decide line: the observation, or with `patch` the turn's patch when it has one.

    `game_ms`, when given, is what is left of the seat's whole-game thinking budget."""
    # The observation or patch is spliced in as the engine wrote it: re-encoding ~13 KB
    # per decision would be most of the relay's cost.
    # The clock is three integers, written as text: json.dumps of its dict cost ~3 us
    # more a decision (5.0 against 1.7 us the whole line, docs/runner.md).
    game_part = "" if game_ms is None else f',"game_ms":{max(0, int(game_ms))}'
    time_part = f'{{"move_ms":{int(move_ms)},"bank_ms":{max(0, int(bank_ms))}{game_part}}}'
    head = f'{{"type":"decide","step":{int(turn.step)},"time":{time_part},'
    if patch and turn.patch_json:
        return f'{head}"base_step":{turn.patch_base},"patch":{turn.patch_json}}}'
    return f'{head}"observation":{turn.whole_json()}}}'


def end(ranks: list[int], scores: list[int], outcome: dict[str, Any]) -> str:
    return _line({"type": "end", "ranks": ranks, "scores": scores, "outcome": outcome})


def _parse(line: str, expected: str) -> dict[str, Any]:
    # Every way the parser can refuse a line is the bot's fault, not only JSONDecodeError:
    # nesting deeper than the interpreter's recursion limit raises RecursionError, and a
    # number of more than 4300 digits ValueError (sys.get_int_max_str_digits). Escaping,
    # either ended the match as a runner fault, an infrastructure failure voiding it.
    try:
        msg = json.loads(line)
    except json.JSONDecodeError:
        raise ProtocolViolationError("garbage", f"not JSON: {line[:80]!r}") from None
    except RecursionError:
        raise ProtocolViolationError("garbage", f"JSON nested too deep: {line[:80]!r}") from None
    except ValueError as err:
        raise ProtocolViolationError("garbage", f"unreadable JSON: {str(err)[:80]}") from None
    if not isinstance(msg, dict) or msg.get("type") != expected:
        raise ProtocolViolationError(
            "garbage", f"expected a {expected!r} message, got {line[:80]!r}"
        )
    return msg


def parse_ready(line: str) -> tuple[str, frozenset[str]]:
    """The bot's name and the offered features it takes, from its `ready` message."""
    msg = _parse(line, "ready")
    name = msg.get("name", "")
    features = msg.get("features", [])
    if not isinstance(features, list):
        raise ProtocolViolationError(
            "garbage", f"`features` must be a list, got {features!r}"[:120]
        )
    taken = frozenset(f for f in features if isinstance(f, str) and f in FEATURES)
    return _text(name, MAX_NAME), taken


def parse_action(line: str) -> tuple[int, str]:
    """The chosen action id and the bot's debug note; the engine judges legality."""
    msg = _parse(line, "action")
    action = msg.get("id")
    if isinstance(action, bool) or not isinstance(action, int):
        raise ProtocolViolationError("garbage", f"`id` must be an integer, got {action!r}"[:120])
    if not MIN_ACTION_ID <= action <= MAX_ACTION_ID:
        # No action has such an id, and the engine could not even be asked: the wire
        # carries an int32 (game.proto's Action.id). Judged as the engine judges 99999.
        raise ProtocolViolationError("illegal", f"action id {action} is no action"[:120])
    return action, _text(msg.get("debug", ""), MAX_DEBUG)


def _text(value: object, limit: int) -> str:
    """A string the bot sent, cut to `limit`, as text UTF-8 can hold: JSON's "\\ud800"
    is a lone surrogate, which no UTF-8 encoder takes (the replay's raised at the
    match's end, failing the match), so each becomes "?"."""
    if not isinstance(value, str):
        return ""
    value = value[:limit]
    return value if value.isascii() else value.encode("utf-8", "replace").decode("utf-8")
