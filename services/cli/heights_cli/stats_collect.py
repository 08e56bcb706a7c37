"""Aggregating `heights stats` records into the balance report (RULES.md decision 3).

Every figure is a function of the records alone, so a report over chunks played apart
equals the report over the same games played at once.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from heights_cli.stats_games import GameRecord
from heights_rules import MAYOR_SEAT

# Decision 3's bands of game length, in rounds, by player count.
ROUND_BANDS: dict[int, tuple[int, int]] = {2: (14, 22), 3: (12, 19), 4: (10, 16)}


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank percentile (q in 0..100): a value that occurs in the data."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def collect(records: Sequence[GameRecord]) -> dict[str, Any]:
    if not records:
        raise ValueError("no games to report on")
    first = records[0]
    n = len(records)
    report: dict[str, Any] = {
        "games": n,
        "players": first.players,
        "solo": first.solo,
        "catalogue": sorted({r.catalogue for r in records}),
        "end_reasons": dict(Counter(r.termination for r in records)),
        "end_colours": _end_colours(records),
        "rounds": _rounds(records),
        "scores": _scores(records),
        "points_by_category": _categories(records),
        "targets": _targets(records),
        "abilities": _abilities(records),
        "tiles": _tiles(records),
        "seats": _seats(records),
        "wild_tokens": _wild(records),
        "bots": _bots(records),
    }
    if first.solo:
        report["solo_by_difficulty"] = _solo(records)
    report["goals"] = goals(report)
    return report


def _seat_count(r: GameRecord) -> int:
    return len(r.bots)


def _end_colours(records: Sequence[GameRecord]) -> dict[str, Any]:
    """Which colour triggered the end (§6), and the mean rounds of the games it ended:
    the colours in play per player differ by player count (RULES.md §2, step 6)."""
    by: dict[str, list[int]] = defaultdict(list)
    for r in records:
        by["+".join(r.end_colours) or "none"].append(r.rounds)
    return {
        colour: {"games": len(rounds), "mean_rounds": round(statistics.fmean(rounds), 2)}
        for colour, rounds in sorted(by.items())
    }


def _rounds(records: Sequence[GameRecord]) -> dict[str, Any]:
    rounds = [r.rounds for r in records]
    out: dict[str, Any] = {
        "mean": round(statistics.fmean(rounds), 2),
        "min": min(rounds),
        "max": max(rounds),
        "histogram": {str(k): v for k, v in sorted(Counter(rounds).items())},
    }
    band = ROUND_BANDS.get(records[0].players) if not records[0].solo else None
    if band:
        inside = sum(band[0] <= x <= band[1] for x in rounds)
        out |= {"band": list(band), "in_band": round(inside / len(rounds), 4)}
    return out


def _scores(records: Sequence[GameRecord]) -> dict[str, Any]:
    seat_scores = [t for r in records for t in r.totals[: _seat_count(r)]]
    tops = [max(r.totals) for r in records]
    winning = [r.totals[r.points.index(max(r.points))] for r in records]
    median_win = statistics.median(winning)
    return {
        "mean": round(statistics.fmean(seat_scores), 2),
        "median": statistics.median(seat_scores),
        "p90": percentile(seat_scores, 90),
        "max": max(tops),
        "median_winning": median_win,
        "top_scores": sorted(tops, reverse=True)[:5],
        "max_top_over_median_winning": round(max(tops) / median_win, 3) if median_win else None,
        "histogram": _histogram(seat_scores, 10),
    }


def _histogram(values: Sequence[int], width: int) -> dict[str, int]:
    bins = Counter((v // width) * width for v in values)
    return {f"{k}-{k + width - 1}": c for k, c in sorted(bins.items())}


def _categories(records: Sequence[GameRecord]) -> dict[str, float]:
    sums: dict[str, int] = defaultdict(int)
    count = 0
    for r in records:
        for cats in r.categories[: _seat_count(r)]:
            count += 1
            for name, vp in cats.items():
                sums[name] += vp
    return {name: round(v / count, 2) for name, v in sorted(sums.items()) if v}


def _targets(records: Sequence[GameRecord]) -> dict[str, Any]:
    vp: dict[str, list[int]] = defaultdict(list)
    wins: dict[str, float] = defaultdict(float)
    for r in records:
        for p, chosen in enumerate(r.targets):
            if chosen:
                vp[chosen[0]].append(chosen[1])
                wins[chosen[0]] += r.points[p]
    rows = {
        t: {
            "scored": len(v),
            "mean_vp": round(statistics.fmean(v), 2),
            "max_vp": max(v),
            "win_rate": round(wins[t] / len(v), 3),
        }
        for t, v in sorted(vp.items())
    }
    means = [row["mean_vp"] for row in rows.values()]
    median = statistics.median(means) if means else 0.0
    return {
        "by_target": rows,
        "median_of_means": median,
        "min_ratio": round(min(means) / median, 3) if median else None,
        "max_ratio": round(max(means) / median, 3) if median else None,
    }


def _abilities(records: Sequence[GameRecord]) -> dict[str, Any]:
    vp: dict[str, list[int]] = defaultdict(list)
    uses: dict[str, int] = defaultdict(int)
    wins: dict[str, float] = defaultdict(float)
    for r in records:
        for p, owned in enumerate(r.abilities):
            for tile, (used, earned) in owned.items():
                vp[tile].append(earned)
                uses[tile] += used
                wins[tile] += r.points[p]
    rows = {
        t: {
            "owners": len(v),
            "uses_per_owner": round(uses[t] / len(v), 2),
            "mean_vp": round(statistics.fmean(v), 2),
            "max_vp": max(v),
            "win_rate": round(wins[t] / len(v), 3),
        }
        for t, v in sorted(vp.items())
    }
    top = max(rows.items(), key=lambda kv: kv[1]["mean_vp"], default=("", {"mean_vp": 0.0}))
    return {"by_tile": rows, "highest": top[0], "highest_mean_vp": top[1]["mean_vp"]}


def _tiles(records: Sequence[GameRecord]) -> dict[str, Any]:
    owned: dict[str, int] = defaultdict(int)
    wins: dict[str, float] = defaultdict(float)
    for r in records:
        for p, tiles in enumerate(r.tiles):
            for tile in tiles:
                owned[tile] += 1
                wins[tile] += r.points[p]
    return {
        t: {"completed": c, "win_rate": round(wins[t] / c, 3)} for t, c in sorted(owned.items())
    }


def _seats(records: Sequence[GameRecord]) -> dict[str, Any]:
    seats = _seat_count(records[0])
    by_seat = [0.0] * seats
    by_order = [0.0] * seats
    for r in records:
        for p in range(seats):
            by_seat[p] += r.points[p]
            by_order[(p - r.start_seat) % seats] += r.points[p]
    n = len(records)
    fair = 1 / (seats + (1 if records[0].solo else 0))
    return {
        "win_rate_by_seat": [round(w / n, 4) for w in by_seat],
        "win_rate_by_turn_order": [round(w / n, 4) for w in by_order],
        "fair_share": round(fair, 4),
        "first_player_edge": round(by_order[0] / n - fair, 4),
    }


def _wild(records: Sequence[GameRecord]) -> dict[str, Any]:
    held = [w for r in records for w in r.wild]
    return {
        "mean": round(statistics.fmean(held), 2),
        "p99": percentile(held, 99),
        "max": max(held),
    }


def _bots(records: Sequence[GameRecord]) -> dict[str, Any]:
    points: dict[str, float] = defaultdict(float)
    seats: dict[str, int] = defaultdict(int)
    for r in records:
        for p, name in enumerate(r.bots):
            points[name] += r.points[p]
            seats[name] += 1
    return {
        name: {"seats": seats[name], "win_rate": round(points[name] / seats[name], 4)}
        for name in sorted(seats)
    }


def _solo(records: Sequence[GameRecord]) -> dict[str, Any]:
    by: dict[str, list[GameRecord]] = defaultdict(list)
    for r in records:
        by[r.difficulty or "default"].append(r)
    return {
        level: {
            "games": len(rs),
            "win_rate": round(statistics.fmean(r.points[0] for r in rs), 4),
            "mean_score": round(statistics.fmean(r.totals[0] for r in rs), 2),
            "mean_mayor_score": round(statistics.fmean(r.totals[MAYOR_SEAT] for r in rs), 2),
        }
        for level, rs in sorted(by.items(), key=lambda kv: _LEVELS.index(kv[0]))
    }


_LEVELS = ("easy", "default", "hard")


def goals(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Decision 3's goals that these games can judge: each with its value and verdict."""
    out: list[dict[str, Any]] = []

    def goal(name: str, value: Any, target: str, met: bool) -> None:
        out.append({"goal": name, "value": value, "target": target, "met": bool(met)})

    caps = report["end_reasons"].get("ROUND_CAP", 0)
    goal("games ended by ROUND_CAP", caps, "0", caps == 0)
    rounds = report["rounds"]
    if "in_band" in rounds:
        lo, hi = rounds["band"]
        goal(
            f"share of games lasting {lo}-{hi} rounds",
            rounds["in_band"],
            ">= 0.90",
            rounds["in_band"] >= 0.9,
        )
    targets = report["targets"]
    if targets["min_ratio"] is not None:
        spread = [targets["min_ratio"], targets["max_ratio"]]
        goal(
            "Target mean VP / median Target's",
            spread,
            "within 0.5-1.5",
            0.5 <= spread[0] and spread[1] <= 1.5,
        )
    abilities = report["abilities"]
    goal(
        f"highest purple ability VP per owner per game ({abilities['highest']})",
        abilities["highest_mean_vp"],
        "<= 15",
        abilities["highest_mean_vp"] <= 15,
    )
    ratio = report["scores"]["max_top_over_median_winning"]
    goal(
        "highest score / median winning score", ratio, "<= 2.5", ratio is not None and ratio <= 2.5
    )
    p99 = report["wild_tokens"]["p99"]
    goal("Wild Tokens held at the end, 99th percentile", p99, "<= 15", p99 <= 15)
    if not report["solo"]:
        edge = report["seats"]["first_player_edge"]
        goal("first player's win rate minus fair share", edge, "within +-0.05", abs(edge) <= 0.05)
        _skill_goal(report, goal)
    else:
        _solo_goals(report, goal)
    return out


def _skill_goal(report: dict[str, Any], goal: Any) -> None:
    bots = report["bots"]
    # Only a head-to-head series judges skill: each bot in every game, so equal seats.
    if report["players"] != 2 or len(bots) != 2 or len({b["seats"] for b in bots.values()}) != 1:
        return
    for strong, weak, need in (("greedy", "random", 0.95), ("search", "greedy", 0.70)):
        if set(bots) == {strong, weak}:
            rate = bots[strong]["win_rate"]
            goal(f"{strong} beats {weak} (2 players)", rate, f">= {need}", rate >= need)


def _solo_goals(report: dict[str, Any], goal: Any) -> None:
    levels = report["solo_by_difficulty"]
    if "default" in levels:
        rate = levels["default"]["win_rate"]
        goal("solo win rate at the default difficulty", rate, "0.35-0.65", 0.35 <= rate <= 0.65)
    rates = [levels[k]["win_rate"] for k in _LEVELS if k in levels]
    if len(rates) == len(_LEVELS):
        falls = all(a > b for a, b in itertools.pairwise(rates))
        goal("solo win rate falls from easy to hard", rates, "strictly falling", falls)
