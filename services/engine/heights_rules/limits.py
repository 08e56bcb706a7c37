"""Bounded reading of untrusted bytes: gunzip with a ceiling, JSON with a depth limit.

A replay or a document can come from anyone (a file, a gRPC request). Decompression
streams and stops at `limit` bytes of output, so a small gzip of a gigabyte of zeros
costs no more memory than the limit; nesting is counted before `json.loads` sees the
text, because Python's parser recurses once per level and a deep enough document ends
in a RecursionError instead of a clear refusal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from heights_rules.errors import DocumentTooDeepError, DocumentTooLargeError

GZIP_MAGIC = b"\x1f\x8b"
# Far above any document of the game (a replay nests 3 levels, rule options 2), far
# below the depth where Python's parser runs out of stack.
MAX_JSON_DEPTH = 32

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_OPEN, _CLOSE = frozenset(b"[{"), frozenset(b"]}")
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")


def gunzip(blob: bytes, limit: int) -> bytes:
    """The decompressed gzip members of `blob`, refused once they pass `limit` bytes.

    Reads as `gzip.decompress` does (several members, zero padding after them), but
    never holds more than `limit + 1` bytes of output.
    """
    import zlib  # here: a sandboxed bot imports this module at every start, never gunzips

    out = bytearray()
    data = blob
    while data:
        member = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        out += member.decompress(data, limit + 1 - len(out))
        if len(out) > limit:
            raise DocumentTooLargeError(f"more than {limit} bytes once decompressed", limit)
        if not member.eof:
            raise EOFError("compressed data ended before the end-of-stream marker")
        data = member.unused_data.lstrip(b"\x00")
    return bytes(out)


def check_depth(text: bytes | str, limit: int = MAX_JSON_DEPTH) -> None:
    """Refuse JSON text nesting arrays and objects more than `limit` deep.

    Brackets inside strings do not count; malformed text is left for the parser to
    name, except that unbalanced opening brackets count as nesting.
    """
    raw = text.encode() if isinstance(text, str) else text
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKET)
    depth = 0
    for byte in brackets:
        if byte in _OPEN:
            depth += 1
            if depth > limit:
                raise DocumentTooDeepError(f"nested more than {limit} levels deep", limit)
        elif byte in _CLOSE:
            depth -= 1
            if depth < 0:
                return  # unbalanced: the parser says where
    return


def loads(
    text: bytes | str,
    limit: int = MAX_JSON_DEPTH,
    *,
    parse_constant: Callable[[str], Any] | None = None,
) -> Any:
    """`json.loads` after `check_depth`; `parse_constant` as json's (a strict reader
    refuses NaN and Infinity with it)."""
    check_depth(text, limit)
    return json.loads(text, parse_constant=parse_constant)
