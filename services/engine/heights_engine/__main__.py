"""`python -m heights_engine`: serve with the settings from the environment."""

import sys

from heights_engine import SettingsError, main

if sys.argv[1:]:
    # Arguments would be silently ignored (and `--help` would start a server).
    print(
        "usage: python -m heights_engine (no arguments: it reads the HEIGHTS_ENGINE_* "
        "variables; `heights engine serve --address ... --redis-url ...` takes options)",
        file=sys.stderr,
    )
    sys.exit(2)
try:
    sys.exit(main())
except SettingsError as err:
    print(f"heights_engine: {err}", file=sys.stderr)
    sys.exit(2)
