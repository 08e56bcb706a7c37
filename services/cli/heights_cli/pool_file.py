"""The persistent game pool of `heights ladder-sim --pool FILE`: one JSON line a game.

A game of the graded population is a pure function of its `GameKey` (the kinds at the
seats, the game seed, the table size, the catalogue, the budgets of the searching kinds
at the table) and of the code that plays it. So a file of played games can serve any
later run that asks for the same key: another configuration, another repetition, a run
resumed after it was cut short. The code is named by `code_version()`, a hash of the
rules core's and the bots' sources and data: a line played by other code is stale, and
reusing it would mix two engines' games without a word, so reading refuses it.

The file is append-only: a line is written (and flushed) as soon as its game ends, so an
interrupted run loses only the games in progress.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, TextIO

FORMAT = "heights-game-pool/1"
# The packages whose code decides a game's result: the rules core and the bots.
CODE_PACKAGES = ("heights_rules", "heights_bots")
# Sources and data only: a mypyc build adds compiled modules of the same sources, which
# play the same games (the timed bots' speed, which differs, is in their budget).
_HASHED_SUFFIXES = (".py", ".json")

Budget = tuple[tuple[str, Any], ...]  # sorted (knob, value) pairs: hashable, JSON-able


class PoolFileError(ValueError):
    """The pool file cannot be used: a corrupt, foreign or stale line (with its number)."""


@dataclass(frozen=True, slots=True)
class GameKey:
    """Everything a game's result depends on, besides the code."""

    kinds: tuple[str, ...]
    seed: int
    catalogue: str
    budget: Budget  # only the knobs of the kinds at this table

    @property
    def players(self) -> int:
        return len(self.kinds)


def code_version() -> str:
    """A hash of the rules core's and the bots' source and data files (16 hex digits)."""
    digest = hashlib.sha256()
    for package in CODE_PACKAGES:
        for name, data in sorted(_files(resources.files(package), package)):
            digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()[:16]


def _files(folder: Traversable, prefix: str) -> list[tuple[str, bytes]]:
    found = []
    for item in folder.iterdir():
        name = f"{prefix}/{item.name}"
        if item.is_dir():
            if item.name != "__pycache__":
                found.extend(_files(item, name))
        elif item.name.endswith(_HASHED_SUFFIXES):
            found.append((name, item.read_bytes()))
    return found


def to_line(key: GameKey, ranks: tuple[int, ...], version: str) -> str:
    """One game as a JSON line (no newline)."""
    record = {
        "format": FORMAT,
        "version": version,
        "kinds": list(key.kinds),
        "seed": key.seed,
        "players": key.players,
        "catalogue": key.catalogue,
        "budget": dict(key.budget),
        "ranks": list(ranks),
    }
    return json.dumps(record, sort_keys=True, separators=(",", ":"))


def from_line(line: str, *, number: int, version: str) -> tuple[GameKey, tuple[int, ...]]:
    """The game of one line; `PoolFileError` for anything but a well-formed line of
    this format played by code of `version`."""
    where = f"line {number}"
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise PoolFileError(f"{where}: not JSON ({error.msg})") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise PoolFileError(f'{where}: not a game pool line (no "format": "{FORMAT}")')
    if record.get("version") != version:
        raise PoolFileError(
            f"{where}: played by other code (version {record.get('version')!r}, this code is "
            f"{version!r}): its games may differ from this code's; use another --pool file"
        )
    try:
        kinds = tuple(_str(k) for k in record["kinds"])
        ranks = tuple(_int(r) for r in record["ranks"])
        key = GameKey(
            kinds, _int(record["seed"]), _str(record["catalogue"]), _budget(record["budget"])
        )
        players = _int(record["players"])
    except (KeyError, TypeError, ValueError) as error:
        raise PoolFileError(f"{where}: malformed game ({error})") from None
    if not players == len(kinds) == len(ranks) or not all(1 <= r <= players for r in ranks):
        raise PoolFileError(
            f"{where}: malformed game ({players} players, kinds {kinds}, ranks {ranks})"
        )
    return key, ranks


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected a whole number, got {value!r}")
    return value


def _budget(value: object) -> Budget:
    if not isinstance(value, dict):
        raise TypeError(f"expected a budget object, got {value!r}")
    return tuple(sorted(value.items()))


def read_pool(path: Path, version: str) -> dict[GameKey, tuple[int, ...]]:
    """Every game in the file (none if it does not exist yet). A last line without its
    newline is a write cut short (the run was killed mid-line): it does not count."""
    games: dict[GameKey, tuple[int, ...]] = {}
    if not path.exists():
        return games
    text = path.read_bytes()[: _complete_length(path)].decode("utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            key, ranks = from_line(line, number=number, version=version)
            # Two runs sharing a file may both play a game; the first line wins (a timed
            # mcts game may end otherwise the second time: its speed varies).
            games.setdefault(key, ranks)
    return games


def open_for_append(path: Path) -> TextIO:
    """The file to append games to, a line cut short by an interrupted write cut off."""
    if path.exists():
        with path.open("r+b") as raw:
            raw.truncate(_complete_length(path))
    return path.open("a", encoding="utf-8")


def _complete_length(path: Path) -> int:
    """The bytes up to and including the last newline."""
    data = path.read_bytes()
    return data.rfind(b"\n") + 1
