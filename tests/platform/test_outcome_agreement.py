"""One outcome everywhere: the engine, the runner, the platform and the CLI rank a game alike.

Each case is played for real twice on one seed: by the runner in this process (bots in
their sandboxes, the in-process engine) and by `heights match --json` in a process of its
own; the two replays are byte for byte the same game. The engine's outcome (the replay
re-simulated by the rules core) with the forfeits the runner saw gives, through
heights_rules.ranking, the ranks and points that the runner's MatchResult, the platform's
recorded match, its replay verification, its ladder and standings, and the CLI's JSON
report must all show. Cases: solo (the Mayor wins; the seat forfeits), 2 to 4 players,
shared firsts, and bots that forfeit at set steps.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from heights_platform.bots.models import Bot
from heights_platform.competition.standings import GameRecord, compute_standings
from heights_platform.ladders.models import LadderEntry
from heights_platform.ladders.services import ladder_create, ladder_join
from heights_platform.matches.models import Match, MatchSeat
from heights_platform.matches.services import match_create, match_result_record
from heights_platform.replays.models import Replay as StoredReplay
from heights_platform.replays.selectors import replay_verify
from heights_rules import MAYOR_SEAT, final_ranks, outcome, shared_first_points
from heights_rules.replay import Replay, simulate
from heights_runner.contract import MatchResult, MatchSpec, TimeLimits
from heights_runner.engines import LocalEngine
from heights_runner.launch import LaunchPolicy
from heights_runner.local import seat_for
from heights_runner.match import play_match
from heights_runner.sandbox import probe

pytestmark = pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not available")

# A bot that plays the first legal action `moves` times, then exits: a crash forfeit at a
# step set by the case (0 moves: before its first decision).
QUITTER = """
from heights_sdk import Bot, run
class Quitter(Bot):
    moves = 0
    def choose(self, d):
        Quitter.moves += 1
        if Quitter.moves > {moves}:
            raise SystemExit(3)
        return d.legal[0].id
