"""The `end` message tells each bot the match's recorded ranks, forfeits counted.

The engine ranks by score alone; a seat that forfeited ranks last in the recorded result
(heights_rules.ranking.final_ranks). A bot that keeps statistics of its own results must
read the same ranks the platform records, so the runner sends those.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heights_runner.contract import BotRef, MatchSpec, SeatSpec, TimeLimits
from heights_runner.engines import LocalEngine
from heights_runner.launch import LaunchPolicy
from heights_runner.match import play_match
from heights_runner.sandbox import probe

pytestmark = pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not available")

# Plays the first legal action; writes the `end` message's ranks to stderr (its log).
LISTENER = """
from heights_sdk import Bot, run
import json, sys
class Listener(Bot):
    def choose(self, d):
        return d.legal[0].id
    def on_end(self, result):
        print("END " + json.dumps(result["ranks"]), file=sys.stderr, flush=True)
run(Listener(name="listener"))
"""
QUITTER = """
import sys
from heights_sdk import Bot, run
class Quitter(Bot):
    def choose(self, d):
        sys.exit(3)
run(Quitter(name="quitter"))
"""


def _seat(name: str, source: str) -> SeatSpec:
    return SeatSpec(name, BotRef.from_bytes("py", f"{name}.py", source.encode()))


def test_end_carries_the_recorded_ranks_with_the_forfeit_last(tmp_path: Path) -> None:
    # The quitter's stand-in (greedy) outscores the listeners in this one-round game, so
    # the engine's ranks put the forfeiting seat first.
    seats = (
        _seat("a", LISTENER),
        _seat("quitter", QUITTER),
        _seat("b", LISTENER),
    )
    spec = MatchSpec(
        "end-ranks", 5, seats, options={"round_cap": 1}, limits=TimeLimits(start_ms=10_000)
    )
    result = play_match(spec, LocalEngine, LaunchPolicy((tmp_path / "bots").resolve()))

    assert result.seats[1].forfeit is not None
    recorded = [seat.rank for seat in result.seats]
    assert recorded[1] == 3
    assert result.outcome["ranks"] != recorded, "the case must separate the two rankings"
    for seat in (0, 2):
        lines = [line for line in result.seats[seat].log.splitlines() if line.startswith("END ")]
        assert len(lines) == 1, result.seats[seat].log
        assert json.loads(lines[0].removeprefix("END ")) == recorded
