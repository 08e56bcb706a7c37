"""The game pool of `heights ladder-sim`: its file (`--pool`) and its workers (`--jobs`),
with cheap kinds only."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from heights_cli.game_pool import DEFAULT_BUDGET, GamePool, table_budget
from heights_cli.ladder_sim_cmd import register
from heights_cli.main import main
from heights_cli.pool_file import PoolFileError, code_version, read_pool
from heights_cli.pool_options import budget, budget_line, reduced

LADDER = ["ladder-sim", "--kinds", "random,noisy-greedy-50,greedy", "--copies", "2"]
LADDER += ["--games-per-bot", "4", "--reps", "2", "--budget", "2", "--json"]
LADDER += ["--matchmaking", "current,least-met"]


def _ladder(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    assert main([*LADDER, *extra]) == 0
    report: dict[str, object] = json.loads(capsys.readouterr().out)
    return report


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def test_games_round_trip_through_the_file(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    tables = [(("random", "greedy"), s) for s in range(3)] + [(("greedy", "random"), 0)]
    with GamePool(path=path) as pool:
        first = [pool.ranks(*t) for t in tables]
    assert pool.played == 4
    assert len(_lines(path)) == 4
    with GamePool(path=path) as again:
        assert again.loaded == 4
        assert [again.ranks(*t) for t in tables] == first
    assert again.played == 0
    assert len(_lines(path)) == 4


def test_a_line_of_other_code_is_refused_not_reused(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    with GamePool(path=path) as pool:
        pool.ranks(("random", "greedy"), 1)
    record = json.loads(path.read_text())
    assert record["version"] == code_version()
    record["version"] = "0" * 16
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(PoolFileError, match="line 1: played by other code"):
        GamePool(path=path)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 2: not JSON"),
        ('{"kinds": ["random", "greedy"], "ranks": [1, 2]}', "line 2: not a game pool line"),
        ("[1, 2]", "line 2: not a game pool line"),
    ],
)
def test_a_corrupt_or_foreign_line_is_a_clear_error(
    tmp_path: Path, line: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pool.jsonl"
    with GamePool(path=path) as pool:
        pool.ranks(("random", "greedy"), 1)
    path.write_text(path.read_text() + line + "\n")
    with pytest.raises(PoolFileError, match=message):
        read_pool(path, code_version())
    assert main([*LADDER, "--pool", str(path)]) == 2
    assert f"--pool {path}: {message}" in capsys.readouterr().err


def test_a_malformed_game_names_what_is_wrong(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    with GamePool(path=path) as pool:
        pool.ranks(("random", "greedy"), 1)
    record = json.loads(path.read_text())
    record["ranks"] = [1, 5]
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(PoolFileError, match=r"line 1: malformed game .*ranks \(1, 5\)"):
        read_pool(path, code_version())


def test_a_line_cut_short_by_a_killed_run_is_dropped_and_replayed(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    with GamePool(path=path) as pool:
        pool.ranks(("random", "greedy"), 1)
        pool.ranks(("random", "greedy"), 2)
    whole = path.read_text()
    path.write_text(whole[: len(whole) - 20])  # the second line lost its end
    with GamePool(path=path) as resumed:
        assert resumed.loaded == 1
        resumed.ranks(("random", "greedy"), 2)
    assert resumed.played == 1
    assert path.read_text() == whole


def test_a_resumed_ladder_plays_nothing_twice_and_ends_as_a_fresh_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pool.jsonl"
    fresh = _ladder(capsys)
    short = ["--games-per-bot", "2"]  # a run cut short: half the games
    first = _ladder(capsys, *short, "--pool", str(path))["setup"]
    resumed = _ladder(capsys, "--pool", str(path))
    lines = _lines(path)
    assert len(set(lines)) == len(lines)  # no game in the file twice
    setup = resumed["setup"]
    assert isinstance(first, dict)
    assert isinstance(setup, dict)
    assert setup["games_from_pool_file"] == first["games_played"] > 0
    assert first["games_played"] + setup["games_played"] == len(lines)
    assert resumed["rows"] == fresh["rows"]
    assert sum(c["games"] for c in setup["cpu_by_heaviest_kind"].values()) == setup["games_played"]
    again = _ladder(capsys, "--pool", str(path))["setup"]
    assert isinstance(again, dict)
    assert again["games_played"] == 0


def test_parallel_play_gives_the_serial_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serial_pool, parallel_pool = tmp_path / "serial.jsonl", tmp_path / "parallel.jsonl"
    serial = _ladder(capsys, "--pool", str(serial_pool))
    parallel = _ladder(capsys, "--pool", str(parallel_pool), "--jobs", "2")
    assert parallel["rows"] == serial["rows"]
    # The same games, in the order the workers finished them.
    assert sorted(_lines(parallel_pool)) == sorted(_lines(serial_pool))


def test_measure_order_in_parallel_gives_the_serial_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["ladder-sim", "--kinds", "random,greedy", "--measure-order", "3"]
    assert main(args) == 0
    serial = json.loads(capsys.readouterr().out)
    assert main([*args, "--jobs", "2"]) == 0
    parallel = json.loads(capsys.readouterr().out)
    assert parallel["pairs"] == serial["pairs"]
    assert parallel["cpu_by_heaviest_kind"]["cheap"]["games"] == 6  # 3 pairs, both seatings


def test_a_table_is_keyed_by_its_own_kinds_budgets_only() -> None:
    assert table_budget(("random", "greedy"), DEFAULT_BUDGET) == ()
    assert table_budget(("search", "greedy"), DEFAULT_BUDGET) == (("iterations", 24),)
    mcts = dict(table_budget(("mcts", "greedy"), DEFAULT_BUDGET))
    assert mcts["mcts_seconds"] == 0.6
    assert mcts["mcts_clock"] == "cpu"
    assert mcts["mcts_build"] in ("python", "compiled")  # a timed bot's speed matters
    pool = GamePool(budget={**DEFAULT_BUDGET, "iterations": 8})
    assert pool.key(("search", "greedy"), 1) != GamePool().key(("search", "greedy"), 1)
    assert pool.key(("random", "greedy"), 1) == GamePool().key(("random", "greedy"), 1)


def test_reduced_budgets_are_named() -> None:
    default = budget(_args())
    assert reduced(["greedy", "search", "mcts"], default) == []
    cheaper = budget(_args("--search-iterations", "8", "--mcts-seconds", "0.05"))
    assert reduced(["greedy", "search", "mcts"], cheaper) == ["search", "mcts"]
    assert cheaper["mcts_clock"] == "cpu"
    assert budget(_args("--mcts-seconds", "0"))["mcts_seconds"] is None  # iterations only


def test_the_reduced_budget_line_says_what_mcts_counts() -> None:
    def line(*extra: str) -> str | None:
        knobs = budget(_args(*extra))
        return budget_line({"budget": knobs, "reduced_budget_kinds": reduced(["mcts"], knobs)})

    assert line() is None
    assert line("--mcts-seconds", "0.02") == (
        "reduced budgets (weaker than the default kinds): search 24 simulations, "
        "mcts 0.02 s CPU / 5000 simulations a decision"
    )
    assert line("--mcts-seconds", "0", "--mcts-iterations", "50") == (
        "reduced budgets (weaker than the default kinds): search 24 simulations, "
        "mcts no clock / 50 simulations a decision"
    )


def _args(*extra: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    return parser.parse_args(["ladder-sim", *extra])


def test_a_game_played_twice_by_runs_sharing_the_file_keeps_its_first_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "pool.jsonl"
    with GamePool(path=path) as pool:
        key = pool.key(("random", "greedy"), 1)
        ranks = pool.ranks(("random", "greedy"), 1)
    first = path.read_text()
    record = json.loads(first)
    record["ranks"] = list(reversed(record["ranks"]))
    path.write_text(first + json.dumps(record) + "\n")
    assert read_pool(path, code_version()) == {key: ranks}
