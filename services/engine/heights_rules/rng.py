"""The only source of chance in the rules: a keyed hash of seed, purpose and counters.

Every random draw is `BLAKE2b(key=seed, data=purpose || counters)`, so a draw depends
only on what it is for, never on how many draws came before it. Meeple rolls are keyed
by (seat, that seat's turn number, roll index): the dice a seat sees do not depend on
what the other seats decide, which is what makes duplicate matches possible.
"""

from __future__ import annotations

import struct
from typing import Final

from heights_rules.digests import blake2b

SEED_BITS: Final = 64
_U64: Final = struct.Struct("<Q")


class KeyedRng:
    """Stateless, counter-based random draws for one game seed."""

    __slots__ = ("_keyed",)

    def __init__(self, seed: int) -> None:
        if not 0 <= seed < 2**SEED_BITS:
            raise ValueError(f"seed must be in [0, 2**{SEED_BITS}), got {seed}")
        # Keying BLAKE2b costs a compression of the key block; copying a keyed state
        # does not, and every draw starts from this same state.
        self._keyed = blake2b(key=seed.to_bytes(8, "little"), digest_size=64)

    def digest(self, purpose: bytes, *counters: int) -> bytes:
        """64 pseudo-random bytes for (purpose, counters)."""
        h = self._keyed.copy()
        # One update of the same bytes (purpose, then each counter as 8 little-endian
        # bytes): the digest is that of the concatenation, however it is fed.
        h.update(purpose + b"".join([_U64.pack(c) for c in counters]))
        return h.digest()

    def below(self, n: int, purpose: bytes, *counters: int) -> int:
        """A uniform integer in [0, n); n is small, so the 64-bit modulo bias is negligible."""
        if n <= 0:
            raise ValueError("n must be positive")
        value: int = _U64.unpack_from(self.digest(purpose, *counters))[0]
        return value % n

    def shuffled(self, items: list[int], purpose: bytes) -> list[int]:
        """A Fisher-Yates shuffle of `items`, one keyed draw per swap."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1, purpose, i)
            out[i], out[j] = out[j], out[i]
        return out