run(Quitter(name="quitter"))
"""
LIMITS = TimeLimits(move_ms=1000, bank_ms=10_000, start_ms=5000)  # `heights match`'s defaults


@dataclass(frozen=True, slots=True)
class Case:
    seed: int
    bots: tuple[str, ...]  # built-in names, or "quitN" for a QUITTER of N moves
    solo: bool = False
    options: tuple[str, ...] = ()  # NAME=VALUE rule options


CASES = {
    "solo_the_mayor_wins": Case(5, ("random",), solo=True),
    "solo_the_seat_forfeits": Case(5, ("quit4",), solo=True),
    "two_players": Case(7, ("random", "greedy")),
    "three_players_one_forfeit": Case(11, ("greedy", "quit6", "random"), options=("round_cap=4",)),
    "four_players_two_forfeits": Case(
        13, ("quit2", "random", "quit9", "greedy"), options=("round_cap=3",)
    ),
    "four_players_shared_first": Case(1, ("random",) * 4, options=("round_cap=1",)),
    # The forfeiting seat has the most VP: it still ranks last, below a first shared by 3.
    "shared_first_and_a_forfeit": Case(
        5, ("random", "quit0", "random", "random"), options=("round_cap=1",)
    ),
}


def _bot_args(case: Case, tmp: Path) -> list[str]:
    args = []
    for name in case.bots:
        if name.startswith("quit"):
            path = tmp / f"{name}.py"
            path.write_text(QUITTER.format(moves=int(name.removeprefix("quit"))))
            args.append(str(path))
        else:
            args.append(name)
    return args


def _platform_match(
    case: Case, make_user: Callable[..., User], make_active_bot: Callable[..., Bot]
) -> Match:
    """A ladder match of the case's seats (a challenge in solo), on the case's seed."""
    bots = [make_active_bot(make_user()) for _ in case.bots]
    versions = [b.active_version for b in bots if b.active_version is not None]
    options = dict(o.split("=") for o in case.options)
    parsed = {k: int(v) for k, v in options.items()}
    if case.solo:
        return match_create(
            kind="challenge", seats=versions, players=1, options=parsed, seed=case.seed
        )
    ladder = ladder_create(slug="agree", name="Agree", players=len(bots))
    for bot in bots:
        ladder_join(ladder=ladder, bot=bot)
    return match_create(
        kind="ladder",
        seats=versions,
        players=len(bots),
        options=parsed,
        ladder=ladder,
        seed=case.seed,
    )


def _runner_result(case: Case, match: Match, bot_args: list[str], tmp: Path) -> MatchResult:
    spec = MatchSpec(
        str(match.pk),
        case.seed,
        tuple(seat_for(arg) for arg in bot_args),
        solo=case.solo,
        options=dict(match.options),
        limits=LIMITS,
    )
    return play_match(spec, LocalEngine, LaunchPolicy((tmp / "bots").resolve()))


def _cli_report(case: Case, bot_args: list[str], tmp: Path) -> dict[str, Any]:
    options = [arg for o in case.options for arg in ("--option", o)]
    solo = ["--solo"] if case.solo else []
    done = subprocess.run(
        [
            *(sys.executable, "-m", "heights_cli.main", "match", *bot_args, *solo, *options),
            *("--seed", str(case.seed), "--json", "--replay", str(tmp / "cli.replay.gz")),
        ],
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    report: dict[str, Any] = json.loads(done.stdout)
    # `heights match` exits 1 when a bot forfeited (the report is printed all the same).
    forfeited = any(seat["forfeit"] for seat in report["seats"])
    assert done.returncode == (1 if forfeited else 0), done.stderr
    return report


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_component_ranks_the_same_game_alike(
    name: str,
    tmp_path: Path,
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
) -> None:
    case = CASES[name]
    seats = len(case.bots)
    bot_args = _bot_args(case, tmp_path)
    match = _platform_match(case, make_user, make_active_bot)
    result = _runner_result(case, match, bot_args, tmp_path)
    report = _cli_report(case, bot_args, tmp_path)
    assert report["replay_sha256"] == result.replay_sha256  # one game, played twice

    record = Replay.from_bytes(result.replay_bytes())
    engine = outcome(simulate(record))
    forfeited = {f["seat"]: f["step"] for f in record.forfeits}
    quitters = {s for s, bot in enumerate(case.bots) if bot.startswith("quit")}
    assert set(forfeited) == quitters
    expected = final_ranks(engine.ranks, forfeited, solo=case.solo)
    points = [float(p) for p in shared_first_points(expected)]
    _check_case_shape(name, engine.ranks, expected)

    # The runner: seat ranks and the outcome it reports.
    assert [s.rank for s in result.seats] == list(expected[:seats])
    assert result.outcome["ranks"] == list(engine.ranks)
    assert result.outcome["final_ranks"] == list(expected)
    # The CLI's JSON report.
    assert [s["rank"] for s in report["seats"]] == list(expected[:seats])
    assert report["outcome"]["final_ranks"] == list(expected)
    assert report["points"] == points
    # The platform: the recorded match, its replay's verification, ladder and standings.
    match_result_record(result=result)
    match.refresh_from_db()
    assert (match.status, match.error) == (Match.Status.FINISHED, "")
    recorded = list(MatchSeat.objects.filter(match=match).order_by("seat"))
    assert [s.rank for s in recorded] == list(expected[:seats])
    assert {s.seat for s in recorded if s.forfeit_reason} == quitters
    verified = replay_verify(replay=StoredReplay.objects.get(match=match))
    assert verified.ok, verified.message
    if not case.solo:
        wins = {e.bot_id: e.wins for e in LadderEntry.objects.filter(ladder=match.ladder)}
        assert [wins[s.bot_version.bot_id] for s in recorded] == points[:seats]
        table = compute_standings(
            [s.seat for s in recorded], [GameRecord(ranks={s.seat: s.rank or 0 for s in recorded})]
        )
        assert {row.player: row.points for row in table} == dict(enumerate(points))


def _check_case_shape(name: str, engine: tuple[int, ...], final: tuple[int, ...]) -> None:
    """What each case is there for did happen in its game."""
    if name == "solo_the_mayor_wins":
        assert engine == (2, 1)
    if name.startswith("solo"):
        assert final[MAYOR_SEAT] == 1
    if "shared_first" in name:
        assert final.count(1) > 1
