"""JSON logs for the platform: one object a line, with the match a line is about.

`JsonFormatter` writes `time`, `level`, `logger`, `message` and every `extra=` field
(the same shape as the engine's logs, so `match_id` / `game_id` join across services).
`ContextFilter` adds `match_id` to every record logged while a match result is being
recorded (`recording_match`, set around the Celery task by common.metrics), so the
services' own log lines carry it without passing it down.
"""

from __future__ import annotations

import contextvars
import json
import logging
from typing import Any

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}

# The match whose result this process is recording; empty outside that task.
recording_match: contextvars.ContextVar[str] = contextvars.ContextVar("recording_match", default="")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        doc.update({k: v for k, v in vars(record).items() if k not in _STANDARD})
        if record.exc_info:
            doc["exception"] = self.formatException(record.exc_info)
        return json.dumps(doc, default=str)


class ContextFilter(logging.Filter):
    """Adds `match_id` (when recording a result) to records that do not have one."""

    def filter(self, record: logging.LogRecord) -> bool:
        match_id = recording_match.get()
        if match_id and not hasattr(record, "match_id"):
            record.match_id = match_id
        return True
