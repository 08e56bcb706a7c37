"""Rewrite the golden playthrough files deliberately, after an intended change of behaviour.

Usage, from the repository root:

    .venv/bin/python tests/rules/golden/regenerate.py             # every game
    .venv/bin/python tests/rules/golden/regenerate.py 2p-seed1    # only the named ones

The games, the policy and the file format are defined in `tests/rules/test_golden.py`
(`CASES`, `render`); this script only runs its `write_all`. Review the diff of the
rewritten files (`git diff tests/rules/golden/`) before committing them: every changed
line is a change in how the engine plays.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

TEST_MODULE = Path(__file__).resolve().parent.parent / "test_golden.py"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("names", nargs="*", help="games to rewrite (default: all)")
    args = parser.parse_args(argv)
    spec = importlib.util.spec_from_file_location("golden_playthroughs", TEST_MODULE)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {TEST_MODULE}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    unknown = sorted(set(args.names) - set(module.CASES))
    if unknown:
        parser.error(f"unknown games {', '.join(unknown)}; known: {', '.join(module.CASES)}")
    for path in module.write_all(args.names or None):
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
