"""A bot's files that arrive unlike the ones the platform accepted (bytes that do not
match the spec's sha256, or are not base64 at all) were damaged in storage or on the
way: the runner's fault, retried and then an infrastructure failure, never a forfeit of
the bot. Files that arrive intact and fail the checks stay the bot's (`sandbox`)."""

from __future__ import annotations

import base64
import dataclasses
from pathlib import Path

import pytest

from heights_runner import tasks
from heights_runner.contract import BotRef, MatchSpec, SeatSpec, TimeLimits
from heights_runner.engines import LocalEngine
from heights_runner.launch import LaunchPolicy
from heights_runner.ledger import FolderLedger
from heights_runner.match import play_match
from heights_runner.sandbox import probe
from heights_runner.settings import RunnerSettings

pytestmark = pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not available")

GOOD = b"""
from heights_sdk import Bot, run
class B(Bot):
    def choose(self, d):
        return d.legal[0].id
run(B(name="intact"))
"""

BOT = BotRef.from_bytes("py", "main.py", GOOD)
DAMAGED: dict[str, BotRef] = {
    # One byte changed in storage: still base64, no longer the accepted file.
    "bytes_changed": dataclasses.replace(
        BOT, content_b64=base64.b64encode(GOOD.replace(b"intact", b"intacT")).decode()
    ),
    "not_base64": dataclasses.replace(BOT, content_b64=BOT.content_b64[:-4] + "!!!!"),
    "sha256_cut": dataclasses.replace(BOT, sha256=BOT.sha256[:40]),
}


def _spec(match_id: str, bot: BotRef) -> MatchSpec:
    return MatchSpec(
        match_id,
        20261126,
        (SeatSpec("submitted", bot), SeatSpec("greedy", BotRef.builtin("greedy"), True)),
        options={"round_cap": 1},
        limits=TimeLimits(move_ms=10_000, bank_ms=10_000, start_ms=20_000, game_ms=120_000),
    )


@pytest.mark.parametrize("case", sorted(DAMAGED))
def test_damaged_bot_files_are_an_infrastructure_failure_not_a_forfeit(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = RunnerSettings.from_env()
    settings = dataclasses.replace(settings, cache_dir=tmp_path / "bots")
    monkeypatch.setattr(tasks, "_settings", lambda: settings)
    monkeypatch.setattr(tasks, "_engine_factory", lambda: LocalEngine)
    monkeypatch.setattr(tasks, "_ledger", lambda: FolderLedger(tmp_path / "ledger"))
    monkeypatch.setattr(tasks, "RETRY_FIRST_S", 0.0)
    result = tasks.run_spec_retrying(_spec(f"damaged-{case}", DAMAGED[case]), 1, 60)
    assert result.status == "failed", result.seats
    assert result.error.startswith("infrastructure failure: "), result.error
    assert result.seats == ()


def test_the_same_files_intact_play(tmp_path: Path) -> None:
    result = play_match(_spec("intact", BOT), LocalEngine, LaunchPolicy(tmp_path / "bots"))
    assert result.status == "finished"
    assert all(seat.forfeit is None for seat in result.seats), result.seats
