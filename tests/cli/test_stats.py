"""`heights stats`: the report's figures are those of the games played, chunks read back
aggregate like one run, `--report` writes a page with its charts, bad input is refused.

Small game counts: the balance measurements themselves are `heights stats` runs quoted
in docs/balance.md, not tests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heights_cli.main import main
from heights_cli.stats_collect import percentile
from heights_cli.stats_games import GameRecord

GAMES = 4


def _stats(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["stats", "--no-progress", "--json", *args]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def _records(path: Path) -> list[GameRecord]:
    return [GameRecord.from_json(line) for line in path.read_text().splitlines()]


def test_json_report_counts_the_games_it_played(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    records = tmp_path / "games.jsonl"
    report = _stats(capsys, "--players", "3", "--games", str(GAMES), "--records", str(records))
    games = _records(records)
    assert report["games"] == len(games) == GAMES
    assert sum(report["end_reasons"].values()) == GAMES
    rounds = report["rounds"]
    assert sum(rounds["histogram"].values()) == GAMES
    assert rounds["max"] == max(g.rounds for g in games)
    band = [g for g in games if 12 <= g.rounds <= 19]
    assert rounds["in_band"] == round(len(band) / GAMES, 4)
    scores = report["scores"]
    assert scores["max"] == max(max(g.totals) for g in games)
    seats = report["seats"]
    assert sum(seats["win_rate_by_seat"]) == pytest.approx(1.0, abs=1e-3)
    held = [w for g in games for w in g.wild]
    assert report["wild_tokens"]["p99"] == percentile(held, 99)
    chosen = [t[0] for g in games for t in g.targets]
    assert sorted(report["targets"]["by_target"]) == sorted(set(chosen))
    names = {goal["goal"] for goal in report["goals"]}
    assert "games ended by ROUND_CAP" in names


def test_end_colours_name_the_colour_fully_built_when_the_end_was_triggered(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    records = tmp_path / "games.jsonl"
    report = _stats(capsys, "--games", str(GAMES), "--records", str(records))
    games = _records(records)
    for game in games:
        assert game.end_colours, "every game ended by its trigger"
        assert set(game.end_colours) <= {"WOOD", "CONCRETE", "GLASS", "STEEL"}
    assert sum(row["games"] for row in report["end_colours"].values()) == GAMES
    old = json.loads(games[0].to_json())
    del old["end_colours"]  # a record written before the field existed
    assert GameRecord.from_json(json.dumps(old)).end_colours == []


def test_ability_points_match_the_score_categories(tmp_path: Path) -> None:
    records = tmp_path / "games.jsonl"
    assert main(["stats", "--no-progress", "--games", "3", "--records", str(records)]) == 0
    for game in _records(records):
        for seat, owned in enumerate(game.abilities):
            # Politicians doubled by City Tribune and Haunted House's sacrifice count
            # under ABILITIES too: every ability point is some building's.
            assert sum(vp for _, vp in owned.values()) <= game.categories[seat]["ABILITIES"]


def test_chunks_read_back_give_the_report_of_one_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    whole = _stats(capsys, "--games", "4", "--seed", "7")
    _stats(capsys, "--games", "2", "--seed", "7", "--records", str(first))
    _stats(capsys, "--games", "2", "--seed", "9", "--records", str(second))
    # bots rotate by game index, so seeds 9 and 10 here sat the other way round there
    joined = _stats(capsys, "--load", str(first), "--load", str(second))
    assert joined["games"] == whole["games"] == 4
    assert joined["end_reasons"] == whole["end_reasons"]
    assert joined["rounds"] == whole["rounds"]


def test_solo_reports_the_mayor_by_difficulty(capsys: pytest.CaptureFixture[str]) -> None:
    report = _stats(capsys, "--solo", "--games", "2")
    levels = report["solo_by_difficulty"]
    assert list(levels) == ["easy", "default", "hard"]
    assert all(row["games"] == 2 for row in levels.values())
    assert report["games"] == 6


def test_report_writes_a_page_with_its_charts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "report"
    report = _stats(capsys, "--games", "2", "--report", str(out))
    page = (out / "index.html").read_text(encoding="utf-8")
    for chart in ("rounds.png", "scores.png", "targets.png", "abilities.png", "seats.png"):
        assert (out / chart).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"src='{chart}'" in page
    assert f"{report['games']} games" in page
    assert "games ended by ROUND_CAP" in page


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "0"], "--games must be 1 to"),
        (["--bots", "greedy,nobody"], "unknown bot 'nobody'"),
        (["--bots", "greedy,greedy,greedy"], "--bots needs 1 or 2 names"),
        (["--option", "round_cap=0"], "option round_cap takes integers 1..200, not 0"),
    ],
)
def test_bad_input_is_refused_by_name(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code: int | str | None
    try:
        code = main(["stats", "--no-progress", *args])
    except SystemExit as usage:  # rule options are checked by the parser (options_arg)
        code = usage.code
    assert code == 2
    assert message in capsys.readouterr().err


def test_every_option_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["stats", "--help"])
    text = capsys.readouterr().out
    for option in (
        "--games",
        "--solo",
        "--difficulty",
        "--json",
        "--report",
        "--load",
        "--records",
    ):
        assert option in text
