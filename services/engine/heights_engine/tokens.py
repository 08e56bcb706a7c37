"""Seat tokens and the seed commitment: the two secrets of a game and how they are checked.

A seat token is an HMAC of the game id, a per-game nonce and the seat under the service's
token secret, so a retried CreateGame can hand out the same tokens without any token
being stored: the store keeps only their SHA-256. The seed commitment is the SHA-256 of
the seed's 8-byte little-endian form followed by a 16-byte random salt; the salt keeps a
small seed from being found by trying them all, and both are revealed at the end.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from heights_rules import SEED_BITS

SALT_BYTES = 16


def new_seed() -> int:
    """A seed from OS randomness, for a game whose creator gave none."""
    return secrets.randbits(SEED_BITS)


def new_salt() -> bytes:
    return secrets.token_bytes(SALT_BYTES)


def new_nonce() -> str:
    return secrets.token_hex(16)


def commitment(seed: int, salt: bytes) -> str:
    """Lower-case hex SHA-256 of seed (8 bytes, little-endian) || salt."""
    return hashlib.sha256(seed.to_bytes(8, "little") + salt).hexdigest()


def seat_token(secret: bytes, game_id: str, nonce: str, seat: int) -> str:
    mac = hmac.new(secret, f"{game_id}:{nonce}:{seat}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def seat_of(token: str, hashes: tuple[str, ...]) -> int | None:
    """The seat whose token this is, or None; compares every hash in constant time."""
    digest = token_hash(token)
    found = None
    for seat, expected in enumerate(hashes):
        if hmac.compare_digest(digest, expected):
            found = seat
    return found
