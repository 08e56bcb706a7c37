"""Shared command-line pieces: rule options given as NAME=VALUE.

All `--option`s are checked together once the command line is parsed
(`check_rule_options`, by the rules' own `validate_options`), so a bad one is a usage
error (exit 2) naming the option and what it allows, before anything runs.
"""

from __future__ import annotations

import argparse
from typing import Any

from heights_rules import OPTION_SPECS, RuleOptionError, RuleOptions, validate_options

_SPECS = {spec.name: spec for spec in OPTION_SPECS}
_TRUE, _FALSE = ("true", "1", "yes"), ("false", "0", "no")


def add_rule_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule option (see `heights catalogue --options`); may be repeated",
    )


def check_rule_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A usage error (exit 2) unless the command's `--option`s, if it takes any, validate."""
    pairs = getattr(args, "option", None)
    if not pairs:
        return
    try:
        parse_rule_options(pairs)
    except RuleOptionError as err:
        parser.error(f"argument --option/-o: {err}")


def _value(name: str, text: str) -> Any:
    """The JSON value a command-line text stands for, by the option's type (a text that
    is none is passed on as it is, for `validate_options` to refuse by name)."""
    spec = _SPECS.get(name)
    if spec is None or spec.kind == "enum":
        return text
    if spec.kind == "bool":
        lowered = text.lower()
        return True if lowered in _TRUE else False if lowered in _FALSE else text
    try:
        return int(text)
    except ValueError:
        return text


def parse_rule_options(pairs: list[str]) -> RuleOptions:
    """`end_trigger=SUPPLY_EMPTY round_cap=30 mayor_hard=true` -> RuleOptions; raises
    RuleOptionError (a ValueError) naming a bad option and what it allows."""
    values: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep:
            raise RuleOptionError(
                pair[:40], "NAME=VALUE", f"--option needs NAME=VALUE, got {pair[:40]!r}"
            )
        values[name] = _value(name, text)
    return validate_options(values)
