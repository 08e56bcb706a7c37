"""`heights catalogue`: the component catalogue in force, the rule options, the action
space and the state's fields."""

from __future__ import annotations

import argparse
import json
from typing import Any

from heights_rules import (
    DEFAULT_CATALOGUE,
    OPTION_SPECS,
    STATE_FIELDS,
    CatalogueError,
    describe_action_space,
    load_catalogue,
)


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "catalogue", help="print the component catalogue in force (id, hash, every item)"
    )
    p.add_argument("--id", default=DEFAULT_CATALOGUE, help="catalogue id")
    p.add_argument("--json", action="store_true", help="print the catalogue as JSON")
    p.add_argument(
        "--options",
        action="store_true",
        help="print the rule options: canonical names, allowed values, defaults",
    )
    p.add_argument("--actions", action="store_true", help="print the action-space layout")
    p.add_argument(
        "--state-fields",
        action="store_true",
        help="print the state's fields as docs/engine.md's Markdown table",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.options:
        _print_options(as_json=args.json)
        return 0
    if args.actions:
        print(json.dumps(describe_action_space(), indent=2))
        return 0
    if args.state_fields:
        print(state_fields_markdown(), end="")
        return 0
    try:
        catalogue = load_catalogue(args.id)
    except CatalogueError as err:
        print(f"heights catalogue: {err}")
        return 2
    if args.json:
        print(
            json.dumps({"id": catalogue.id, "sha256": catalogue.sha256, **catalogue.raw}, indent=1)
        )
        return 0
    print(f"{catalogue.id}  sha256 {catalogue.sha256}")
    print(f"{catalogue.title}")
    for level in (1, 2):
        tiles = [t for t in catalogue.tiles if t.level == level]
        print(f"\nLevel {level}: {len(tiles)} plans")
        for t in tiles:
            stacks = " ".join(f"{c}{h}" for c, h in ((("WCGS")[c], h) for c, h in t.stacks))
            purple = " purple" if t.purple else ""
            print(f"  {t.name:32} {t.type.name:12} {stacks:24} {t.vp:2} VP{purple}")
    print(f"\nBoards: {', '.join(b.id for b in catalogue.boards)}")
    print(f"Ads: {', '.join(f'{a.id} {a.name}' for a in catalogue.ads)}")
    print(f"Targets: {', '.join(f'{t.id} {t.name}' for t in catalogue.targets)}")
    return 0


def _print_options(*, as_json: bool) -> None:
    """Every rule option as `--option NAME=VALUE`, the REST `options` object and the
    engine's `options_json` take it."""
    if as_json:
        print(json.dumps([spec.to_dict() for spec in OPTION_SPECS], indent=2))
        return
    width = max(len(spec.name) for spec in OPTION_SPECS)
    print(f"{'option':{width}}  {'default':14}  allowed")
    for spec in OPTION_SPECS:
        default = json.dumps(spec.default).strip('"')
        print(f"{spec.name:{width}}  {default:14}  {spec.allowed}")


def state_fields_markdown() -> str:
    """The table of the state's fields in docs/engine.md, made from the rules core's table."""
    lines = [
        "| field | kind | in the state document | who may know it | what it holds |",
        "| --- | --- | --- | --- | --- |",
    ]
    for f in STATE_FIELDS:
        stored = f.stored.value + (f" as `{f.key}`" if f.key else "")
        lines.append(
            f"| `{f.name}` | {f.kind.value} | {stored} | {f.visibility.value} | {f.holds} |"
        )
    return "\n".join(lines) + "\n"
