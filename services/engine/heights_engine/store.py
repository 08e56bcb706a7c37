"""Event-sourced game storage: one record per game and its action log (the replay).

`GameStore` is the interface; `MemoryStore` keeps everything in this process (the
default when no Redis is configured) and `redis_store.RedisStore` shares games between
replicas. Both append atomically and only at the expected sequence, expire idle
unfinished games, and keep finished ones until deleted (or their long TTL).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from heights_engine.errors import Code, EngineError, not_found, stale


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What never changes about a game; `token_hashes` are SHA-256 of the seat tokens."""

    game_id: str
    config: dict[str, Any]
    seed: int
    salt_hex: str
    commitment: str
    seat_names: tuple[str, ...]
    token_hashes: tuple[str, ...]
    token_nonce: str
    request_id: str
    fingerprint: str  # SHA-256 of the create request, to refuse a reused request id
    created_at: float = 0.0

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        data = json.loads(text)
        data["seat_names"] = tuple(data["seat_names"])
        data["token_hashes"] = tuple(data["token_hashes"])
        return cls(**data)


class GameStore(Protocol):
    """Shared storage of every game's record and action log."""

    name: str

    async def create(self, record: GameRecord, actions: list[int], finished: bool) -> GameRecord:
        """Store a new game, or return the game already created under its request id.

        Raises RESOURCE_EXHAUSTED when `max_games` unfinished games exist.
        """
        ...

    async def load(self, game_id: str) -> GameRecord:
        """The game's record; raises NOT_FOUND."""
        ...

    async def actions(self, game_id: str, start: int = 0) -> list[int]:
        """The action log from `start` on; raises NOT_FOUND."""
        ...

    async def append(self, game_id: str, expected: int, actions: list[int], finished: bool) -> int:
        """Append if the log still has `expected` actions; the new length.

        Raises ABORTED (stale sequence) or NOT_FOUND, and then changes nothing.
        """
        ...

    async def wait(self, game_id: str, sequence: int, timeout: float) -> None:
        """Return once the log is longer than `sequence`, or after `timeout` seconds."""
        ...

    async def delete(self, game_id: str) -> bool:
        """Remove a game (archived by the platform); whether it existed."""
        ...

    async def close(self) -> None: ...


@dataclass(slots=True)
class _MemoryGame:
    record: GameRecord
    log: list[int]
    finished: bool
    expires: float
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class MemoryStore:
    """Everything in this process: for development and tests, one replica only."""

    name = "memory"

    def __init__(self, *, max_games: int, game_ttl: float, finished_ttl: float) -> None:
        self._games: dict[str, _MemoryGame] = {}
        self._requests: dict[str, str] = {}
        self._max_games = max_games
        self._game_ttl = game_ttl
        self._finished_ttl = finished_ttl

    def _get(self, game_id: str) -> _MemoryGame:
        game = self._games.get(game_id)
        if game is None or game.expires <= time.monotonic():
            if game is not None:
                del self._games[game_id]
                self._requests.pop(game.record.request_id, None)
            raise not_found(game_id)
        return game

    def _ttl(self, finished: bool) -> float:
        return time.monotonic() + (self._finished_ttl if finished else self._game_ttl)

    async def create(self, record: GameRecord, actions: list[int], finished: bool) -> GameRecord:
        existing = self._requests.get(record.request_id)
        if existing is not None and existing in self._games:
            return self._get(existing).record
        now = time.monotonic()
        live = sum(1 for g in self._games.values() if not g.finished and g.expires > now)
        if live >= self._max_games:
            raise EngineError(
                Code.RESOURCE_EXHAUSTED, "TOO_MANY_GAMES", f"{live} games are in progress"
            )
        self._games[record.game_id] = _MemoryGame(
            record, list(actions), finished, self._ttl(finished)
        )
        self._requests[record.request_id] = record.game_id
        return record

    async def load(self, game_id: str) -> GameRecord:
        return self._get(game_id).record

    async def actions(self, game_id: str, start: int = 0) -> list[int]:
        return self._get(game_id).log[start:]

    async def append(self, game_id: str, expected: int, actions: list[int], finished: bool) -> int:
        game = self._get(game_id)
        if len(game.log) != expected:
            raise stale(expected, len(game.log))
        game.log.extend(actions)
        game.finished = finished
        game.expires = self._ttl(finished)
        game.changed.set()
        game.changed = asyncio.Event()
        return len(game.log)

    async def wait(self, game_id: str, sequence: int, timeout: float) -> None:
        game = self._get(game_id)
        if len(game.log) > sequence:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(game.changed.wait(), timeout)

    async def delete(self, game_id: str) -> bool:
        game = self._games.pop(game_id, None)
        if game is not None:
            self._requests.pop(game.record.request_id, None)
        return game is not None

    async def close(self) -> None:
        self._games.clear()
