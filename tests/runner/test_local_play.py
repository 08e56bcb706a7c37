"""`heights match` and `heights tournament`: local play through the same sandbox and protocol."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.heights_command import heights

import heights_sdk.starter
from heights_rules.replay import Replay, verify
from heights_runner.sandbox import probe

pytestmark = pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not available")


def test_a_local_match_between_a_file_and_a_builtin(tmp_path: Path) -> None:
    bot = tmp_path / "mybot.py"
    starter = Path(str(heights_sdk.starter.__file__)).read_text()
    future = "from __future__ import annotations\n"
    bot.write_text(
        starter.replace(future, future + "import sys\nprint('mybot is up', file=sys.stderr)\n")
    )
    replay_path = tmp_path / "game.replay.gz"
    done = heights(
        "match",
        str(bot),
        "random",
        "--seed",
        "7",
        "--json",
        "--replay",
        str(replay_path),
        "--option",
        "round_cap=3",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [s["name"] for s in result["seats"]] == ["mybot", "random"]
    assert sorted(s["rank"] for s in result["seats"])[0] == 1
    assert all(s["forfeit"] is None for s in result["seats"])
    replay = Replay.from_bytes(replay_path.read_bytes())
    assert replay.seed == 7
    assert verify(replay).ok
    # The bots' logs (stderr) are files beside the replay, not part of the JSON.
    assert all("log" not in s for s in result["seats"])
    log_path = tmp_path / "game.seat0.log"
    assert result["log_paths"] == {"0": str(log_path)}  # random writes nothing
    assert log_path.read_text() == "mybot is up\n"
    # Another match at the same path: the old log goes with the old game.
    again = heights("match", "random", "greedy", "--replay", str(replay_path), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert not log_path.exists()


@pytest.mark.parametrize("seed", [2**61, 2**63 - 1, 2**64 - 1])
def test_builtin_bots_play_matches_of_the_largest_seeds(tmp_path: Path, seed: int) -> None:
    # Bots seeded with `seed * 8 + seat` crashed at start for every seed from 2**61 on,
    # three in four of the seeds the platform draws.
    done = heights(
        "match",
        *("random", "search", "greedy", "--seed", str(seed), "--json"),
        *("--option", "round_cap=1"),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    seats = json.loads(done.stdout)["seats"]
    assert [s["forfeit"] for s in seats] == [None, None, None]


def test_a_solo_match_prints_the_mayor_among_the_ranks(tmp_path: Path) -> None:
    done = heights("match", "random", "--solo", "--seed", "3", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)["outcome"]
    text = heights("match", "random", "--solo", "--seed", "3", cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    rows = [line.split() for line in text.stdout.splitlines() if line.startswith("  #")]
    mayor = [row for row in rows if row[1] == "Mayor"]
    assert mayor == [[f"#{outcome['ranks'][1]}", "Mayor", str(outcome["totals"][1]), "VP"]]
    assert [row[0] for row in rows] == sorted(row[0] for row in rows)


def test_a_solo_bot_that_forfeits_ranks_below_the_mayor(tmp_path: Path) -> None:
    crash = tmp_path / "crash.py"
    crash.write_text("raise SystemExit(1)\n")
    text = heights("match", str(crash), "--solo", "--seed", "9", cwd=tmp_path)
    assert text.returncode == 1, text.stderr  # a forfeit: played, but not cleanly
    ranks = [line.split()[:2] for line in text.stdout.splitlines() if line.startswith("  #")]
    assert ranks == [["#1", "Mayor"], ["#2", "seat"]]


def test_a_bad_bot_argument_is_refused_clearly(tmp_path: Path) -> None:
    done = heights("match", "no-such-bot", "random", cwd=tmp_path)
    assert done.returncode == 2
    assert "neither a built-in bot" in done.stderr
    (tmp_path / "evil.zip").write_bytes(b"PK\x03\x04 not really a zip")
    done = heights("match", str(tmp_path / "evil.zip"), "random", cwd=tmp_path)
    assert done.returncode == 2
    assert "heights match:" in done.stderr


def test_a_local_tournament_prints_standings(tmp_path: Path) -> None:
    bot = tmp_path / "mybot.py"
    bot.write_bytes(Path(str(heights_sdk.starter.__file__)).read_bytes())
    done = heights(
        "tournament",
        "greedy",
        "random",
        str(bot),
        "--players",
        "2",
        "--games",
        "2",
        "--json",
        "--option",
        "round_cap=2",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    table = json.loads(done.stdout)
    assert {row["name"] for row in table} == {"greedy", "random", "mybot"}  # as in a match
    assert sum(row["games"] for row in table) == 4
    assert sum(row["points"] for row in table) == pytest.approx(2.0)
    assert "matches" not in done.stderr  # piped: no progress bar (tests/cli/test_progress.py)


def test_builtin_bots_through_the_protocol_play_the_in_process_game(tmp_path: Path) -> None:
    # Greedy decides from its state alone, so the same moves prove that every
    # observation it rebuilt from patches was the true one.
    from heights_bots.bot import make_bot
    from heights_bots.play import play_game
    from heights_rules import GameConfig
    from heights_runner.contract import BotRef, MatchSpec, SeatSpec, TimeLimits
    from heights_runner.engines import LocalEngine
    from heights_runner.launch import LaunchPolicy
    from heights_runner.match import play_match

    seed = 23
    seats = tuple(SeatSpec(f"g{i}", BotRef.builtin("greedy"), True) for i in range(3))
    roomy = TimeLimits(move_ms=10_000, bank_ms=120_000, start_ms=60_000)  # a busy CI machine
    spec = MatchSpec("same-game", seed, seats, limits=roomy)
    result = play_match(spec, LocalEngine, LaunchPolicy(tmp_path))
    assert [seat.forfeit for seat in result.seats] == [None, None, None]
    bots = [make_bot("greedy", seed * 8 + s) for s in range(3)]
    _, expected = play_game(GameConfig(players=3), seed, bots)
    assert Replay.from_bytes(result.replay_bytes()).actions == expected.actions
