"""`heights ladder-sim` and `heights tournament-sim` with tiny numbers: they run the
platform's real matchmaking, rating and pairing code on real games, and report."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from heights_cli.ladder_sim import LadderConfig, population, run_ladder
from heights_cli.ladder_sim_cmd import stays_from
from heights_cli.main import main
from heights_cli.ranking_population import GamePool


def test_ladder_sim_reports_every_configuration_and_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chart = tmp_path / "tau.png"
    args = ["ladder-sim", "--kinds", "random,greedy", "--copies", "2", "--games-per-bot", "4"]
    args += ["--reps", "1", "--in-flight", "1", "--budget", "2", "--json", "--chart", str(chart)]
    code = main(args)
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    configs = {(r["matchmaking"], r["duplicate"], r["order"]) for r in report["rows"]}
    assert len(configs) == 3 * 2 * 3  # matchmaking x duplicate x leaderboard order
    for row in report["rows"]:
        assert all(-1.0 <= tau <= 1.0 for _, tau in row["curve"])
        assert row["curve"][-1][0] >= 4  # played to the games per bot asked for
    assert report["setup"]["games_played"] <= report["setup"]["games_rated"]
    assert chart.read_bytes().startswith(b"\x89PNG")


def test_duplicate_tables_play_every_rotation_on_one_seed() -> None:
    pool = GamePool(players=2)
    entries = population(["random", "greedy"], 2)
    run_ladder(LadderConfig("random", duplicate=True), entries, pool, games_per_bot=4, seed=3)
    # Each table's second game is the first with the seats swapped: same seed, new key.
    assert pool.asked == 8
    assert all(e.games == 4 for e in entries)
    assert all(e.seat_counts == [2, 2] for e in entries)


def test_the_ladder_separates_random_from_greedy() -> None:
    entries = population(["random", "greedy"], 2)
    checkpoints = run_ladder(LadderConfig(), entries, GamePool(), games_per_bot=8, seed=1)
    assert checkpoints[-1].tau["mu"] > 0  # greedy beats random nearly always


def test_stays_from_is_the_first_point_after_the_last_dip() -> None:
    xs = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert stays_from(xs, [0.5, 0.95, 0.8, 0.92, 0.97], 0.9) == 4.0
    assert stays_from(xs, [0.95] * 5, 0.9) == 1.0
    assert stays_from(xs, [0.95, 0.95, 0.95, 0.95, 0.5], 0.9) is None


def test_bad_arguments_say_what_is_allowed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ladder-sim", "--kinds", "random,chess"]) == 2
    assert "unknown bot kind 'chess'" in capsys.readouterr().err
    assert main(["ladder-sim", "--copies", "0"]) == 2
    assert "--copies must be between 1 and 16, got 0" in capsys.readouterr().err
    assert main(["tournament-sim", "--formats", "ladder"]) == 2
    assert "unknown --formats ['ladder']" in capsys.readouterr().err


def test_tournament_sim_reports_each_format(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["tournament-sim", "--kinds", "random,noisy-greedy-50,greedy", "--copies", "1"]
    code = main([*args, "--tournaments", "2", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    cells = {(r["format"], r["duplicate"]) for r in report["rows"]}
    assert cells == {(f, d) for f in ("round-robin", "swiss", "elimination") for d in (0, 1)}
    for row in report["rows"]:
        assert 0.0 <= row["strongest_wins"] <= 1.0
        assert row["games_per_bot"] > 0


def test_the_measured_order_is_kept_as_data_for_every_neighbouring_kind() -> None:
    from heights_cli.ranking_population import STRENGTH, measured_order

    data = measured_order()
    assert data["strength"] == list(STRENGTH)
    measured = {(p["weaker"], p["stronger"]) for p in data["pairs"]}
    assert set(itertools.pairwise(STRENGTH[:5])) <= measured  # the cheap kinds, all certain
    for pair in [*data["pairs"], *data["reduced_budgets"]["pairs"]]:
        low, high = pair["ci95"]
        assert low <= pair.get("paired_win_share", pair["win_share"]) <= high
