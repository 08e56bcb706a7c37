"""The service's configuration: `HEIGHTS_ENGINE_*` environment variables, read once.

Every variable is listed in the repository's `.env.example`. Nothing set gives a working
development server: 127.0.0.1:50051, the in-memory store, no metrics endpoint.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields

from heights_engine.collector import GC_THRESHOLDS

PREFIX = "HEIGHTS_ENGINE_"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL", "FATAL")  # logging's
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
# Each of the collector's thresholds; generation 0's bounds the garbage held between
# collections.
MAX_GC_THRESHOLD = 1_000_000
_DIGITS = re.compile(r"[0-9]{1,7}")


class SettingsError(ValueError):
    """An environment variable has a value the service cannot use."""


@dataclass(frozen=True, slots=True)
class Settings:
    address: str = "127.0.0.1:50051"
    redis_url: str = ""  # empty: the in-memory store (one replica only)
    redis_prefix: str = "heights:engine"  # every Redis key starts with it
    metrics_port: int = 0  # 0: no Prometheus endpoint
    metrics_address: str = "127.0.0.1"
    cache_size: int = 1000  # live game states kept per replica
    max_games: int = 10000  # unfinished games at once, across replicas
    max_streams: int = 1000  # open StreamGameEvents + ApplyActions streams per replica
    game_ttl_seconds: int = 24 * 3600  # an unfinished game idle this long expires
    finished_ttl_seconds: int = 30 * 24 * 3600  # a finished game kept until archived
    token_secret: str = ""  # derives seat tokens; replicas must share it (empty: random)
    # The credential for creating and deleting games (auth.py). Empty: one is generated
    # at start and written to operator_token_file (default: a file named for the port in
    # the temporary folder), which the log names.
    operator_token: str = ""
    operator_token_file: str = ""
    max_message_bytes: int = 4 * 1024 * 1024
    keepalive_time_ms: int = 30_000
    keepalive_timeout_ms: int = 10_000
    shutdown_grace_seconds: float = 20.0
    log_level: str = "INFO"
    # The collector's thresholds once serving, generations 0,1,2 (collector.py says why).
    gc_thresholds: str = ",".join(str(t) for t in GC_THRESHOLDS)

    def __post_init__(self) -> None:
        positive = ("cache_size", "max_games", "max_streams", "game_ttl_seconds")
        for name in (*positive, "finished_ttl_seconds", "max_message_bytes"):
            if getattr(self, name) <= 0:
                raise SettingsError(f"{PREFIX}{name.upper()} must be positive")
        if not 0 <= self.metrics_port <= 65535:
            raise SettingsError(f"{PREFIX}METRICS_PORT must be a port number or 0")
        if self.shutdown_grace_seconds < 0:
            raise SettingsError(f"{PREFIX}SHUTDOWN_GRACE_SECONDS must not be negative")
        if not self.address or ":" not in self.address:
            raise SettingsError(f"{PREFIX}ADDRESS must be host:port")
        if self.log_level.upper() not in LOG_LEVELS:
            raise SettingsError(f"{PREFIX}LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}")
        if self.redis_url and not self.redis_url.startswith(REDIS_SCHEMES):
            raise SettingsError(
                f"{PREFIX}REDIS_URL must start with {', '.join(REDIS_SCHEMES)} (or be empty)"
            )
        parse_gc_thresholds(self.gc_thresholds)

    @property
    def gc_threshold_values(self) -> tuple[int, int, int]:
        return parse_gc_thresholds(self.gc_thresholds)

    @property
    def store_name(self) -> str:
        return "redis" if self.redis_url else "memory"


def parse_gc_thresholds(text: str) -> tuple[int, int, int]:
    """`first,second,third`: the three numbers `gc.set_threshold` takes, each bounded."""
    name, given = f"{PREFIX}GC_THRESHOLDS", repr(text[:40])
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 3 or not all(_DIGITS.fullmatch(p) for p in parts):
        raise SettingsError(f"{name} must be three whole numbers like 700,10,1000, not {given}")
    first, second, third = (int(p) for p in parts)
    if not all(1 <= value <= MAX_GC_THRESHOLD for value in (first, second, third)):
        raise SettingsError(f"{name}: each threshold must be 1 to {MAX_GC_THRESHOLD}, not {given}")
    return first, second, third


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from the environment (or `environ`); unset or empty variables keep defaults."""
    env = os.environ if environ is None else environ
    values: dict[str, object] = {}
    for f in fields(Settings):
        raw = env.get(PREFIX + f.name.upper(), "").strip()
        if not raw:
            continue
        default = getattr(Settings(), f.name)
        try:
            values[f.name] = type(default)(raw)
        except ValueError:
            kind = type(default).__name__
            raise SettingsError(
                f"{PREFIX}{f.name.upper()} must be an {kind}, not {raw!r}"
            ) from None
    return Settings(**values)  # type: ignore[arg-type]
