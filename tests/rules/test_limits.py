"""Bounded reading: gzip bombs, oversized and deeply nested replays are refused clearly."""

from __future__ import annotations

import gzip
import json
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heights_rules import GameConfig, new_game
from heights_rules.errors import (
    DocumentTooDeepError,
    DocumentTooLargeError,
    ReplayError,
    ReplayTooDeepError,
    ReplayTooLargeError,
)
from heights_rules.limits import MAX_JSON_DEPTH, check_depth, gunzip, loads
from heights_rules.replay import MAX_REPLAY_JSON_BYTES, Recorder, Replay


def finished_replay() -> Replay:
    state = new_game(GameConfig(players=2), 3)
    recorder = Recorder(state, ["a", "b"])
    while not state.is_terminal():
        recorder.apply(state.legal_actions()[0])
    return recorder.replay


def zeros_gzip(megabytes: int) -> bytes:
    """A gzip of `megabytes` MiB of zeros, built a MiB at a time."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = bytes(2**20)
    parts = [packer.compress(chunk) for _ in range(megabytes)]
    return b"".join(parts) + packer.flush()


def test_a_record_reads_back_identically_through_the_bounded_reader() -> None:
    replay = finished_replay()
    blob = replay.to_bytes()
    assert Replay.from_bytes(blob).to_bytes() == blob
    assert gunzip(blob, MAX_REPLAY_JSON_BYTES) == gzip.decompress(blob)


def test_gunzip_reads_several_members_and_padding_as_gzip_does() -> None:
    blob = gzip.compress(b"abc") + gzip.compress(b"def") + b"\x00\x00"
    assert gunzip(blob, 6) == gzip.decompress(blob) == b"abcdef"
    with pytest.raises(DocumentTooLargeError):
        gunzip(blob, 5)


def test_a_gzip_bomb_stops_at_the_limit() -> None:
    bomb = zeros_gzip(64)  # 64 MiB of zeros in ~64 KiB
    with pytest.raises(ReplayTooLargeError) as caught:
        Replay.from_bytes(bomb)
    assert caught.value.limit == MAX_REPLAY_JSON_BYTES
    assert str(MAX_REPLAY_JSON_BYTES) in str(caught.value)


def test_a_truncated_gzip_is_unreadable_not_too_large() -> None:
    blob = finished_replay().to_bytes()
    with pytest.raises(ReplayError, match="unreadable replay") as caught:
        Replay.from_bytes(blob[: len(blob) // 2])
    assert not isinstance(caught.value, ReplayTooLargeError)


def test_compressed_and_plain_sizes_are_bounded() -> None:
    blob = finished_replay().to_bytes()
    with pytest.raises(ReplayTooLargeError, match=f"the limit is {len(blob) - 1}"):
        Replay.from_bytes(blob, max_bytes=len(blob) - 1)
    plain = gzip.decompress(blob)
    with pytest.raises(ReplayTooLargeError, match=f"the limit is {len(plain) - 1} bytes"):
        Replay.from_bytes(plain, max_json_bytes=len(plain) - 1)


def test_deep_nesting_is_refused_before_parsing() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000  # json.loads alone: RecursionError
    with pytest.raises(ReplayTooDeepError, match=f"the limit is {MAX_JSON_DEPTH} levels"):
        Replay.from_bytes(deep)
    with pytest.raises(ReplayTooDeepError):
        Replay.from_bytes(gzip.compress(b'{"a":' * 50_000))


def test_depth_counts_brackets_outside_strings_only() -> None:
    inside = json.dumps({"note": "[" * 1000, "escaped": '\\"[[[[' * 100})
    assert loads(inside) == json.loads(inside)
    check_depth("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)
    with pytest.raises(DocumentTooDeepError):
        check_depth("[" * (MAX_JSON_DEPTH + 1))
    with pytest.raises(DocumentTooDeepError):
        check_depth('{"a": ' * (MAX_JSON_DEPTH + 1))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab'),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=20,
)


def _depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


@given(json_values)
def test_depth_check_agrees_with_the_parsed_document(value: object) -> None:
    text = json.dumps(value)
    limit = _depth(value)
    assert loads(text, limit) == value
    if limit:
        with pytest.raises(DocumentTooDeepError):
            check_depth(text, limit - 1)
