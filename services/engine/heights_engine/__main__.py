"""`python -m heights_engine`: serve with the settings from the environment."""

import sys

from heights_engine import SettingsError, main

try:
    sys.exit(main())
except SettingsError as err:
    print(f"heights_engine: {err}", file=sys.stderr)
    sys.exit(2)
