"""`heights match` exit statuses: a script can tell a clean match from a forfeit and
from a match that could not be played at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.heights_command import heights

from heights_cli.match_cmd import EXIT_FORFEIT, EXIT_NOT_PLAYED, EXIT_PLAYED, EXIT_USAGE
from heights_cli.stack import free_port
from heights_runner.sandbox import probe

needs_bwrap = pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not available")

# Plays a number no game offers: refused by the engine, a forfeit (illegal action).
ILLEGAL = """from heights_sdk import Bot, run

class Illegal(Bot):
    def choose(self, decision):
        return max(a.id for a in decision.legal) + 1000

run(Illegal(name="illegal"))
"""


def test_help_lists_every_exit_status(tmp_path: Path) -> None:
    done = heights("match", "--help", cwd=tmp_path)
    assert done.returncode == 0
    assert "exit status:" in done.stdout
    for code, meaning in [
        (EXIT_PLAYED, "no bot forfeited"),
        (EXIT_FORFEIT, "at least one bot forfeited"),
        (EXIT_USAGE, "bad arguments"),
        (EXIT_NOT_PLAYED, "could not be played"),
    ]:
        assert f"  {code}  the match" in done.stdout or f"  {code}  bad" in done.stdout
        assert meaning in done.stdout


@needs_bwrap
def test_a_forfeit_is_a_non_zero_exit_with_the_result_still_printed(tmp_path: Path) -> None:
    bot = tmp_path / "illegal.py"
    bot.write_text(ILLEGAL)
    done = heights("match", str(bot), "random", "--seed", "5", "--json", cwd=tmp_path)
    assert done.returncode == EXIT_FORFEIT, done.stderr
    seats = json.loads(done.stdout)["seats"]
    assert seats[0]["forfeit"]["reason"] == "illegal"
    assert seats[1]["forfeit"] is None
    assert (tmp_path / json.loads(done.stdout)["replay_path"]).exists()


@needs_bwrap
def test_a_clean_match_exits_zero(tmp_path: Path) -> None:
    done = heights("match", "random", "greedy", "--option", "round_cap=1", cwd=tmp_path)
    assert done.returncode == EXIT_PLAYED, done.stderr
    assert "FORFEIT" not in done.stdout


def test_an_engine_that_cannot_be_reached_is_no_bots_fault(tmp_path: Path) -> None:
    nowhere = f"127.0.0.1:{free_port()}"  # nothing listens there
    done = heights("match", "random", "greedy", "--engine", nowhere, cwd=tmp_path)
    assert done.returncode == EXIT_NOT_PLAYED, done.stdout + done.stderr
    assert "the match could not be played" in done.stderr
    assert "Traceback" not in done.stderr
