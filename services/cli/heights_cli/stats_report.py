"""`heights stats --report DIR`: the balance report as one HTML page with charts.

The page (`DIR/index.html`) opens with decision 3's goals, met or missed, then a chart
for each distribution beside its table; the charts are PNG files next to it, drawn with
matplotlib's non-interactive backend so no display is needed.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only: no display on servers and in tests

import matplotlib.pyplot as plt

_STYLE = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{padding:2px 10px;text-align:right;
border-bottom:1px solid #ddd}th:first-child,td:first-child{text-align:left}
.met{color:#17692b;font-weight:bold}.missed{color:#b3261e;font-weight:bold}
img{max-width:100%;border:1px solid #eee}section{margin-bottom:2em}"""


def write_report(report: dict[str, Any], directory: Path) -> Path:
    """Write the charts and DIR/index.html; returns the page's path."""
    directory.mkdir(parents=True, exist_ok=True)
    sections = [
        _goals(report["goals"]),
        _rounds(report, directory),
        _scores(report, directory),
        _targets(report, directory),
        _abilities(report, directory),
        _seats(report, directory),
        _table_section(
            "Tiles: win rate when owned (completed)",
            ["tile", "completed", "win rate"],
            [[t, r["completed"], f"{r['win_rate']:.3f}"] for t, r in report["tiles"].items()],
        ),
    ]
    if "solo_by_difficulty" in report:
        sections.insert(1, _solo(report, directory))
    mode = "solo against the Mayor" if report["solo"] else f"{report['players']} players"
    title = f"Rolling Heights balance: {report['games']} games, {mode}"
    page = directory / "index.html"
    page.write_text(
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>"
        f"<p>catalogue {html.escape(', '.join(report['catalogue']))}; end reasons "
        f"{html.escape(str(report['end_reasons']))}; end triggered by "
        f"{html.escape(str(report['end_colours']))}; Wild Tokens held at the end: mean "
        f"{report['wild_tokens']['mean']}, 99th percentile {report['wild_tokens']['p99']}, "
        f"max {report['wild_tokens']['max']}</p>{''.join(sections)}</body></html>",
        encoding="utf-8",
    )
    return page


def _goals(goals: list[dict[str, Any]]) -> str:
    rows = [
        [
            g["goal"],
            str(g["value"]),
            g["target"],
            f"<span class='{'met' if g['met'] else 'missed'}'>"
            f"{'met' if g['met'] else 'missed'}</span>",
        ]
        for g in goals
    ]
    return _table_section(
        "Goals (RULES.md decision 3)", ["goal", "value", "target", ""], rows, raw=True
    )


def _rounds(report: dict[str, Any], directory: Path) -> str:
    r = report["rounds"]
    xs = [int(k) for k in r["histogram"]]
    fig, ax = plt.subplots(figsize=(8, 3.2))
    ax.bar(xs, list(r["histogram"].values()), color="#4c78a8")
    if "band" in r:
        ax.axvspan(
            r["band"][0] - 0.5,
            r["band"][1] + 0.5,
            color="#54a24b",
            alpha=0.15,
            label=f"band {r['band'][0]}-{r['band'][1]}: {r['in_band']:.1%} of games",
        )
        ax.legend()
    ax.set_xlabel("rounds")
    ax.set_ylabel("games")
    img = _save(fig, directory, "rounds.png")
    text = f"mean {r['mean']}, min {r['min']}, max {r['max']}"
    return _figure_section("Game length", img, text)


def _scores(report: dict[str, Any], directory: Path) -> str:
    s = report["scores"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.4))
    left.bar(list(s["histogram"]), list(s["histogram"].values()), color="#4c78a8")
    left.set_title("final scores (every player)")
    left.tick_params(axis="x", labelrotation=60, labelsize=7)
    cats = report["points_by_category"]
    right.barh([c.lower() for c in cats], list(cats.values()), color="#f58518")
    right.set_title("mean points per player by category")
    img = _save(fig, directory, "scores.png")
    text = (
        f"mean {s['mean']}, median {s['median']}, 90th percentile {s['p90']}, highest "
        f"{s['max']}; median winning score {s['median_winning']}; top scores {s['top_scores']}"
    )
    return _figure_section("Scores", img, text)


