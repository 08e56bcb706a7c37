"""A stored game's record for the store tests: the fields a store keeps, none of them real."""

from __future__ import annotations

from heights_engine.store import GameRecord


def game_record(game_id: str) -> GameRecord:
    return GameRecord(
        game_id=game_id,
        config={"players": 2},
        seed=1,
        salt_hex="00",
        commitment="c",
        seat_names=("a", "b"),
        token_hashes=("x", "y"),
        token_nonce="n",
        request_id=f"request-{game_id}",
        fingerprint="f",
    )
