"""The runner's memory of finished matches, so a redelivered task sends, not replays.

A match task may arrive twice (a worker died after playing but before acknowledging, or
a visibility timeout elapsed). The first result stored under the match id wins (SET NX
in Redis, an exclusive create in a folder); a later run finds it and re-sends that same
result, which the platform records once. The bots' logs are not kept: a re-sent result
goes without them, and a week of results stays small whatever the bots wrote.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Protocol

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from heights_runner.contract import MatchResult

TTL_SECONDS = 7 * 24 * 3600
RETRIES = 35  # ~1 minute at the 2 s cap


class Ledger(Protocol):
    def get(self, match_id: str) -> MatchResult | None: ...

    def put(self, result: MatchResult) -> MatchResult:
        """Store `result` unless one is stored; return the one that is."""
        ...


class RedisLedger:
    def __init__(self, url: str, prefix: str = "heights:runner:result:") -> None:
        # A Redis restart must delay a result, not fail the task that holds it (which
        # would acknowledge the match unrecorded): keep trying for about a minute. A SET
        # retried after its reply was lost finds its own value, which `put` returns.
        self._redis = redis.Redis.from_url(
            url,
            retry=Retry(ExponentialBackoff(cap=2.0, base=0.1), RETRIES),
            retry_on_error=[redis.ConnectionError, redis.TimeoutError],
        )
        self._prefix = prefix

    def get(self, match_id: str) -> MatchResult | None:
        raw = self._redis.get(self._prefix + match_id)
        return MatchResult.from_dict(json.loads(raw)) if raw else None

    def put(self, result: MatchResult) -> MatchResult:
        key = self._prefix + result.match_id
        kept = json.dumps(result.without_logs().to_dict())
        if self._redis.set(key, kept, nx=True, ex=TTL_SECONDS):
            return result
        stored = self.get(result.match_id)
        return stored or result


class FolderLedger:
    def __init__(self, folder: Path) -> None:
        self._folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def _path(self, match_id: str) -> Path:
        safe = "".join(c for c in match_id if c.isalnum() or c in "-_")
        return self._folder / f"{safe}.json"

    def get(self, match_id: str) -> MatchResult | None:
        try:
            return MatchResult.from_dict(json.loads(self._path(match_id).read_text()))
        except FileNotFoundError:
            return None

    def put(self, result: MatchResult) -> MatchResult:
        path = self._path(result.match_id)
        part = path.with_suffix(f".{os.getpid()}.part")
        part.write_text(json.dumps(result.without_logs().to_dict()))
        try:
            os.link(part, path)  # fails if present: the first result wins
        except FileExistsError:
            return self.get(result.match_id) or result
        finally:
            part.unlink()
        return result


def open_ledger(url: str, var_dir: Path) -> Ledger:
    return RedisLedger(url) if url.startswith("redis") else FolderLedger(var_dir / "results")
