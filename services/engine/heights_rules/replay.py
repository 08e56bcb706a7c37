"""Replay records: everything needed to re-simulate a game to the identical final state.

A record holds the engine and action-space versions, the configuration (catalogue id
and hash, options), the seed, the seat names and every action, chance steps included.
Every `CHECKPOINT_EVERY` steps it keeps a short state hash, so verification can say
where a re-simulation left the recorded game. Files are gzip-compressed canonical JSON.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from heights_rules import limits
from heights_rules.actions import ACTION_SPACE_VERSION, NUM_ACTIONS
from heights_rules.catalogue import canonical_json
from heights_rules.errors import (
    ActionError,
    DocumentTooDeepError,
    DocumentTooLargeError,
    ReplayError,
    ReplayTooDeepError,
    ReplayTooLargeError,
)
from heights_rules.game import GameState, new_game
from heights_rules.options import GameConfig, RuleOptionError
from heights_rules.rng import SEED_BITS
from heights_rules.serialize import state_hash
from heights_rules.state import Event

FORMAT = "rolling-heights-replay"
FORMAT_VERSION = 1
CHECKPOINT_EVERY = 64
# A replay file's name ends so, wherever one is written (the CLI, the platform's
# download); files named `.rhr` by earlier versions hold the same bytes and still read.
FILE_SUFFIX = ".replay.gz"
ENGINE_VERSION = "0.1.0"
# Bounds on reading a record (a 4-player game with a 200-character note at every step is
# ~5 KiB of gzip and ~230 KiB of JSON): compressed as given, and decompressed.
MAX_REPLAY_BYTES = 2 * 2**20
MAX_REPLAY_JSON_BYTES = 4 * 2**20


@dataclass(slots=True)
class Replay:
    config: GameConfig
    seed: int
    seats: list[str]
    actions: list[int] = field(default_factory=list)
    checkpoints: list[str] = field(default_factory=list)  # 12 hex digits every 64 steps
    final_hash: str = ""
    engine_version: str = ENGINE_VERSION
    debug: dict[int, str] = field(default_factory=dict)  # step -> a bot's note
    # Seats whose bot forfeited, recorded by the match runner: {"seat", "reason", "step",
    # "detail"}; from `step` on, a stand-in played the seat. Written only when present,
    # so records without forfeits keep their bytes.
    forfeits: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        extra = {"forfeits": self.forfeits} if self.forfeits else {}
        return extra | {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "engine_version": self.engine_version,
            "action_space_version": ACTION_SPACE_VERSION,
            "config": self.config.to_dict(),
            "seed": self.seed,
            "seats": self.seats,
            "actions": self.actions,
            "checkpoints": self.checkpoints,
            "final_hash": self.final_hash,
            "debug": {str(k): v for k, v in sorted(self.debug.items())},
        }

    @classmethod
    def from_dict(cls, data: Any) -> Replay:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ReplayError("not a Rolling Heights replay record")
        if data.get("version") != FORMAT_VERSION:
            raise ReplayError(f"replay format version {data.get('version')} is not supported")
        if data.get("action_space_version") != ACTION_SPACE_VERSION:
            raise ReplayError("the replay was recorded with another action space")
        try:
            config = GameConfig.from_dict(_typed(data, "config", dict))
        except RuleOptionError as err:
            raise ReplayError(f"the replay's rule options do not validate: {err}") from None
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise ReplayError(f"malformed replay record: {err}") from None
        try:
            return cls(
                config=config,
                seed=_seed(data.get("seed")),
                seats=[str(n) for n in _typed(data, "seats", list)],
                actions=[_action_id(a) for a in _typed(data, "actions", list)],
                checkpoints=[str(c) for c in data.get("checkpoints", [])],
                final_hash=str(data.get("final_hash", "")),
                engine_version=str(data.get("engine_version", "")),
                debug={int(k): str(v) for k, v in _typed(data, "debug", dict, {}).items()},
                forfeits=[dict(f) for f in _typed(data, "forfeits", list, [])],
            )
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise ReplayError(f"malformed replay record: {err}") from None

    def to_bytes(self) -> bytes:
        """gzip of the canonical JSON, with a fixed mtime so the bytes are reproducible."""
        return gzip.compress(canonical_json(self.to_dict()), compresslevel=9, mtime=0)

    @classmethod
    def from_bytes(
        cls,
        blob: bytes,
        *,
        max_bytes: int = MAX_REPLAY_BYTES,
        max_json_bytes: int = MAX_REPLAY_JSON_BYTES,
    ) -> Replay:
        """A record from its gzip (or plain JSON) bytes, read within the bounds given.

        Over a bound: `ReplayTooLargeError` or `ReplayTooDeepError`, naming the limit.
        """
        if len(blob) > max_bytes:
            raise ReplayTooLargeError(
                f"replay is {len(blob)} bytes; the limit is {max_bytes}", max_bytes
            )
        try:
            text = limits.gunzip(blob, max_json_bytes) if blob[:2] == limits.GZIP_MAGIC else blob
            if len(text) > max_json_bytes:
                raise DocumentTooLargeError(f"more than {max_json_bytes} bytes", max_json_bytes)
            return cls.from_dict(limits.loads(text))
        except DocumentTooLargeError as err:
            raise ReplayTooLargeError(
                f"replay JSON is {err}; the limit is {err.limit} bytes", err.limit
            ) from None
        except DocumentTooDeepError as err:
            raise ReplayTooDeepError(
                f"replay JSON is {err}; the limit is {err.limit} levels", err.limit
            ) from None
        except (OSError, EOFError, zlib.error, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise ReplayError(f"unreadable replay: {err}") from None

    def digest(self) -> str:
        """SHA-256 of the canonical JSON: the replay's identity."""
        return hashlib.sha256(canonical_json(self.to_dict())).hexdigest()


