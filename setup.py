"""Build hook: compile the rules core's hot modules to C with mypyc.

The engine is plain, strictly typed Python; mypyc turns the modules on the per-step
path into extension modules (about twice as fast) without changing a line of them.
`HEIGHTS_PURE_PYTHON=1` skips compilation: the editable development install
(`make setup`) runs as Python, the built package (`make compiled`, images) is compiled,
and the golden playthroughs check that both play the same games.
"""

import os
from typing import Any

from setuptools import setup

# The per-step path of the rules core, and the per-decision one of a match (observations,
# their patches, states rebuilt from documents); the rest (loading, replays) runs once
# a game and stays Python so tracebacks there stay readable.
COMPILED = (
    "actions",
    "completion",
    "components",
    "dispatch",
    "economy",
    "effects",
    "final",
    "frames",
    "game",
    "geometry",
    "legal",
    "main_phase",
    "market",
    "observation",
    "patches",
    "ranking",
    "rng",
    "scoring",
    "serialize",
    "setup",
    "solo",
    "state",
    "turn",
)


# The bots' per-decision modules: greedy is also every search rollout's policy, and the
# searching bots (search, mcts) spend their whole budget in these loops.
# (bot.py keeps its runtime-checkable Protocol, which mypyc does not compile.)
COMPILED_BOTS = (
    "abilities",
    "action_ids",
    "candidates",
    "evaluation",
    "greedy",
    "greedy_choices",
    "greedy_main",
    "mcts",
    "placement",
    "random_bot",
    "reading",
    "search",
    "solo_tempo",
    "tables",
)


def ext_modules() -> list[Any]:
    if os.environ.get("HEIGHTS_PURE_PYTHON") == "1":
        return []
    from mypyc.build import mypycify

    paths = [f"services/engine/heights_rules/{name}.py" for name in COMPILED]
    paths += [f"services/bots/heights_bots/{name}.py" for name in COMPILED_BOTS]
    return list(mypycify(paths, opt_level="3"))


setup(ext_modules=ext_modules())