def _targets(report: dict[str, Any], directory: Path) -> str:
    t = report["targets"]
    rows = t["by_target"]
    fig, ax = plt.subplots(figsize=(8, 3.4))
    ax.bar(list(rows), [r["mean_vp"] for r in rows.values()], color="#72b7b2")
    median = t["median_of_means"]
    for factor in (0.5, 1.5):
        ax.axhline(median * factor, color="#b3261e", linestyle="--", linewidth=1)
    ax.set_ylabel("mean VP to the players who score it")
    ax.tick_params(axis="x", labelrotation=60, labelsize=8)
    img = _save(fig, directory, "targets.png")
    table = _table(
        ["Target", "scored", "mean VP", "max VP", "win rate"],
        [
            [k, r["scored"], r["mean_vp"], r["max_vp"], f"{r['win_rate']:.3f}"]
            for k, r in rows.items()
        ],
    )
    return _figure_section("Targets (dashed: 0.5x and 1.5x the median Target)", img, "", table)


def _abilities(report: dict[str, Any], directory: Path) -> str:
    rows = report["abilities"]["by_tile"]
    fig, ax = plt.subplots(figsize=(8, max(3.0, 0.22 * len(rows))))
    ax.barh(list(rows), [r["mean_vp"] for r in rows.values()], color="#b279a2")
    ax.axvline(15, color="#b3261e", linestyle="--", linewidth=1)
    ax.set_xlabel("VP per owner per game")
    ax.tick_params(axis="y", labelsize=7)
    img = _save(fig, directory, "abilities.png")
    table = _table(
        ["building", "owners", "uses", "mean VP", "max VP", "win rate"],
        [
            [k, r["owners"], r["uses_per_owner"], r["mean_vp"], r["max_vp"], f"{r['win_rate']:.3f}"]
            for k, r in rows.items()
        ],
    )
    return _figure_section("Purple abilities (dashed: 15 VP)", img, "", table)


def _seats(report: dict[str, Any], directory: Path) -> str:
    seats = report["seats"]
    order = seats["win_rate_by_turn_order"]
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.bar([f"{i + 1}." for i in range(len(order))], order, color="#4c78a8")
    ax.axhline(seats["fair_share"], color="#b3261e", linestyle="--", linewidth=1)
    ax.set_xlabel("turn order")
    ax.set_ylabel("win rate")
    img = _save(fig, directory, "seats.png")
    bots = ", ".join(
        f"{n}: {b['win_rate']:.3f} over {b['seats']} seats" for n, b in report["bots"].items()
    )
    text = f"by seat {seats['win_rate_by_seat']}; fair share {seats['fair_share']}; bots: {bots}"
    return _figure_section("Win rate by turn order (dashed: fair share)", img, text)


def _solo(report: dict[str, Any], directory: Path) -> str:
    levels = report["solo_by_difficulty"]
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.bar(list(levels), [r["win_rate"] for r in levels.values()], color="#54a24b")
    ax.axhspan(0.35, 0.65, color="#54a24b", alpha=0.12)
    ax.set_ylabel("win rate against the Mayor")
    img = _save(fig, directory, "solo.png")
    table = _table(
        ["difficulty", "games", "win rate", "mean score", "the Mayor's"],
        [
            [k, r["games"], f"{r['win_rate']:.3f}", r["mean_score"], r["mean_mayor_score"]]
            for k, r in levels.items()
        ],
    )
    return _figure_section("Solo: the bot against the Mayor", img, "", table)


def _save(fig: Any, directory: Path, name: str) -> str:
    fig.tight_layout()
    fig.savefig(directory / name, dpi=90)
    plt.close(fig)
    return name


def _figure_section(title: str, img: str, text: str, table: str = "") -> str:
    return (
        f"<section><h2>{html.escape(title)}</h2><img src='{img}' alt='{html.escape(title)}'>"
        f"<p>{html.escape(text)}</p>{table}</section>"
    )


def _table_section(
    title: str, head: Sequence[str], rows: Sequence[Sequence[Any]], *, raw: bool = False
) -> str:
    return f"<section><h2>{html.escape(title)}</h2>{_table(head, rows, raw=raw)}</section>"


def _table(head: Sequence[str], rows: Sequence[Sequence[Any]], *, raw: bool = False) -> str:
    def cell(value: Any, last: bool) -> str:
        return str(value) if raw and last else html.escape(str(value))

    body = "".join(
        "<tr>" + "".join(f"<td>{cell(v, i == len(r) - 1)}</td>" for i, v in enumerate(r)) + "</tr>"
        for r in rows
    )
    header = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    return f"<table><tr>{header}</tr>{body}</table>"
