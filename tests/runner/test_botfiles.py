"""Checking and unpacking submitted bots: hostile archives are refused with a stable code."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path

import pytest

from heights_runner.botfiles import BotFileError, check_bot_file, unpack_bot
from heights_runner.contract import MAX_BOT_BYTES, BotRef

GOOD_MAIN = b"import helper\n\nprint(helper.NAME)\n"


def _zip(*entries: tuple[str | zipfile.ZipInfo, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return buf.getvalue()


def _special(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3  # Unix: external_attr carries st_mode
    info.external_attr = mode << 16
    return info


def _code(filename: str, content: bytes) -> str:
    with pytest.raises(BotFileError) as error:
        check_bot_file(filename, content)
    return error.value.code


def test_good_files_are_accepted() -> None:
    assert check_bot_file("bot.py", GOOD_MAIN) == "py"
    assert check_bot_file("Bot.ZIP", _zip(("main.py", GOOD_MAIN))) == "zip"


def test_invalid_escape_is_only_a_warning_not_an_error() -> None:
    assert check_bot_file("bot.py", b'PATTERN = "\\d+"\n') == "py"


@pytest.mark.parametrize("name", ["../x", "/abs", "a/../../x", "..\\x.py", "C:x.py", "a/\\b"])
def test_zip_slip_is_refused(name: str) -> None:
    assert _code("bot.zip", _zip(("main.py", GOOD_MAIN), (name, b"x"))) == "unsafe_path"


def test_symlink_entry_is_refused() -> None:
    content = _zip(("main.py", GOOD_MAIN), (_special("evil", stat.S_IFLNK | 0o777), b"/etc/passwd"))
    with pytest.raises(BotFileError, match="'evil'") as error:
        check_bot_file("bot.zip", content)
    assert error.value.code == "link"


def test_device_entry_is_refused() -> None:
    content = _zip(("main.py", GOOD_MAIN), (_special("dev", stat.S_IFCHR | 0o666), b""))
    assert _code("bot.zip", content) == "unsafe_path"


def test_encrypted_entry_is_refused() -> None:
    # zipfile cannot write encrypted entries: set the "encrypted" flag bit in every header.
    content = bytearray(_zip(("main.py", GOOD_MAIN)))
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = content.find(signature)
        content[at + offset] |= 0x1
    with pytest.raises(BotFileError, match="encrypted") as error:
        check_bot_file("bot.zip", bytes(content))
    assert error.value.code == "bad_zip"


def test_zip_bomb_is_refused_from_its_header() -> None:
    # 100 MiB of zeros, written in a stream: a few hundred KiB compressed.
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("main.py", GOOD_MAIN)
        with archive.open("bomb.bin", "w", force_zip64=True) as out:
            block = bytes(2**20)
            for _ in range(100):
                out.write(block)
    assert len(buf.getvalue()) < MAX_BOT_BYTES
    assert _code("bot.zip", buf.getvalue()) == "zip_bomb"


def test_small_entry_with_absurd_ratio_is_refused() -> None:
    content = _zip(("main.py", GOOD_MAIN), ("zeros.bin", bytes(8 * 2**20)))
    assert _code("bot.zip", content) == "zip_bomb"


def test_too_many_entries() -> None:
    entries = [(f"f{i}.txt", b"") for i in range(201)]
    assert _code("bot.zip", _zip(("main.py", GOOD_MAIN), *entries)) == "too_many_files"


def test_oversize_upload() -> None:
    assert _code("bot.py", b"#" * (MAX_BOT_BYTES + 1)) == "too_large"


@pytest.mark.parametrize("name", ["bot.exe", "bot.tar.gz", "main", "bot.pyc"])
def test_wrong_type(name: str) -> None:
    assert _code(name, GOOD_MAIN) == "wrong_type"


def test_not_utf8() -> None:
    assert _code("bot.py", b"print('\xff\xfe')\n") == "not_utf8"


def test_not_a_zip() -> None:
    assert _code("bot.zip", b"PK\x03\x04 certainly not") == "bad_zip"


def test_missing_entry_point_names_the_nested_one() -> None:
    assert _code("bot.zip", _zip(("bot.py", GOOD_MAIN))) == "no_entry_point"
    with pytest.raises(BotFileError, match=r"found mybot/main\.py"):
        check_bot_file("bot.zip", _zip(("mybot/main.py", GOOD_MAIN)))


def test_syntax_error_names_file_and_line() -> None:
    with pytest.raises(BotFileError, match=r"bot\.py, line 2") as error:
        check_bot_file("bot.py", b"x = 1\ndef (:\n")
    assert error.value.code == "syntax_error"
    assert _code("bot.zip", _zip(("main.py", b"def (:\n"))) == "syntax_error"
    assert _code("bot.py", b"x = '\0'\0\n") == "syntax_error"


def _assert_read_only_tree(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o555 if path.is_dir() else 0o444), path


def test_py_bot_unpacks_idempotently(tmp_path: Path) -> None:
    ref = BotRef.from_bytes("py", "rocket.py", GOOD_MAIN)
    folder = unpack_bot(ref, tmp_path / "cache")
    assert folder == tmp_path / "cache" / ref.sha256
    assert (folder / "main.py").read_bytes() == GOOD_MAIN
    _assert_read_only_tree(folder)
    assert unpack_bot(ref, tmp_path / "cache") == folder
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [ref.sha256]  # no staging left


def test_zip_bot_unpacks_idempotently(tmp_path: Path) -> None:
    files = {
        "main.py": GOOD_MAIN,
        "helper.py": b"NAME = 'rocket'\n",
        "data/weights.json": b'{"w": [1, 2, 3]}',
    }
    content = _zip(("data/", b""), *files.items())
    ref = BotRef.from_bytes("zip", "rocket.zip", content)
    folder = unpack_bot(ref, tmp_path)
    for name, data in files.items():
        assert (folder / name).read_bytes() == data
    _assert_read_only_tree(folder)
    assert unpack_bot(ref, tmp_path) == folder


def test_unpack_revalidates(tmp_path: Path) -> None:
    ref = BotRef.from_bytes("zip", "evil.zip", _zip(("main.py", GOOD_MAIN), ("../x", b"x")))
    with pytest.raises(BotFileError):
        unpack_bot(ref, tmp_path)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(BotFileError, match="sent as zip"):
        unpack_bot(BotRef.from_bytes("zip", "bot.py", GOOD_MAIN), tmp_path)


def test_unpack_refuses_builtins_and_tampered_bytes(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="built-in"):
        unpack_bot(BotRef.builtin("random"), tmp_path)
    good = BotRef.from_bytes("py", "bot.py", GOOD_MAIN)
    forged = BotRef("py", "bot.py", "0" * 64, good.content_b64)
    with pytest.raises(ValueError, match="sha256"):
        unpack_bot(forged, tmp_path)
