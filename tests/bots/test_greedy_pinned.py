"""The greedy bot's 2-4 player play, pinned: replay digests of fixed-seed self-play games.

The greedy bot is the table's reference player (balance measurements, the search's
rollouts, the ladder's built-in opponents), so a change meant for one mode (solo play
against the Mayor, `heights_bots.solo_tempo`) must not move a single decision of a
2-4 player game. The digest of a replay covers every action, so any changed decision
fails here. After an intended change of the greedy bot's multi-player play, rewrite the
file deliberately and review it:

    .venv/bin/python tests/bots/test_greedy_pinned.py
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heights_bots import make_bot, seat_seed
from heights_bots.play import play_game
from heights_rules import GameConfig

GOLDEN = Path(__file__).resolve().parent / "golden" / "greedy_multiplayer.json"
# Catalogue and rules revision are named, not left to the defaults, so that a new
# default catalogue or revision is not mistaken for a change of the bot.
CATALOGUE = "reconstructed-v3"
REVISION = 2
CASES = tuple((players, seed) for players in (2, 3, 4) for seed in (11, 12, 13))


def _digest(players: int, seed: int) -> str:
    config = GameConfig(players=players, catalogue_id=CATALOGUE, rules_revision=REVISION)
    bots = [make_bot("greedy", seat_seed(seed, seat)) for seat in range(players)]
    return play_game(config, seed, bots)[1].digest()


def _key(players: int, seed: int) -> str:
    return f"{players}p-seed{seed}"


@pytest.mark.parametrize(("players", "seed"), CASES, ids=[_key(*c) for c in CASES])
def test_greedy_multiplayer_games_are_unchanged(players: int, seed: int) -> None:
    pinned = json.loads(GOLDEN.read_text())
    assert _digest(players, seed) == pinned[_key(players, seed)]


def test_every_pinned_game_is_a_case() -> None:
    assert sorted(json.loads(GOLDEN.read_text())) == sorted(_key(*c) for c in CASES)


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps({_key(*c): _digest(*c) for c in CASES}, indent=1) + "\n")
    print(f"wrote {GOLDEN}")
