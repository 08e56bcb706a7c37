"""`heights tournament-sim` over the whole population, searching kinds included: the
strongest kind of the field, the game pool's file (`--pool`) and workers (`--jobs`), and
its options' bounds. The searching kinds play at tiny budgets (mcts on iterations only,
so its games are deterministic) to keep the tests short."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from heights_cli.main import main
from heights_cli.ranking_population import measured_order
from heights_cli.tournament_sim_cmd import register

# mcts first: the strongest kind is found by strength, not by its place in --kinds.
TINY = ["tournament-sim", "--kinds", "mcts,random,greedy", "--copies", "1"]
TINY += ["--tournaments", "2", "--search-iterations", "1"]
TINY += ["--mcts-seconds", "0", "--mcts-iterations", "2", "--json"]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main([*args]) == 0
    report: dict[str, object] = json.loads(capsys.readouterr().out)
    return report


def _rows(report: dict[str, object]) -> list[dict[str, object]]:
    rows = report["rows"]
    assert isinstance(rows, list)
    return rows


def test_the_default_field_is_the_whole_population_in_its_true_order() -> None:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["tournament-sim"])
    assert args.kinds.split(",") == measured_order()["strength"]


def test_strongest_wins_counts_the_fields_strongest_kind(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = _run(capsys, *TINY, "--formats", "elimination")
    assert report["strongest_kind"] == "mcts" == measured_order()["strength"][-1]
    assert report["reduced_budget_kinds"] == ["mcts"]
    for row in _rows(report):
        winners = row["winners"]
        assert isinstance(winners, dict)
        assert sum(winners.values()) == 2
        assert row["strongest_wins"] == winners.get("mcts", 0) / 2
    # Without mcts in the field, its strongest kind is search.
    without = [*TINY, "--kinds", "random,search,greedy", "--formats", "elimination"]
    report = _run(capsys, *without, "--tournaments", "1")
    assert report["strongest_kind"] == "search"
    for row in _rows(report):
        winners = row["winners"]
        assert isinstance(winners, dict)
        assert row["strongest_wins"] == winners.get("search", 0)


def test_a_pool_file_serves_a_second_run_which_plays_no_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pool.jsonl"
    args = [*TINY, "--formats", "swiss,elimination", "--tournaments", "1"]
    first = _run(capsys, *args, "--pool", str(path))
    second = _run(capsys, *args, "--pool", str(path))
    assert isinstance(first["games_played"], int)
    assert first["games_played"] > 0
    assert first["games_from_pool_file"] == 0
    assert second["games_played"] == 0
    assert second["games_from_pool_file"] == first["games_played"]
    assert second["rows"] == first["rows"]
    lines = path.read_text().splitlines()
    assert len(lines) == len(set(lines)) == first["games_played"]


def test_two_jobs_give_the_serial_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serial_pool, parallel_pool = tmp_path / "serial.jsonl", tmp_path / "parallel.jsonl"
    # Swiss and elimination: rounds that depend on the previous rounds' results.
    args = [*TINY, "--formats", "swiss,elimination", "--tournaments", "1"]
    serial = _run(capsys, *args, "--pool", str(serial_pool))
    parallel = _run(capsys, *args, "--pool", str(parallel_pool), "--jobs", "2")
    assert parallel["rows"] == serial["rows"]
    assert parallel["games_played"] == serial["games_played"]
    # The same games, in the order the workers finished them.
    assert sorted(parallel_pool.read_text().splitlines()) == sorted(
        serial_pool.read_text().splitlines()
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--jobs", "0"], "--jobs must be between 1 and 64, got 0"),
        (["--search-iterations", "0"], "--search-iterations must be between 1 and 100000, got 0"),
        (["--mcts-iterations", "0"], "--mcts-iterations must be between 1 and 1000000, got 0"),
        (["--mcts-seconds", "-1"], "--mcts-seconds must be between 0 and 60, got -1.0"),
        (["--mcts-seconds", "nan"], "--mcts-seconds must be between 0 and 60, got nan"),
        (["--catalogue", "nope"], "--catalogue: unknown catalogue 'nope'"),
        (["--kinds", "greedy,greedy"], "--kinds names a kind twice (greedy,greedy)"),
        (["--kinds", "greedy,chess"], "unknown bot kind 'chess'"),
        (["--copies", "0"], "--copies must each be between 1 and 16, got [0]"),
        (["--tournaments", "0"], "--tournaments must be between 1 and 1000, got 0"),
    ],
)
def test_bad_values_say_what_is_allowed_and_play_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    path = tmp_path / "pool.jsonl"
    assert main([*TINY, "--pool", str(path), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not path.exists()


def test_a_corrupt_pool_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pool.jsonl"
    path.write_text("not json\n")
    assert main([*TINY, "--pool", str(path)]) == 2
    assert f"heights tournament-sim: --pool {path}: line 1: not JSON" in capsys.readouterr().err
    assert path.read_text() == "not json\n"
