"""Playing whole games between bots: one recorded game, or a series with seats rotated."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from heights_bots.bot import Bot, make_bot, seat_seed
from heights_rules import (
    CHANCE,
    SEED_BITS,
    GameConfig,
    GameState,
    Outcome,
    Recorder,
    Replay,
    Termination,
    new_game,
    outcome,
    shared_first_points,
)


def play_game(
    config: GameConfig, seed: int, bots: Sequence[Bot], notes: bool = False
) -> tuple[GameState, Replay]:
    """Play one game to the end: bots[seat] decides for each seat, chance steps are rolled.

    Every step is recorded; with `notes`, each bot's short reason for each decision is
    kept in the replay's debug map.
    """
    if len(bots) != config.players:
        raise ValueError(f"{config.players} seat(s) need {config.players} bot(s), got {len(bots)}")
    state = new_game(config, seed)
    recorder = Recorder(state, [bot.name for bot in bots])
    while not state.is_terminal():
        seat = state.current_player()
        if seat == CHANCE:
            recorder.apply(state.legal_actions()[0])
        elif notes:
            recorder.apply(*bots[seat].act_with_note(state, seat))
        else:
            recorder.apply(bots[seat].act(state, seat))
    return state, recorder.replay


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished game of a series."""

    index: int
    seed: int
    seats: tuple[str, ...]  # the bot name at each seat
    outcome: Outcome
    steps: int  # every action, chance steps included
    seconds: float

    def points(self, seat: int) -> float:
        """1 for a sole win, 1/k for a first shared by k (the Mayor too), else 0."""
        return float(shared_first_points(self.outcome.ranks)[seat])


def game_seed(series_seed: int, index: int) -> int:
    return (series_seed * 1_000_003 + index) % (1 << SEED_BITS)


def run_games(
    config: GameConfig,
    bot_names: Sequence[str],
    games: int,
    *,
    seed: int = 0,
    rotate: bool = True,
    budget: dict[str, Any] | None = None,
    on_game: Callable[[GameRecord], None] | None = None,
) -> list[GameRecord]:
    """Play `games` games, as duplicate sets when `rotate` is on.

    With `rotate`, consecutive games form sets of one game per rotation of the bots
    round the table, all on the same game seed: since dice are keyed by seat and turn,
    every bot meets the same map, markets and dice at every seat, which removes most of
    the luck from a comparison. Bots are built fresh for every game with seeds derived
    from the series seed, so a series is reproducible (except its timings).
    """
    if len(bot_names) != config.players:
        raise ValueError(f"{config.players} seat(s) need {config.players} bot name(s)")
    records = []
    n = len(bot_names)
    for index in range(games):
        shift = index % n if rotate else 0
        names = tuple(bot_names[(seat - shift) % n] for seat in range(n))
        gseed = game_seed(seed, index // n if rotate else index)
        bots = [
            make_bot(name, seat_seed(gseed, seat), **(budget or {}))
            for seat, name in enumerate(names)
        ]
        started = time.perf_counter()
        state, replay = play_game(config, gseed, bots)
        record = GameRecord(
            index, gseed, names, outcome(state), len(replay.actions), time.perf_counter() - started
        )
        records.append(record)
        if on_game is not None:
            on_game(record)
    return records


@dataclass(slots=True)
class SeriesSummary:
    """Totals over a series: win points and mean score by bot name, game lengths."""

    games: int = 0
    trigger_endings: int = 0
    rounds: list[int] = field(default_factory=list)
    points: dict[str, float] = field(default_factory=dict)
    seats_played: dict[str, int] = field(default_factory=dict)
    score_sum: dict[str, int] = field(default_factory=dict)

    @property
    def trigger_end_rate(self) -> float:
        return self.trigger_endings / self.games if self.games else 0.0

    @property
    def mean_rounds(self) -> float:
        return sum(self.rounds) / len(self.rounds) if self.rounds else 0.0

    def win_rate(self, name: str) -> float:
        """Win points per seat played (a shared win counts as a fraction)."""
        return self.points.get(name, 0.0) / max(1, self.seats_played.get(name, 0))

    def mean_score(self, name: str) -> float:
        return self.score_sum.get(name, 0) / max(1, self.seats_played.get(name, 0))


def summarize(records: Sequence[GameRecord]) -> SeriesSummary:
    summary = SeriesSummary()
    for record in records:
        summary.games += 1
        summary.trigger_endings += record.outcome.termination is Termination.TRIGGER
        summary.rounds.append(record.outcome.rounds)
        for seat, name in enumerate(record.seats):
            summary.points[name] = summary.points.get(name, 0.0) + record.points(seat)
            summary.seats_played[name] = summary.seats_played.get(name, 0) + 1
            summary.score_sum[name] = summary.score_sum.get(name, 0) + record.outcome.totals[seat]
    return summary
