"""The rules core's hash functions, from the interpreter's own builtin modules.

Importing `hashlib` loads OpenSSL (`_hashlib`, ~12 million instructions, ~3 ms of CPU)
in every process, and every sandboxed bot imports the rules core at its start, four a
match. The rules need two functions the interpreter also has built in: hashlib's own
`blake2b` is `_blake2.blake2b`, and SHA-256 is SHA-256 whichever library computes it
(tests/rules/test_digests.py checks both against hashlib). An interpreter without the
builtin modules gets hashlib's.
"""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b

try:
    from _sha256 import sha256 as _sha256  # type: ignore[import-not-found]  # no stub
except ImportError:  # pragma: no cover - Python 3.12 renamed it
    try:
        from _sha2 import sha256 as _sha256  # type: ignore[import-not-found,no-redef,unused-ignore]
    except ImportError:  # an interpreter built without either
        from hashlib import sha256 as _sha256

__all__ = ["blake2b", "sha256_hex"]


def sha256_hex(data: bytes) -> str:
    """The SHA-256 digest of `data`, in hex."""
    return str(_sha256(data).hexdigest())
