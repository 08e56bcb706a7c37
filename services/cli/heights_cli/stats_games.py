"""The games behind `heights stats`: play one between built-in bots and keep what the
report needs, as a small JSON-able record (thousands of them fit in memory and in a file).

A record is the same whether it was just played or read back from a `--records` file,
so long measurements can be run in chunks and aggregated together.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from heights_bots import make_bot, seat_seed
from heights_rules import (
    CHANCE,
    Cube,
    GameConfig,
    GameState,
    Score,
    evaluate,
    new_game,
    outcome,
    shared_first_points,
)

RECORD_VERSION = 1
# Solo difficulties as rule options over the configuration's own. "hard" is the solo
# sheet's (three Mayor rolls from round 10); "easy" gives the Mayor fewer cubes a Step B.
DIFFICULTIES: dict[str, dict[str, Any]] = {
    "easy": {"mayor_step_b_cubes": 8},
    "default": {},
    "hard": {"mayor_hard": True},
}


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished game, reduced to what the balance report reads."""

    seed: int
    players: int  # seats that decide (1 in solo)
    solo: bool
    difficulty: str  # "" outside solo
    catalogue: str
    bots: list[str]  # the bot at each seat
    start_seat: int
    rounds: int
    termination: str
    totals: list[int]  # every player's, the Mayor's last in solo
    categories: list[dict[str, int]]
    points: list[float]  # win share: 1 for a sole win, 1/k for a first shared by k
    targets: list[list[Any]]  # per seat: [Target id, VP] of the Target scored
    abilities: list[dict[str, list[int]]]  # per seat: completed purple tile -> [uses, VP]
    tiles: list[list[str]]  # per seat: completed tiles
    wild: list[int]  # per seat: Wild Tokens held at the end
    # The colours fully built when the end was triggered (§6), e.g. ["CONCRETE"]; empty
    # if it never was. Records written before this field read as [].
    end_colours: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps({"record": RECORD_VERSION} | asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str) -> GameRecord:
        data = json.loads(line)
        if not isinstance(data, dict) or data.pop("record", None) != RECORD_VERSION:
            raise ValueError(f"not a stats record of version {RECORD_VERSION}: {line[:60]!r}")
        return cls(**data)


def play_record(
    config: GameConfig,
    seed: int,
    names: Sequence[str],
    *,
    difficulty: str = "",
    budget: dict[str, Any] | None = None,
) -> GameRecord:
    """Play one game (the same decisions as `heights selfplay`) and record it."""
    bots = [make_bot(n, seat_seed(seed, seat), **(budget or {})) for seat, n in enumerate(names)]
    state = new_game(config, seed)
    tally = _AbilityTally(state)
    end_colours: list[str] = []
    while not state.is_terminal():
        seat = state.current_player()
        action = state.legal_actions()[0] if seat == CHANCE else bots[seat].act(state, seat)
        tally.read(state.apply(action))
        if state.end_round and not end_colours:
            end_colours = [c.name for c in Cube if state.on_buildings[c] == state.total[c]]
    return _record(state, seed, list(names), difficulty, tally, end_colours=end_colours)


def _record(
    s: GameState,
    seed: int,
    names: list[str],
    difficulty: str,
    tally: _AbilityTally,
    *,
    end_colours: list[str],
) -> GameRecord:
    o = outcome(s)
    cat = s.catalogue
    seats = range(s.n_seats)
    targets: list[list[Any]] = []
    for p in seats:
        t = s.target_choice[p]
        targets.append(
            [cat.targets[t].id, evaluate(s, p, cat.targets[t].scoring)] if t >= 0 else []
        )
    completed = [[cat.tiles[t].id for t in s.owned[p] if s.complete[t]] for p in seats]
    abilities = [
        {
            tile: tally.by_tile.get((p, tile), [0, 0])
            for tile in completed[p]
            if tile in tally.purple
        }
        for p in seats
    ]
    return GameRecord(
        seed=seed,
        players=s.config.players,
        solo=s.solo,
        difficulty=difficulty,
        catalogue=s.config.catalogue_id,
        bots=names,
        start_seat=s.start_seat,
        rounds=o.rounds,
        termination=o.termination.value,
        totals=list(o.totals),
        categories=[dict(c) for c in o.by_category],
        points=[float(x) for x in shared_first_points(o.ranks)],
        targets=targets,
        abilities=abilities,
        tiles=completed,
        wild=[s.wild[p] for p in seats],
        end_colours=end_colours,
    )


class _AbilityTally:
    """Uses and VP of each seat's purple abilities, read from the game's events.

    Scores of an ability name its building, except Haunted House's ("sacrifice", after
    the ability event of that building) and City Tribune's later doublings.
    """

    def __init__(self, s: GameState) -> None:
        tiles = s.catalogue.tiles
        self.purple = {t.id for t in tiles if t.purple is not None}
        self.by_name = {t.name: t.id for t in tiles}
        self.tribune = next((t.id for t in tiles if t.name == "City Tribune"), "")
        self.last: dict[int, str] = {}
        self.by_tile: dict[tuple[int, str], list[int]] = {}

    def read(self, events: Sequence[Any]) -> None:
        for e in events:
            if e.kind == "ability":
                self.last[e.player] = e.data["tile"]
                self._row(e.player, e.data["tile"])[0] += 1
            elif e.kind == "score" and e.data["category"] == Score.ABILITIES.name:
                why = e.data["why"]
                tile = self.by_name.get(why) or (
                    self.tribune if why == "City Tribune doubling" else self.last.get(e.player, "")
                )
                if tile:
                    self._row(e.player, tile)[1] += e.data["vp"]

    def _row(self, p: int, tile: str) -> list[int]:
        return self.by_tile.setdefault((p, tile), [0, 0])


def read_records(paths: Sequence[Path]) -> Iterator[GameRecord]:
    for path in paths:
        with path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                if line.strip():
                    try:
                        yield GameRecord.from_json(line)
                    except (ValueError, TypeError) as err:
                        raise ValueError(f"{path}:{number}: {err}") from None
