"""The one JSON log shape: an object a line with `extra=` fields as keys, written by the
engine service and the platform through the same formatter."""

from __future__ import annotations

import json
import logging
import sys

from heights_logs import JsonFormatter


def _record(**extra: object) -> logging.LogRecord:
    record = logging.LogRecord(
        "heights.test", logging.WARNING, __file__, 1, "%s won", ("ada",), None
    )
    record.__dict__.update(extra)
    return record


def test_a_line_is_one_object_with_the_message_and_every_extra_field() -> None:
    line = JsonFormatter().format(_record(match_id="m-1", game_id="g-2", seats=[0, 1]))
    doc = json.loads(line)
    assert "\n" not in line
    assert (doc["level"], doc["logger"], doc["message"]) == ("WARNING", "heights.test", "ada won")
    assert (doc["match_id"], doc["game_id"], doc["seats"]) == ("m-1", "g-2", [0, 1])
    assert not {"args", "msg"} & set(doc)  # a LogRecord's own attributes stay out


def test_an_exception_is_kept_and_a_value_json_cannot_hold_is_written_as_text() -> None:
    try:
        raise ValueError("bad seat")
    except ValueError:
        record = _record(when=object())
        record.exc_info = sys.exc_info()
    doc = json.loads(JsonFormatter().format(record))
    assert "ValueError: bad seat" in doc["exception"]
    assert doc["when"].startswith("<object object")


def test_the_engine_and_the_platform_write_with_this_formatter() -> None:
    from heights_engine.server import configure_logging
    from heights_platform.common import logging as platform_logging

    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        configure_logging("info")
        assert [type(h.formatter) for h in root.handlers] == [JsonFormatter]
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    assert platform_logging.JsonFormatter is JsonFormatter
