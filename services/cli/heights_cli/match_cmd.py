"""`heights match` and `heights tournament`: local play through the real sandbox and protocol."""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heights_cli.options_arg import add_rule_options, parse_rule_options
from heights_cli.progress import ProgressBar
from heights_rules import FILE_SUFFIX, SEED_BITS

if TYPE_CHECKING:  # imported when a match runs: the CLI starts without the runner
    from heights_runner.contract import MatchResult


# `heights match` exit statuses, one place for --help, the code and the README.
EXIT_PLAYED = 0
EXIT_FORFEIT = 1
EXIT_USAGE = 2
EXIT_NOT_PLAYED = 3
EXIT_STATUSES = f"""exit status:
  {EXIT_PLAYED}  the match was played and no bot forfeited
  {EXIT_FORFEIT}  the match was played and at least one bot forfeited (the result says why)
  {EXIT_USAGE}  bad arguments, or a bot that cannot be loaded
  {EXIT_NOT_PLAYED}  the match could not be played: an engine or runner fault, no bot's
     (the error is printed on stderr)"""

BOT_HELP = "a source file (.py .js .java .cpp .rs), a .zip, a bot's folder, or a built-in"


def register(commands: Any) -> None:
    match = commands.add_parser(
        "match",
        help="play one match between bots (files, zips or built-ins) locally",
        description="Play one match between bots (files, zips or built-ins) locally.",
        epilog=EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    match.add_argument("bots", nargs="+", metavar="BOT", help=BOT_HELP)
    match.add_argument("--seed", type=int, default=None, help="game seed (default: random)")
    match.add_argument("--solo", action="store_true", help="one bot against the Mayor")
    match.add_argument("--json", action="store_true", help="print the result as JSON")
    match.add_argument(
        "--replay", type=Path, default=None, help="where to write the replay (default var/replays/)"
    )
    match.add_argument(
        "--view", action="store_true", help="then show the replay in the viewer (Ctrl-C stops)"
    )
    _common(match)
    match.set_defaults(run=run_match)

    tour = commands.add_parser(
        "tournament", help="play a series of matches between bots and print standings"
    )
    tour.add_argument("bots", nargs="+", metavar="BOT", help=BOT_HELP)
    tour.add_argument("--games", type=int, default=12, help="matches to play (default 12)")
    tour.add_argument(
        "--players", type=int, default=0, help="seats per game (default: all bots, 2-4)"
    )
    tour.add_argument("--seed", type=int, default=1, help="series seed (default 1)")
    tour.add_argument("--jobs", type=int, default=2, help="matches played at once (default 2)")
    tour.add_argument("--json", action="store_true", help="print standings as JSON")
    _common(tour)
    tour.set_defaults(run=run_tournament)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engine", default="", help="engine service address (default: in-process)")
    # The defaults are the runner's (contract.TimeLimits), filled in when a match is built:
    # the CLI starts without importing the runner, and never keeps a copy of its numbers.
    runner_default = "(default: the runner's, docs/bot-protocol.md)"
    p.add_argument("--move-ms", type=int, help=f"time per move {runner_default}")
    p.add_argument("--bank-ms", type=int, help=f"time bank per game {runner_default}")
    p.add_argument("--start-ms", type=int, help=f"start-up time {runner_default}")
    p.add_argument(
        "--allow-unsandboxed",
        action="store_true",
        help="run untrusted bots without bubblewrap (local development only)",
    )
    p.add_argument("--cache-dir", type=Path, default=Path("var/bots"), help="unpacked bots")
    p.add_argument(
        "--ask-forced",
        action="store_true",
        help="send the bots decisions with a single legal action too (the platform does not)",
    )
    add_rule_options(p)


def _base(args: argparse.Namespace, players: int, solo: bool) -> Any:
    from heights_runner.contract import MatchSpec, TimeLimits

    options = parse_rule_options(args.option).to_dict() if args.option else {}
    given = {"move_ms": args.move_ms, "bank_ms": args.bank_ms, "start_ms": args.start_ms}
    limits = TimeLimits(**{name: ms for name, ms in given.items() if ms is not None})
    seed = args.seed if args.seed is not None else secrets.randbits(SEED_BITS)
    placeholder: Any = ()
    spec = MatchSpec(
        uuid.uuid4().hex[:12],
        seed,
        placeholder,
        solo=solo,
        options=options,
        limits=limits,
        play_forced=not args.ask_forced,
    )
    return spec, players


def _policy(args: argparse.Namespace) -> Any:
    from heights_runner.launch import LaunchPolicy

    return LaunchPolicy(args.cache_dir.resolve(), allow_unsandboxed=args.allow_unsandboxed)


def run_match(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from heights_runner.local import engine_factory, seat_for
    from heights_runner.match import play_match, result_summary

    expected = 1 if args.solo else len(args.bots)
    if (args.solo and len(args.bots) != 1) or (not args.solo and not 2 <= len(args.bots) <= 4):
        print("a match needs 2 to 4 bots, or 1 with --solo", file=sys.stderr)
        return EXIT_USAGE
    try:
        seats = tuple(seat_for(b) for b in args.bots)
    except ValueError as err:
        print(f"heights match: {err}", file=sys.stderr)
        return EXIT_USAGE
    base, _ = _base(args, expected, args.solo)
    spec = replace(base, seats=seats)
    try:
        result = play_match(spec, engine_factory(args.engine), _policy(args))
    except Exception as err:  # a bot's faults are forfeits in the result; this is ours
        print(f"heights match: the match could not be played: {err!r}", file=sys.stderr)
        return EXIT_NOT_PLAYED
    code = EXIT_FORFEIT if any(seat.forfeit for seat in result.seats) else EXIT_PLAYED
    path = args.replay or Path("var/replays") / f"match-{spec.match_id}{FILE_SUFFIX}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(result.replay_bytes())
    logs = _write_logs(result, path)
    if args.json:
        extra = {
            "replay_path": str(path),
            "log_paths": {s: str(p) for s, p in logs.items()},
            "points": _points(result),
        }
        print(json.dumps(result_summary(result) | extra, indent=2))
        return _view(args, path, code)
    print(
        f"match {spec.match_id}  seed {result.seed}  {result.termination}, {result.rounds} rounds"
    )
    rows = _mayor_row(result)
    for seat in result.seats:
        note = (
            f"  FORFEIT {seat.forfeit.reason} at step {seat.forfeit.step}: {seat.forfeit.detail}"
            if seat.forfeit
            else ""
        )
        rows.append(
            (
                seat.rank,
                f"  #{seat.rank}  seat {seat.seat}  {seat.name:<20} {seat.score:>4} VP  "
                f"{seat.moves} moves, {seat.think_ms} ms{note}",
            )
        )
    for _, row in sorted(rows):
        print(row)
    print(f"replay: {path}  (heights verify {path})")
    for number, log_path in logs.items():
        print(f"seat {number} log (its stderr): {log_path}")
    return _view(args, path, code)


def _points(result: MatchResult) -> list[float]:
    """Every player's shared-first points (the Mayor's last, in solo), by final rank."""
    from heights_rules import shared_first_points

    return [float(p) for p in shared_first_points(result.outcome["final_ranks"])]


def _view(args: argparse.Namespace, replay_path: Path, code: int) -> int:
    """With --view, the replay served to the browser until Ctrl-C (`heights view`); the
    match's exit status either way."""
    if not args.view:
        return code
    from heights_cli.view_cmd import show

    shown = show(replay_path, html=None, port=0, open_browser=False)
    return code if shown == 0 else shown


def _mayor_row(result: MatchResult) -> list[tuple[int, str]]:
    """The solo game's Mayor as a (rank, row) of the table, none in a game of bots only:
    the outcome lists it after the seats, and its final ranks put forfeits last."""
    totals = result.outcome.get("totals", [])
    ranks = result.outcome.get("final_ranks", result.outcome.get("ranks", []))
    if len(totals) <= len(result.seats) or len(ranks) != len(totals):
        return []
    rank, total = int(ranks[-1]), int(totals[-1])
    return [(rank, f"  #{rank}  {'Mayor':<28} {total:>4} VP")]


def _write_logs(result: MatchResult, replay_path: Path) -> dict[int, Path]:
    """Each seat's stderr beside the replay (`<replay>.seat<N>.log`), where it wrote any;
    a log of an earlier match at the same path goes, so no file belongs to another game."""
    written = {}
    stem = replay_path.name.removesuffix(".gz").removesuffix(".replay")
    for seat in result.seats:
        log_path = replay_path.with_name(f"{stem}.seat{seat.seat}.log")
        if seat.log:
            log_path.write_text(seat.log, encoding="utf-8")
            written[seat.seat] = log_path
        else:
            log_path.unlink(missing_ok=True)
    return written


def run_tournament(args: argparse.Namespace) -> int:
    from heights_rules import shared_first_points
    from heights_runner.local import Standing, play_series, series_specs

    players = args.players or min(len(args.bots), 4)
    if not 2 <= players <= 4 or len(args.bots) < players:
        print("a tournament needs at least --players bots, and 2 to 4 players", file=sys.stderr)
        return 2
    base, _ = _base(args, players, False)
    try:
        specs = series_specs(args.bots, args.games, players, args.seed, base)
    except ValueError as err:
        print(f"heights tournament: {err}", file=sys.stderr)
        return 2
    table = [Standing(label) for label in _labels(args.bots)]
    with ProgressBar("tournament", len(specs), "matches") as bar:
        done = [0]

        def on_result(result: Any, lineup: list[int]) -> None:
            points = shared_first_points([s.rank for s in result.seats])  # never solo
            for seat, bot, got in zip(result.seats, lineup, points, strict=True):
                table[bot].add(seat.rank, got, seat.score, seat)
            done[0] += 1
            bar.update(done[0], f"last {result.seconds:.1f} s")

        play_series(specs, _policy(args), args.engine, args.jobs, on_result)
    order = sorted(
        range(len(table)),
        key=lambda i: (-table[i].points, table[i].rank_sum / max(1, table[i].games)),
    )
    if args.json:
        print(json.dumps([_row(table[i]) for i in order], indent=2))
        return 0
    print(
        f"{'#':>2}  {'bot':<24}{'games':>6}{'wins':>7}{'avg rank':>9}{'avg VP':>8}{'forfeits':>9}"
    )
    for place, i in enumerate(order, 1):
        s = table[i]
        print(
            f"{place:>2}  {s.name:<24}{s.games:>6}{s.points:>7.1f}"
            f"{s.rank_sum / max(1, s.games):>9.2f}"
            f"{s.score_sum / max(1, s.games):>8.1f}{s.forfeits:>9}"
        )
    return 0


def _labels(bots: list[str]) -> list[str]:
    """Each bot as `heights match` names it (a file by its stem), or as given where two
    files share a stem."""
    stems = [Path(b).stem for b in bots]
    return [stem if stems.count(stem) == 1 else bot for bot, stem in zip(bots, stems, strict=True)]


def _row(s: Any) -> dict[str, Any]:
    from dataclasses import asdict

    row: dict[str, Any] = asdict(s)
    return row
