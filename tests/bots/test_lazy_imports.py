"""A sandboxed bot process imports only the bot it plays: every match starts four, and
the package's other bots (search, MCTS, the game-series helpers) were ~5% of a greedy
bot's start-up instructions (docs/runner.md, "The runner's share")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import sys
import heights_bots.protocol_main
from heights_bots import make_bot
make_bot(sys.argv[1], 1)
print(" ".join(sorted(m for m in sys.modules if m.startswith("heights_bots."))))
"""


def _loaded(bot: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, bot], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split())


def test_a_greedy_bot_process_loads_no_other_bot() -> None:
    loaded = _loaded("greedy")
    assert "heights_bots.greedy" in loaded
    assert not loaded & {"heights_bots.mcts", "heights_bots.search", "heights_bots.play"}


def test_a_random_bot_process_loads_neither_greedy_nor_search() -> None:
    loaded = _loaded("random")
    assert "heights_bots.random_bot" in loaded
    assert not loaded & {"heights_bots.greedy", "heights_bots.mcts", "heights_bots.search"}


def test_every_exported_name_still_resolves() -> None:
    import heights_bots

    for name in heights_bots.__all__:
        assert getattr(heights_bots, name) is not None


# What a greedy bot's start (imports, `make_bot`, the catalogue at `hello`) never uses:
# replay records (gzip, zlib), OpenSSL (hashlib's `_hashlib`; the rules take BLAKE2b and
# SHA-256 from the interpreter's builtins) and fractions (with decimal: a game's points).
NEVER_AT_START = {"heights_rules.replay", "gzip", "zlib", "_hashlib", "hashlib", "fractions"}
START = """
import sys
import heights_bots.protocol_main
from heights_bots import make_bot
from heights_rules import load_catalogue
make_bot("greedy", 1)
load_catalogue()
print(" ".join(sorted(sys.modules)))
"""


def _run_as_the_runner(code: str) -> str:
    """`code` in an interpreter started as the runner starts a built-in bot: `-S`, the
    packages' folders on PYTHONPATH (heights_runner.launch)."""
    import heights_bots
    import heights_rules
    import heights_sdk

    roots = {
        str(Path(str(m.__file__)).parent.parent) for m in (heights_bots, heights_rules, heights_sdk)
    }
    env = {"PYTHONPATH": os.pathsep.join(sorted(roots)), "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return done.stdout


def test_a_greedy_bot_start_loads_no_replay_openssl_or_fractions() -> None:
    out = _run_as_the_runner(START)
    assert "heights_bots.greedy" in out.split()
    assert not set(out.split()) & NEVER_AT_START


def test_the_rules_core_loads_replays_on_first_use() -> None:
    code = (
        "import sys, heights_rules; assert 'heights_rules.replay' not in sys.modules; "
        "from heights_rules import Replay, verify, ENGINE_VERSION; "
        "print(Replay.__module__, verify.__module__, ENGINE_VERSION)"
    )
    out = _run_as_the_runner(code)
    assert out.split()[:2] == ["heights_rules.replay", "heights_rules.replay"]


def test_a_name_loaded_on_first_use_is_kept_and_an_unknown_one_refused() -> None:
    """Both packages hand on their late names the one way (heights_rules.lazy_exports)."""
    import heights_bots
    import heights_rules

    for package, late in ((heights_bots, "GreedyBot"), (heights_rules, "Replay")):
        value = getattr(package, late)
        assert vars(package)[late] is value  # kept: later look-ups do not come back here
        with pytest.raises(AttributeError, match=rf"module '{package.__name__}' has no attr"):
            package.NoSuchName  # noqa: B018 (the look-up is the test)
