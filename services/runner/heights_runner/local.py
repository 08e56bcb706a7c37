"""Local play for bot authors: a BOT argument becomes a seat; matches and series.

Same protocol, sandbox and limits as the server; the engine runs in this process unless
an engine service address is given. A tournament here is a duplicate series: each game
seed is played once per rotation of the seats.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from heights_runner.botfiles import check_bot_file
from heights_runner.contract import (
    BUILTIN_BOTS,
    BotRef,
    MatchResult,
    MatchSpec,
    SeatSpec,
    TimeLimits,
)
from heights_runner.engines import Engine, LocalEngine
from heights_runner.launch import LaunchPolicy
from heights_runner.match import play_match

# Not part of a bot: what builds and editors leave in its folder.
_LEFTOVERS = frozenset({"__pycache__", "target", "build", "node_modules"})


def seat_for(arg: str) -> SeatSpec:
    """A built-in by name, a source file or .zip archive, or a bot's folder (zipped as an
    upload of it would be); validated like an upload."""
    if arg in BUILTIN_BOTS:
        return SeatSpec(arg, BotRef.builtin(arg), trusted=True)
    path = Path(arg)
    if path.is_dir():
        name, content = f"{path.resolve().name}.zip", zip_folder(path)
    elif path.is_file():
        name, content = path.name, path.read_bytes()
    else:
        raise ValueError(
            f"{arg!r} is neither a built-in bot ({', '.join(BUILTIN_BOTS)}) nor a file or folder"
        )
    kind = check_bot_file(name, content)
    return SeatSpec(Path(name).stem, BotRef.from_bytes(kind, name, content))


def zip_folder(folder: Path) -> bytes:
    """A bot's folder as the zip its author would upload: every file but hidden ones and
    build leftovers, in name order, with fixed dates (the same folder, the same bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(folder)
            if not path.is_file() or any(p.startswith(".") or p in _LEFTOVERS for p in rel.parts):
                continue
            info = zipfile.ZipInfo(rel.as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def derived_seed(seed: int, index: int) -> int:
    digest = hashlib.blake2b(f"{seed}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def engine_factory(address: str) -> Callable[[MatchSpec], Engine]:
    if not address:
        return LocalEngine
    from heights_runner.grpc_engine import GrpcEngine, channel
    from heights_runner.settings import RunnerSettings

    chan = channel(address)
    token = RunnerSettings.from_env().engine_operator_token
    return lambda spec: GrpcEngine(spec, chan, token)


@dataclass(slots=True)
class Standing:
    name: str
    games: int = 0
    points: float = 0.0  # 1 per win, shared wins split
    rank_sum: int = 0
    score_sum: int = 0
    forfeits: int = 0
    think_ms: int = 0
    moves: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def add(self, rank: int, points: Fraction, score: int, result_seat: Any) -> None:
        """One match of this bot: its final rank and its shared-first points (both from
        heights_rules.ranking)."""
        self.games += 1
        self.rank_sum += rank
        self.score_sum += score
        self.points += float(points)
        self.think_ms += result_seat.think_ms
        self.moves += result_seat.moves
        if result_seat.forfeit is not None:
            self.forfeits += 1
            reason = result_seat.forfeit.reason
            self.reasons[reason] = self.reasons.get(reason, 0) + 1


def series_specs(
    bots: Sequence[str], games: int, players: int, seed: int, base: MatchSpec
) -> list[tuple[MatchSpec, list[int]]]:
    """`games` matches; consecutive groups share a seed and rotate the seats.

    With more bots than seats, each seed's lineup is the next `players` bots in a cycle.
    Returns each spec with the index (into `bots`) of the bot at each seat.
    """
    seats = [seat_for(b) for b in bots]
    specs = []
    for index in range(games):
        group, turn = divmod(index, players)
        lineup = [(group * players + k) % len(bots) for k in range(players)]
        lineup = lineup[turn:] + lineup[:turn]
        spec = replace(
            base,
            match_id=f"{base.match_id}-{index}",
            seed=derived_seed(seed, group),
            seats=tuple(seats[i] for i in lineup),
        )
        specs.append((spec, lineup))
    return specs


def play_series(
    specs: Sequence[tuple[MatchSpec, list[int]]],
    policy: LaunchPolicy,
    address: str,
    jobs: int,
    on_result: Callable[[MatchResult, list[int]], None],
) -> None:
    factory = engine_factory(address)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [
            (pool.submit(play_match, spec, factory, policy), lineup) for spec, lineup in specs
        ]
        for future, lineup in futures:
            on_result(future.result(), lineup)


def default_limits() -> TimeLimits:
    return TimeLimits()
