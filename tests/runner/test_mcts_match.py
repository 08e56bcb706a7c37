"""The mcts bot through the bot protocol and the sandbox, like any submitted bot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.heights_command import heights

from heights_rules.replay import Replay, verify
from heights_runner.sandbox import probe

pytestmark = pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not available")


def test_mcts_plays_a_sandboxed_match_at_the_default_time_limit(tmp_path: Path) -> None:
    replay_path = tmp_path / "game.replay.gz"
    args = ["match", "mcts", "noisy-greedy-50", "--seed", "11", "--json"]
    args += ["--replay", str(replay_path), "--option", "round_cap=2"]
    done = heights(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr  # 0: played, nobody forfeited
    result = json.loads(done.stdout)
    assert [s["name"] for s in result["seats"]] == ["mcts", "noisy-greedy-50"]
    assert all(s["forfeit"] is None for s in result["seats"])
    replay = Replay.from_bytes(replay_path.read_bytes())
    assert verify(replay).ok
    # Its notes travel through the protocol into the replay: it searched, within limits.
    notes = list(replay.debug.values())
    assert any("mcts" in n and "iterations" in n for n in notes), notes[:5]
