"""The game pool's options, shared by `heights ladder-sim` and `heights tournament-sim`.

Both simulators play the graded population through one `GamePool`, so they take the
same options for it, checked the same way: `--pool FILE` (games kept across runs),
`--jobs N` (missing games played in N processes), `--catalogue`, and the searching
kinds' budgets (`--search-iterations`, `--mcts-seconds` on the CPU-time clock,
`--mcts-iterations`). A reduced budget makes a weaker bot, so each report names the
kinds that play below their default budget (`pool_setup`, `budget_line`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from heights_cli.game_pool import (
    DEFAULT_BUDGET,
    MCTS_ITERATIONS,
    MCTS_SECONDS,
    SEARCH_ITERATIONS,
    GamePool,
)
from heights_cli.pool_file import PoolFileError
from heights_rules import DEFAULT_CATALOGUE, CatalogueError, load_catalogue

MAX_JOBS, MAX_SEARCH_ITERATIONS, MAX_MCTS_ITERATIONS, MAX_MCTS_SECONDS = 64, 100_000, 1_000_000, 60


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The pool's options, on a simulator's parser."""
    p.add_argument("--pool", type=Path, help="a JSONL file of played games, read and extended")
    p.add_argument("--jobs", type=int, default=1, help=f"processes playing games (1-{MAX_JOBS})")
    p.add_argument("--catalogue", default=DEFAULT_CATALOGUE)
    p.add_argument(
        "--search-iterations",
        type=int,
        default=SEARCH_ITERATIONS,
        help=f"search's simulations per decision (default {SEARCH_ITERATIONS})",
    )
    p.add_argument(
        "--mcts-seconds",
        type=float,
        default=MCTS_SECONDS,
        help=f"mcts's CPU seconds per searched decision (default {MCTS_SECONDS}; 0: no clock, "
        "--mcts-iterations only, so deterministic)",
    )
    p.add_argument(
        "--mcts-iterations",
        type=int,
        default=MCTS_ITERATIONS,
        help=f"the most simulations mcts makes per decision (default {MCTS_ITERATIONS})",
    )


def check(args: argparse.Namespace) -> str | None:
    """What is wrong with the pool's options, if anything."""
    for name, value, top in (
        ("--jobs", args.jobs, MAX_JOBS),
        ("--search-iterations", args.search_iterations, MAX_SEARCH_ITERATIONS),
        ("--mcts-iterations", args.mcts_iterations, MAX_MCTS_ITERATIONS),
    ):
        if not 1 <= value <= top:
            return f"{name} must be between 1 and {top}, got {value}"
    # `not a <= x <= b` and not `x < a or x > b`: a NaN fails every comparison.
    if not 0 <= args.mcts_seconds <= MAX_MCTS_SECONDS:
        return f"--mcts-seconds must be between 0 and {MAX_MCTS_SECONDS}, got {args.mcts_seconds}"
    try:
        # Here, not at the first game: in a worker process it would surface as a traceback.
        load_catalogue(args.catalogue)
    except CatalogueError as error:
        return f"--catalogue: {error}"
    return None


def budget(args: argparse.Namespace) -> dict[str, Any]:
    """The searching kinds' budgets; mcts on the CPU-time clock."""
    return {
        **DEFAULT_BUDGET,
        "iterations": args.search_iterations,
        "mcts_seconds": args.mcts_seconds or None,
        "mcts_iterations": args.mcts_iterations,
    }


def reduced(kinds: Sequence[str], knobs: dict[str, Any]) -> list[str]:
    """The kinds playing below their default budget (weaker than the measured kind)."""
    below = {
        "search": knobs["iterations"] < SEARCH_ITERATIONS,
        "mcts": (knobs["mcts_seconds"] or float("inf")) < MCTS_SECONDS
        or knobs["mcts_iterations"] < MCTS_ITERATIONS,
    }
    return [kind for kind in kinds if below.get(kind, False)]


def open_pool(args: argparse.Namespace, command: str) -> GamePool | None:
    """The pool the options describe; None (after saying why on stderr) if its file
    cannot be used."""
    try:
        return GamePool(
            players=args.players,
            budget=budget(args),
            catalogue=args.catalogue,
            path=args.pool,
            jobs=args.jobs,
        )
    except (PoolFileError, OSError) as error:
        print(f"heights {command}: --pool {args.pool}: {error}", file=sys.stderr)
        return None


def pool_setup(pool: GamePool, kinds: Sequence[str]) -> dict[str, Any]:
    """The pool's part of a report: catalogue, budgets, and the games it played, read
    and served."""
    return {
        "catalogue": pool.catalogue,
        "budget": dict(pool.budget),
        "reduced_budget_kinds": reduced(kinds, pool.budget),
        "games_played": pool.played,
        "games_from_pool_file": pool.loaded,
        "games_rated": pool.asked,
        "cpu_by_heaviest_kind": pool.cpu_report(),
    }


def budget_line(setup: dict[str, Any]) -> str | None:
    """A line naming the reduced budgets, if any kind plays below its default."""
    if not setup.get("reduced_budget_kinds"):
        return None
    knobs = setup["budget"]
    # mcts_seconds is None for --mcts-seconds 0: no clock, the simulation count alone.
    clock = f"{knobs['mcts_seconds']} s CPU" if knobs["mcts_seconds"] else "no clock"
    return (
        f"reduced budgets (weaker than the default kinds): search "
        f"{knobs['iterations']} simulations, mcts {clock} / "
        f"{knobs['mcts_iterations']} simulations a decision"
    )