def _typed(data: dict[str, Any], key: str, kind: type, default: Any = None) -> Any:
    value = data.get(key, default)
    if not isinstance(value, kind):
        raise ReplayError(f"malformed replay record: {key!r} must be a {kind.__name__}")
    return value


def _seed(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**SEED_BITS:
        raise ReplayError("malformed replay record: seed must be an integer in [0, 2**64)")
    return value


def _action_id(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < NUM_ACTIONS:
        raise ReplayError(f"malformed replay record: {value!r} is not an action id")
    return value


class Recorder:
    """Plays actions on a state and records them (and the checkpoints) as it goes."""

    def __init__(self, state: GameState, seats: list[str]) -> None:
        self.state = state
        self.replay = Replay(state.config, state.seed, seats)

    def apply(self, action: int, note: str = "") -> None:
        self.state.apply(action)
        self.replay.actions.append(action)
        if note:
            self.replay.debug[len(self.replay.actions) - 1] = note[:200]
        if len(self.replay.actions) % CHECKPOINT_EVERY == 0:
            self.replay.checkpoints.append(state_hash(self.state)[:12])
        if self.state.is_terminal():
            self.replay.final_hash = state_hash(self.state)


@dataclass(frozen=True, slots=True)
class Verification:
    ok: bool
    steps: int
    message: str
    first_bad_step: int | None = None


def replay_start(replay: Replay) -> GameState:
    """The state before the record's first action; ReplayError if it cannot be set up."""
    try:
        return new_game(replay.config, replay.seed)
    except ValueError as err:
        raise ReplayError(f"cannot set up the game: {err}") from None


def replay_advance(
    replay: Replay, state: GameState, start: int = 0, upto: int | None = None
) -> Iterator[tuple[int, list[Event]]]:
    """Play the record's actions `start`..`upto` - 1 on `state`, the state after the first
    `start` of them (`replay_start` for 0), in place; after each, yield its step and the
    events it caused. ReplayError at an action the state refuses.

    The one way through a record, for everyone who steps through one (`simulate`, the
    platform's cached stepping and its documents): a state saved at some step resumes here.
    """
    stop = len(replay.actions) if upto is None else min(upto, len(replay.actions))
    for step in range(start, stop):
        action = replay.actions[step]
        try:
            events = state.apply(action)
        except ActionError as err:
            raise ReplayError(f"step {step}: action {action}: {err}") from None
        yield step, events


def simulate(replay: Replay, upto: int | None = None) -> GameState:
    """The state after the first `upto` actions (all of them by default)."""
    state = replay_start(replay)
    for _ in replay_advance(replay, state, 0, len(replay.actions[:upto])):
        pass
    return state


def verify(replay: Replay) -> Verification:
    """Re-simulate; say it matches, or name the first step where it does not."""
    try:
        state = new_game(replay.config, replay.seed)
    except ValueError as err:
        return Verification(False, 0, f"cannot set up the game: {err}", 0)
    last_good = 0
    for step, action in enumerate(replay.actions):
        try:
            state.apply(action)
        except ActionError as err:
            return Verification(False, step, f"step {step}: recorded action rejected: {err}", step)
        done = step + 1
        if done % CHECKPOINT_EVERY == 0:
            index = done // CHECKPOINT_EVERY - 1
            if (
                index < len(replay.checkpoints)
                and state_hash(state)[:12] != replay.checkpoints[index]
            ):
                # Checkpoints bound the divergence to one window; its first step is the
                # earliest that can differ.
                return Verification(
                    False,
                    done,
                    f"state differs within steps {last_good}..{done - 1}",
                    last_good,
                )
            last_good = done
    if not state.is_terminal():
        return Verification(
            False,
            len(replay.actions),
            "the recorded game does not reach its end",
            len(replay.actions),
        )
    if replay.final_hash and state_hash(state) != replay.final_hash:
        return Verification(
            False,
            len(replay.actions),
            f"the final state differs from the recorded one (within steps {last_good}..)",
            last_good,
        )
    return Verification(True, len(replay.actions), f"identical: {len(replay.actions)} steps")
