"""Match seeds: drawn from `secrets`, committed to at creation, stored in a bigint.

Seeds come from `secrets`: nobody, the platform's users included, knows one before its
match ends. The platform's `seed_commitment` is
`sha256(f"rolling-heights-seed-v1:{seed}".encode())` in hex, published at creation; the
seed itself is shown once the match has finished and so has every match on its deal, the
duplicates that share it (`Match.revealed`). (The engine service publishes its own
salted commitment; that one is not stored.)
"""

from __future__ import annotations

import hashlib
import secrets

from heights_rules import SEED_BITS as ENGINE_SEED_BITS

# Match.seed is a signed 64-bit column (PostgreSQL's bigint): the platform's seeds are
# 63 bits, a subset of what the engine takes (heights_rules.SEED_BITS).
SEED_BITS = 63
SEED_LIMIT = 2**SEED_BITS
assert SEED_BITS <= ENGINE_SEED_BITS
_COMMITMENT_PREFIX = "rolling-heights-seed-v1:"


def seed_draw() -> int:
    """A match seed nobody can know in advance: 63 bits from the OS's CSPRNG."""
    return secrets.randbelow(SEED_LIMIT)


def seed_commitment(seed: int) -> str:
    """The platform's commitment to a match seed (see the module docstring)."""
    return hashlib.sha256(f"{_COMMITMENT_PREFIX}{seed}".encode()).hexdigest()
