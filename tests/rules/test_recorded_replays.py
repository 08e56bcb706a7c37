"""Replays recorded before rules revision 2 (by the engine of that time, on
reconstructed-v1) still verify byte for byte, and re-simulating their decisions under
revision 2 shows the two fixes they were recorded without.

Files in `replays/`: `v1-2p-ad10-seed102` (Ad 10 in play: revision 2 re-scores a
variable-VP building higher and the shared win becomes seat 1's), `v1-solo-wildlimit-
seed1` (a Wild Token limit of 3 the Mayor's Step A exceeded), and two plain v1 games.
`v2-*.replay.gz`: greedy games recorded on reconstructed-v2 (revision 2) while it was the
default, before reconstructed-v3 replaced it; `v3-*.replay.gz` the same on reconstructed-v3
while it was the default, so that they still verify once a later catalogue is.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from heights_rules import IllegalActionError, new_game, outcome, verify
from heights_rules.replay import Replay

REPLAY_DIR = Path(__file__).parent / "replays"
REPLAYS = sorted(REPLAY_DIR.glob("*.rhr"))
V2_REPLAYS = sorted(REPLAY_DIR.glob("v2-*.replay.gz"))
V3_REPLAYS = sorted(REPLAY_DIR.glob("v3-*.replay.gz"))


def test_the_recorded_replays_are_there() -> None:
    assert len(REPLAYS) == 4
    assert len(V2_REPLAYS) == 3
    assert len(V3_REPLAYS) == 3


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.stem)
def test_a_replay_recorded_before_revision_2_verifies_byte_for_byte(path: Path) -> None:
    blob = path.read_bytes()
    replay = Replay.from_bytes(blob)
    assert replay.config.rules_revision == 1
    assert replay.config.catalogue_id == "reconstructed-v1"
    assert replay.to_bytes() == blob  # reading and writing keeps every byte
    result = verify(replay)
    assert result.ok, result.message


@pytest.mark.parametrize("path", V2_REPLAYS, ids=lambda p: p.name.split(".")[0])
def test_a_replay_recorded_on_v2_verifies_byte_for_byte_after_v3(path: Path) -> None:
    blob = path.read_bytes()
    replay = Replay.from_bytes(blob)
    assert replay.config.catalogue_id == "reconstructed-v2"
    assert replay.to_bytes() == blob
    result = verify(replay)
    assert result.ok, result.message


@pytest.mark.parametrize("path", V3_REPLAYS, ids=lambda p: p.name.split(".")[0])
def test_a_replay_recorded_on_v3_verifies_byte_for_byte(path: Path) -> None:
    blob = path.read_bytes()
    replay = Replay.from_bytes(blob)
    assert replay.config.catalogue_id == "reconstructed-v3"
    assert replay.to_bytes() == blob
    result = verify(replay)
    assert result.ok, result.message


def _totals_under(replay: Replay, revision: int) -> tuple[int, ...]:
    s = new_game(dataclasses.replace(replay.config, rules_revision=revision), replay.seed)
    for action in replay.actions:
        s.apply(action)
    return outcome(s).totals


def test_ad10_recorded_game_scores_differently_under_revision_2() -> None:
    replay = Replay.from_bytes((REPLAY_DIR / "v1-2p-ad10-seed102.rhr").read_bytes())
    assert _totals_under(replay, 1) == (60, 60)
    assert _totals_under(replay, 2) == (60, 61)


def test_wild_limit_recorded_game_cannot_be_replayed_under_revision_2() -> None:
    replay = Replay.from_bytes((REPLAY_DIR / "v1-solo-wildlimit-seed1.rhr").read_bytes())
    assert replay.config.options.wild_supply_limit == 3
    with pytest.raises(IllegalActionError):
        _totals_under(replay, 2)
