"""Entry point of the `heights` command (subcommands are added as components land)."""

import sys


def main(argv: list[str] | None = None) -> int:
    del argv
    print("heights: no subcommands yet", file=sys.stderr)
    return 2
