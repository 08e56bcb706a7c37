"""JSON logs for the platform: one object a line, with the match a line is about.

`JsonFormatter` (heights_logs, the one every service uses) writes `time`, `level`,
`logger`, `message` and every `extra=` field, so `match_id` / `game_id` join across
services.
`ContextFilter` adds `match_id` to every record logged while a match result is being
recorded (`recording_match`, set around the Celery task by common.metrics), so the
services' own log lines carry it without passing it down.
"""

from __future__ import annotations

import contextvars
import logging

from heights_logs import JsonFormatter

__all__ = ["ContextFilter", "JsonFormatter", "recording_match"]

# The match whose result this process is recording; empty outside that task.
recording_match: contextvars.ContextVar[str] = contextvars.ContextVar("recording_match", default="")


class ContextFilter(logging.Filter):
    """Adds `match_id` (when recording a result) to records that do not have one."""

    def filter(self, record: logging.LogRecord) -> bool:
        match_id = recording_match.get()
        if match_id and not hasattr(record, "match_id"):
            record.match_id = match_id
        return True
