"""Shared command-line pieces: rule options given as NAME=VALUE."""

from __future__ import annotations

import argparse
from typing import Any

from heights_rules import RuleOptions


def add_rule_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule option (see `heights catalogue --options`); may be repeated",
    )


def parse_rule_options(pairs: list[str]) -> RuleOptions:
    """`end_trigger=SUPPLY_EMPTY round_cap=30 mayor_hard=true` -> RuleOptions."""
    values: dict[str, Any] = {}
    defaults = RuleOptions().to_dict()
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep:
            raise argparse.ArgumentTypeError(f"--option needs NAME=VALUE, got {pair!r}")
        default = defaults.get(name)
        if isinstance(default, bool):
            if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise argparse.ArgumentTypeError(f"option {name} takes true or false")
            values[name] = text.lower() in ("true", "1", "yes")
        elif isinstance(default, int):
            try:
                values[name] = int(text)
            except ValueError:
                raise argparse.ArgumentTypeError(f"option {name} takes an integer") from None
        else:
            values[name] = text
    try:
        return RuleOptions.from_dict(values)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
