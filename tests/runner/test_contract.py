"""The runner's messages: bounded bot logs, results from newer runners, and a ledger
that keeps results without logs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from heights_runner.contract import (
    LOG_CUT_NOTE,
    LOG_JSON_BYTES,
    MatchResult,
    SeatResult,
    log_tail,
)
from heights_runner.ledger import FolderLedger


def test_a_log_within_the_bound_is_kept_whole() -> None:
    text = "[12 earlier bytes dropped]\n" + ("move 3: greedy\n" * 4000)
    assert log_tail(text) == text
    assert log_tail("") == ""


def test_a_log_over_the_bound_keeps_its_end_within_it() -> None:
    for text in ("\x00" * 50_000 + "last", "\u2603" * 40_000 + "last", "a\n" * 70_000 + "last"):
        kept = log_tail(text)
        assert kept.startswith(LOG_CUT_NOTE)
        assert kept.endswith("last")
        assert len(json.dumps(kept)) <= LOG_JSON_BYTES
        # As much as fits: one more character of the log would not.
        body = kept.removeprefix(LOG_CUT_NOTE)
        longer = text[len(text) - len(body) - 1 :]
        assert len(json.dumps(LOG_CUT_NOTE + longer)) > LOG_JSON_BYTES


def _result(log: str) -> MatchResult:
    seat = SeatResult(0, "a", 1, 3, None, 10, 20, 5, log=log)
    return MatchResult("m1", "finished", 7, "c" * 64, seats=(seat,))


def test_a_result_with_fields_this_version_lacks_still_reads() -> None:
    data = _result("hello").to_dict()
    data["future_field"] = 1
    data["seats"][0]["future_seat_field"] = "x"
    assert MatchResult.from_dict(data) == _result("hello")


def test_the_ledger_keeps_results_without_logs(tmp_path: Path) -> None:
    ledger = FolderLedger(tmp_path)
    played = _result("secret plan")
    assert ledger.put(played) == played  # the first one is sent as played
    stored = ledger.get("m1")
    assert stored == dataclasses.replace(
        played, seats=(dataclasses.replace(played.seats[0], log=""),)
    )
    assert "secret plan" not in next(tmp_path.iterdir()).read_text()
    assert ledger.put(_result("other")) == stored  # a second run re-sends the first
