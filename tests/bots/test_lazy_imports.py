"""A sandboxed bot process imports only the bot it plays: every match starts four, and
the package's other bots (search, MCTS, the game-series helpers) were ~5% of a greedy
bot's start-up instructions (docs/runner.md, "The runner's share")."""

from __future__ import annotations

import subprocess
import sys

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
