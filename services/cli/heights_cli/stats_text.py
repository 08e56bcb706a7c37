"""The `heights stats` report as text for a terminal (the same figures as `--json`)."""

from __future__ import annotations

from typing import Any

TOP_TILES = 8


def print_report(report: dict[str, Any]) -> None:
    mode = "solo" if report["solo"] else f"{report['players']} players"
    print(f"{report['games']} games, {mode}, catalogue {', '.join(report['catalogue'])}")
    print(f"end reasons: {report['end_reasons']}")
    print(f"end triggered by: {report['end_colours']}")
    r = report["rounds"]
    band = f", {r['in_band']:.1%} in {r['band'][0]}-{r['band'][1]}" if "in_band" in r else ""
    print(f"rounds: mean {r['mean']}, min {r['min']}, max {r['max']}{band}")
    print("  histogram:", " ".join(f"{k}:{v}" for k, v in r["histogram"].items()))
    s = report["scores"]
    print(
        f"scores: mean {s['mean']}, median {s['median']}, p90 {s['p90']}, max {s['max']}, "
        f"median winning {s['median_winning']}, top scores {s['top_scores']}"
    )
    print("points by category (per player):", _pairs(report["points_by_category"]))
    _print_targets(report["targets"])
    _print_abilities(report["abilities"])
    _print_tiles(report["tiles"], report["games"])
    seats = report["seats"]
    print(f"\nwin rate by seat: {seats['win_rate_by_seat']}")
    print(
        f"win rate by turn order: {seats['win_rate_by_turn_order']} "
        f"(fair share {seats['fair_share']})"
    )
    w = report["wild_tokens"]
    print(f"Wild Tokens held at the end: mean {w['mean']}, p99 {w['p99']}, max {w['max']}")
    print("bots:", ", ".join(f"{n} {b['win_rate']:.3f}" for n, b in report["bots"].items()))
    for level, row in report.get("solo_by_difficulty", {}).items():
        print(
            f"solo {level:8} {row['games']:5} games: win rate {row['win_rate']:.3f}, "
            f"score {row['mean_score']} vs the Mayor's {row['mean_mayor_score']}"
        )
    print("\ngoals:")
    for g in report["goals"]:
        print(f"  [{'met' if g['met'] else 'MISSED':6}] {g['goal']}: {g['value']} ({g['target']})")


def _pairs(values: dict[str, Any]) -> str:
    return ", ".join(f"{k.lower()} {v}" for k, v in values.items())


def _print_targets(targets: dict[str, Any]) -> None:
    print(f"\nTargets scored (median of means {targets['median_of_means']}):")
    for t, row in targets["by_target"].items():
        print(
            f"  {t}  scored {row['scored']:5}  mean {row['mean_vp']:6.2f}  "
            f"max {row['max_vp']:4}  win rate {row['win_rate']:.3f}"
        )


def _print_abilities(abilities: dict[str, Any]) -> None:
    print("\npurple abilities (per owner per game):")
    for t, row in abilities["by_tile"].items():
        print(
            f"  {t:32} owners {row['owners']:5}  uses {row['uses_per_owner']:5.2f}  "
            f"VP {row['mean_vp']:6.2f}  max {row['max_vp']:4}  win rate {row['win_rate']:.3f}"
        )


def _print_tiles(tiles: dict[str, Any], games: int) -> None:
    common = sorted(
        (kv for kv in tiles.items() if kv[1]["completed"] >= max(5, games // 20)),
        key=lambda kv: kv[1]["win_rate"],
    )
    print("\ntiles completed in >= 5% of games, lowest and highest win rate when owned:")
    shown = common if len(common) <= 2 * TOP_TILES else [*common[:TOP_TILES], *common[-TOP_TILES:]]
    for name, row in shown:
        print(f"  {name:32} completed {row['completed']:5}  win rate {row['win_rate']:.3f}")
