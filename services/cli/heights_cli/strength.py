"""Bots' strength from finished games: win shares with their confidence, average ranks.

Read from `heights selfplay --json` lines (`heights strength`): each game names the bot
at each seat, its ranks and its win points (1 for a sole first place, 1/k for a first
shared by k). Games on one seed (the duplicate sets of `selfplay --rotate`) share their
map, markets and dice, so besides the Wilson interval over games (which takes games as
independent), each bot's figures get a normal interval over the seeds (independent).
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

Z95 = 1.959963984540054  # the two-sided 95% normal quantile
MAX_GAMES = 100_000


@dataclass(frozen=True, slots=True)
class Game:
    """One finished game: the bot, rank and win points at each seat."""

    seed: int
    bots: tuple[str, ...]
    ranks: tuple[int, ...]
    points: tuple[float, ...]


@dataclass(slots=True)
class BotStrength:
    """One bot's figures over the games it played (every seat it held counts)."""

    name: str
    seats: int = 0
    points: float = 0.0
    rank_sum: int = 0
    by_seed: dict[int, list[tuple[float, int]]] = field(default_factory=dict)

    def add(self, seed: int, points: float, rank: int) -> None:
        self.seats += 1
        self.points += points
        self.rank_sum += rank
        self.by_seed.setdefault(seed, []).append((points, rank))

    def to_dict(self) -> dict[str, Any]:
        share = self.points / self.seats
        seed_shares = [statistics.fmean(p for p, _ in v) for v in self.by_seed.values()]
        seed_ranks = [statistics.fmean(r for _, r in v) for v in self.by_seed.values()]
        return {
            "bot": self.name,
            "games": self.seats,
            "seeds": len(self.by_seed),
            "win_share": round(share, 4),
            "wilson95": [round(x, 4) for x in wilson_interval(self.points, self.seats)],
            "seeds_ci95": [round(min(1.0, max(0.0, x)), 4) for x in normal_interval(seed_shares)],
            "mean_rank": round(self.rank_sum / self.seats, 4),
            "rank_ci95": [round(x, 4) for x in normal_interval(seed_ranks)],
        }


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (`successes` may be fractional)."""
    if n < 1:
        raise ValueError("a proportion needs at least one trial")
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def normal_interval(values: list[float]) -> tuple[float, float]:
    """Mean +- 1.96 standard errors (the mean itself twice for fewer than two values)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return mean - half, mean + half


def parse_games(lines: Iterable[str]) -> list[Game]:
    """The games in `heights selfplay --json` output (its summary lines are skipped)."""
    games = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if row.get("summary"):
                continue
            game = Game(
                int(row["seed"]),
                tuple(str(b) for b in row["bots"]),
                tuple(int(r) for r in row["ranks"][: len(row["bots"])]),
                tuple(float(p) for p in row["points"][: len(row["bots"])]),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise ValueError(
                f"line {number} is not a `heights selfplay --json` game: {err}"
            ) from err
        if not len(game.bots) == len(game.ranks) == len(game.points):
            raise ValueError(f"line {number}: bots, ranks and points differ in length")
        games.append(game)
        if len(games) > MAX_GAMES:
            raise ValueError(f"more than {MAX_GAMES} games")
    return games


def strength(games: list[Game]) -> dict[str, Any]:
    """Every bot's win share and average rank, by player count (best average rank first)."""
    if not games:
        raise ValueError("no games to report on")
    tables: dict[int, dict[str, BotStrength]] = {}
    for game in games:
        table = tables.setdefault(len(game.bots), {})
        for seat, name in enumerate(game.bots):
            bot = table.setdefault(name, BotStrength(name))
            bot.add(game.seed, game.points[seat], game.ranks[seat])
    out = []
    for players, table in sorted(tables.items()):
        rows = sorted((b.to_dict() for b in table.values()), key=lambda r: r["mean_rank"])
        count = sum(1 for g in games if len(g.bots) == players)
        out.append({"players": players, "games": count, "bots": rows})
    return {"tables": out}
