"""`heights match` takes its time limits and seed width from the runner and the rules core,
never from copies of their numbers."""

from __future__ import annotations

from heights_cli.main import build_parser
from heights_cli.match_cmd import _base
from heights_rules import SEED_BITS
from heights_runner.contract import MatchSpec, TimeLimits


def _spec(*argv: str) -> MatchSpec:
    args = build_parser().parse_args(["match", "random", "greedy", *argv])
    spec: MatchSpec = _base(args, 2, False)[0]
    return spec


def test_limits_left_out_are_the_runners_defaults() -> None:
    assert _spec("--seed", "7").limits == TimeLimits()


def test_a_limit_given_changes_only_that_limit() -> None:
    limits = _spec("--move-ms", "250", "--start-ms", "900").limits
    defaults = TimeLimits()
    assert (limits.move_ms, limits.start_ms) == (250, 900)
    assert (limits.bank_ms, limits.game_ms) == (defaults.bank_ms, defaults.game_ms)


def test_a_drawn_seed_fits_the_engines_width_and_is_not_fixed() -> None:
    seeds = {_spec().seed for _ in range(8)}
    assert all(0 <= seed < 2**SEED_BITS for seed in seeds)
    assert len(seeds) > 1
