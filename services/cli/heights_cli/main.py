"""Entry point of the `heights` command: one subcommand per module."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from heights_cli import (
    bench,
    bench_engine,
    bench_engine_mix,
    bench_engine_phases,
    bench_ratings,
    bench_runner,
    catalogue_cmd,
    demo,
    engine_cmd,
    ladder_sim_cmd,
    match_cmd,
    platform_cmd,
    runner_cmd,
    selfplay,
    stats,
    strength_cmd,
    tournament_sim_cmd,
    up,
    verify_cmd,
    view_cmd,
)
from heights_cli.options_arg import check_rule_options


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="heights",
        description="Rolling Heights Arena: rules engine, built-in bots and tools.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (
        selfplay,
        match_cmd,
        verify_cmd,
        view_cmd,
        catalogue_cmd,
        stats,
        strength_cmd,
        ladder_sim_cmd,
        tournament_sim_cmd,
        bench,
        bench_runner,
        bench_engine,
        bench_engine_mix,
        bench_engine_phases,
        bench_ratings,
        engine_cmd,
        runner_cmd,
        platform_cmd,
        demo,
        up,
    ):
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    check_rule_options(parser, args)
    try:
        code: int = args.run(args)
    except BrokenPipeError:  # `heights selfplay | head` is fine
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
