"""`heights strength`: Wilson intervals, average ranks, and selfplay's duplicate sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heights_cli.main import main
from heights_cli.selfplay import seating
from heights_cli.strength import parse_games, strength, wilson_interval


def test_wilson_interval_matches_the_textbook_values() -> None:
    # 8 of 10: the Wilson 95% interval is 0.490-0.943 (Wilson 1927; Newcombe 1998).
    low, high = wilson_interval(8, 10)
    assert (round(low, 3), round(high, 3)) == (0.490, 0.943)
    assert wilson_interval(0, 5)[0] == 0.0
    assert wilson_interval(5, 5)[1] == 1.0
    with pytest.raises(ValueError, match="at least one trial"):
        wilson_interval(0, 0)


def test_rotated_seating_plays_every_rotation_on_one_seed() -> None:
    names = ["mcts", "search", "greedy"]
    games = [seating(names, 100, i, rotate=True) for i in range(4)]
    assert games == [
        (100, ["mcts", "search", "greedy"]),
        (100, ["greedy", "mcts", "search"]),
        (100, ["search", "greedy", "mcts"]),
        (101, ["mcts", "search", "greedy"]),
    ]
    assert seating(names, 100, 2, rotate=False) == (102, names)


def _line(seed: int, bots: list[str], ranks: list[int], points: list[float]) -> str:
    return json.dumps({"seed": seed, "bots": bots, "ranks": ranks, "points": points})


def test_win_shares_and_ranks_count_every_seat_and_split_shared_wins() -> None:
    lines = [
        _line(1, ["a", "b"], [1, 2], [1.0, 0.0]),
        _line(1, ["b", "a"], [1, 1], [0.5, 0.5]),
        _line(2, ["a", "b"], [2, 1], [0.0, 1.0]),
        _line(2, ["b", "a"], [2, 1], [0.0, 1.0]),
        json.dumps({"summary": True, "games": 4}),
    ]
    table = strength(parse_games(lines))["tables"][0]
    assert (table["players"], table["games"]) == (2, 4)
    a, b = table["bots"]
    assert (a["bot"], a["games"], a["seeds"], a["win_share"]) == ("a", 4, 2, 0.625)
    assert (a["mean_rank"], b["mean_rank"]) == (1.25, 1.5)
    assert b["win_share"] == 0.375


def test_bad_lines_are_refused_by_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ValueError, match="line 2 is not a `heights selfplay --json` game"):
        parse_games([_line(1, ["a", "b"], [1, 2], [1.0, 0.0]), '{"seed": 3}'])
    with pytest.raises(ValueError, match="no games"):
        strength([])
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    assert main(["strength", str(bad)]) == 2
    assert "line 1 is not a" in capsys.readouterr().err


def test_selfplay_rotated_games_read_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["selfplay", "--games", "2", "--bots", "greedy,random", "--rotate", "--json"]) == 0
    out = tmp_path / "games.jsonl"
    out.write_text(capsys.readouterr().out)
    assert main(["strength", "--json", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = {r["bot"]: r for r in report["tables"][0]["bots"]}
    assert rows["greedy"]["games"] == rows["random"]["games"] == 2
    assert rows["greedy"]["seeds"] == 1
    assert rows["greedy"]["mean_rank"] < rows["random"]["mean_rank"]
