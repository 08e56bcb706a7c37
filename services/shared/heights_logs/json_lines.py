"""JSON log lines shared by the services: one object a line, `extra=` fields as keys.

Every service writes the same shape (`time`, `level`, `logger`, `message`, then fields
such as `game_id` and `match_id`), so a log collector can join a match's lines across
the engine, the runner and the platform.
"""

from __future__ import annotations

import json
import logging
from typing import Any

# Attributes every LogRecord has; anything else on a record came from `extra=`.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


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
