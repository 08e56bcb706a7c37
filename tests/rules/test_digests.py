"""The rules core's hash functions, taken from the interpreter's builtin modules without
hashlib (heights_rules.digests), give hashlib's digests: the state hash, the dice and
the catalogue digest are the same bytes as before, on any machine."""

from __future__ import annotations

import hashlib

from heights_rules.digests import blake2b, sha256_hex

SAMPLES = [b"", b"rolling heights", bytes(range(256)) * 300]


def test_sha256_hex_is_hashlib_sha256() -> None:
    for data in SAMPLES:
        assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_blake2b_keyed_and_sized_is_hashlibs() -> None:
    for data in SAMPLES:
        key = (12345).to_bytes(8, "little")
        ours = blake2b(key=key, digest_size=64)
        ours.update(data)
        theirs = hashlib.blake2b(data, key=key, digest_size=64)
        assert ours.digest() == theirs.digest()
        assert (
            blake2b(data, digest_size=16).hexdigest()
            == hashlib.blake2b(data, digest_size=16).hexdigest()
        )
