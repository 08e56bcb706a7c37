"""The one upload check (heights_runner.bundle): whatever it accepts, the runner unpacks.

A property test builds archives from hostile parts (long, deep, dotted, reserved,
invisible and non-ASCII names, links, folders, duplicates, stored and deflated data) and
unpacks every accepted one into a real folder with `unpack_bot`; refusals must name a
known reason, and a limit with its value.
"""

from __future__ import annotations

import io
import shutil
import stat
import tempfile
import warnings
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heights_runner import contract
from heights_runner.botfiles import unpack_bot
from heights_runner.bundle import BUNDLE_LIMITS, BundleError, bundle_check
from heights_runner.contract import BotRef

MAIN = b"print('hello')\n"
REASONS = {
    "bad_name",
    "bad_zip",
    "entry_too_large",
    "link",
    "name_too_long",
    "no_entry_point",
    "not_utf8",
    "bad_manifest",
    "syntax_error",
    "too_deep",
    "too_many_files",
    "unsafe_path",
    "zip_bomb",
}
RULES = {
    "name_characters",
    "name_encoding",
    "device_names",
    "relative_path",
    "entry_type",
    "manifest",
    "java_class",
}

_safe = st.text(alphabet=st.sampled_from("abcXYZ019._- éλ"), min_size=1, max_size=12)
_good = st.one_of(
    _safe.filter(lambda part: part not in (".", "..")),
    st.sampled_from(["main.py", "lib", "a.py", "é.py", "λ", "n" * 100]),
)
_hostile = st.one_of(
    # reserved, dotted, empty, invisible, control characters, separators, too long
    st.sampled_from([".", "..", "", "CON", "nul.txt", "com1.py", "a\u202eb", "a\x07b"]),
    st.text(alphabet=st.sampled_from("ab.\x00\\:\x1b"), min_size=1, max_size=4),
    st.integers(min_value=90, max_value=300).map(lambda n: "n" * n),
)
# Mostly good parts, so that a fair share of archives pass and are unpacked.
_component = st.integers(0, 19).flatmap(lambda i: _hostile if i == 0 else _good)
_depth = st.sampled_from([1] * 6 + [2] * 4 + [3, 4, 7, 8, 9])
_name = _depth.flatmap(lambda n: st.lists(_component, min_size=n, max_size=n)).map("/".join)


@st.composite
def _entry(draw: st.DrawFn) -> tuple[zipfile.ZipInfo, bytes]:
    name = draw(_name)
    kind = draw(st.sampled_from(["file"] * 16 + ["dir"] * 3 + ["link", "fifo"]))
    info = zipfile.ZipInfo(name + "/" if kind == "dir" else name)
    info.compress_type = draw(st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]))
    mode = {"file": stat.S_IFREG, "dir": stat.S_IFDIR, "link": stat.S_IFLNK, "fifo": stat.S_IFIFO}
    info.create_system = 3
    info.external_attr = (mode[kind] | 0o644) << 16
    data = b"" if kind == "dir" else draw(st.binary(max_size=64))
    return info, data


@st.composite
def _archive(draw: st.DrawFn) -> bytes:
    buffer = io.BytesIO()
    # zipfile warns on a duplicate name; duplicates are part of what is tested.
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w") as archive:
        warnings.simplefilter("ignore", UserWarning)
        if draw(st.booleans()) or draw(st.booleans()):
            archive.writestr("main.py", draw(st.sampled_from([MAIN, b"def (:\n"])))
        for info, data in draw(st.lists(_entry(), max_size=5)):
            archive.writestr(info, data)
    return buffer.getvalue()


def _assert_named(refused: BundleError) -> None:
    """A refusal gives a known reason, and the limit or rule broken with its value."""
    assert refused.code in REASONS, refused
    if refused.limit is not None:
        assert refused.limit in BUNDLE_LIMITS or refused.limit in RULES, refused.limit
        assert refused.value is not None


def _remove(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    shutil.rmtree(root)


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(content=_archive())
def test_whatever_validation_accepts_the_runner_unpacks(content: bytes) -> None:
    try:
        bundle = bundle_check("bot.zip", content)
    except BundleError as refused:
        _assert_named(refused)
        return
    folder = Path(tempfile.mkdtemp(prefix="bundle-"))
    try:
        unpacked = unpack_bot(BotRef.from_bytes("zip", "bot.zip", content), folder)
        assert bundle.files
        for path, data in bundle.files.items():
            assert (unpacked / path).read_bytes() == data
    finally:
        _remove(folder)


def test_the_property_test_sees_both_outcomes() -> None:
    """Not vacuous: the strategy makes archives the check accepts and ones it refuses."""
    accepted = bundle_check(
        "bot.zip", _zip_of(("main.py", MAIN), ("lib/é λ.py", b"x"), ("n" * 100, b""))
    )
    assert len(accepted.files) == 3
    with pytest.raises(BundleError):
        bundle_check("bot.zip", _zip_of(("main.py", MAIN), ("n" * 101, b"")))


def _zip_of(*entries: tuple[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


def test_limits_at_their_value_pass_and_one_over_fails(tmp_path: Path) -> None:
    deepest = "/".join(["d"] * (BUNDLE_LIMITS["depth"] - 1) + ["x.py"])
    longest = "/".join(["p" * 50] * 4 + ["p" * 51])
    assert len(longest) == BUNDLE_LIMITS["path_bytes"]
    ok = _zip_of(("main.py", MAIN), (deepest, b""), (longest, b""))
    folder = unpack_bot(BotRef.from_bytes("zip", "bot.zip", ok), tmp_path / "cache")
    assert (folder / deepest).is_file()
    assert (folder / longest).is_file()
    for name, limit in [("d/" + deepest, "depth"), (longest + "p", "path_bytes")]:
        with pytest.raises(BundleError) as refused:
            bundle_check("bot.zip", _zip_of(("main.py", MAIN), (name, b"")))
        assert (refused.value.limit, refused.value.value) == (limit, BUNDLE_LIMITS[limit])


def test_the_upload_file_name_is_checked() -> None:
    for name in ["b\x1bc.py", "", "a/b.py", "x" * 98 + ".py"]:
        with pytest.raises(BundleError) as refused:
            bundle_check(name, MAIN)
        assert refused.value.code == "bad_name"
    assert bundle_check("x" * 97 + ".py", MAIN).kind == "py"


def test_the_contract_re_exports_the_check() -> None:
    assert contract.bundle_check is bundle_check
    assert contract.MAX_BOT_BYTES == BUNDLE_LIMITS["upload_bytes"]
