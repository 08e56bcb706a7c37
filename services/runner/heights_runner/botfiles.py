"""Submitted bot files: checked when uploaded, checked again and unpacked before they run.

A bot is one Python file or a zip archive with `main.py` at its root. Nothing here runs the
bot's code: Python files are only compiled. Archives are read entry by entry (never
`extractall`), and an entry that could escape the bot's folder, link elsewhere or inflate
out of proportion refuses the whole archive.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import stat
import tempfile
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Literal

from heights_runner.contract import MAX_BOT_BYTES, BotRef

ENTRY_POINT = "main.py"
MAX_ENTRIES = 200
MAX_UNPACKED_BYTES = 16 * 2**20
# Source code compresses about 4:1; 100:1 for an entry of any size is a bomb, not a bot.
MAX_RATIO = 100
_RATIO_FLOOR = 2**20  # below this, a high ratio is harmless (e.g. a file of blank lines)
_UNIX = 3  # ZipInfo.create_system for Unix, where external_attr holds st_mode
_SHA256 = re.compile(r"[0-9a-f]{64}")


class BotFileError(ValueError):
    """A submitted file we will not accept; `code` is stable, the message names the entry."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def check_bot_file(filename: str, content: bytes) -> Literal["py", "zip"]:
    """Validate an upload and say what kind of bot it is; BotFileError otherwise."""
    if len(content) > MAX_BOT_BYTES:
        raise BotFileError(
            "too_large", f"{filename}: {len(content)} bytes, over the {MAX_BOT_BYTES} limit"
        )
    suffix = PurePosixPath(filename.replace("\\", "/")).suffix.lower()
    if suffix == ".py":
        _compile(content, filename)
        return "py"
    if suffix == ".zip":
        _check_archive(content)
        return "zip"
    raise BotFileError("wrong_type", f"{filename}: expected a .py file or a .zip archive")


def _compile(source: bytes, name: str) -> None:
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BotFileError("not_utf8", f"{name}: not UTF-8 text ({exc.reason})") from None
    try:
        # Compile only. Warnings (e.g. invalid escapes) are the author's business, not errors.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, name, "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise BotFileError("syntax_error", f"{name}, line {exc.lineno}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise BotFileError("syntax_error", f"{name}: does not compile ({exc})") from None


def _open_zip(content: bytes) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(content))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise BotFileError("bad_zip", f"not a readable zip archive: {exc}") from None


def _safe_path(info: zipfile.ZipInfo) -> PurePosixPath:
    """The entry's path relative to the bot folder, or BotFileError if it could escape it."""
    raw = info.orig_filename
    shown = repr(raw)
    if "\\" in raw or "\0" in raw or ":" in raw:
        raise BotFileError("unsafe_path", f"entry {shown}: backslash, NUL or drive in its name")
    path = PurePosixPath(raw)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        raise BotFileError("unsafe_path", f"entry {shown}: absolute path or '..' component")
    mode = info.external_attr >> 16 if info.create_system == _UNIX else 0
    if stat.S_ISLNK(mode):
        raise BotFileError("link", f"entry {shown}: symbolic links are not allowed")
    if mode and stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise BotFileError("unsafe_path", f"entry {shown}: not a regular file or folder")
    if info.flag_bits & 0x1:
        raise BotFileError("bad_zip", f"entry {shown}: encrypted entries are not allowed")
    return path


def _entries(archive: zipfile.ZipFile) -> Iterator[tuple[zipfile.ZipInfo, PurePosixPath]]:
    """Every file entry with its safe path, after the checks that need the whole listing."""
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        raise BotFileError("too_many_files", f"{len(infos)} entries, over the {MAX_ENTRIES} limit")
    total = 0
    files: dict[PurePosixPath, zipfile.ZipInfo] = {}
    folders: set[PurePosixPath] = set()
    for info in infos:
        path = _safe_path(info)
        total += info.file_size
        if total > MAX_UNPACKED_BYTES:
            raise BotFileError("zip_bomb", f"unpacks to over {MAX_UNPACKED_BYTES} bytes")
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > _RATIO_FLOOR and ratio > MAX_RATIO:
            raise BotFileError("zip_bomb", f"entry {info.filename!r} inflates {ratio:.0f}x")
        if info.is_dir():
            folders.add(path)
            continue
        if path in files:
            raise BotFileError("unsafe_path", f"entry {info.filename!r} appears twice")
        files[path] = info
        folders.update(path.parents)
    for path in files:
        if path in folders:
            raise BotFileError("unsafe_path", f"entry {str(path)!r} is both a file and a folder")
    yield from ((info, path) for path, info in files.items())


def _read(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The entry's bytes; never more than it declares (zipfile checks the CRC at its end)."""
    try:
        with archive.open(info) as stream:
            data = stream.read(info.file_size + 1)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError) as exc:
        raise BotFileError("bad_zip", f"entry {info.filename!r}: {exc}") from None
    if len(data) > info.file_size:
        raise BotFileError("zip_bomb", f"entry {info.filename!r}: larger than it declares")
    return data


def _check_archive(content: bytes) -> dict[PurePosixPath, bytes]:
    with _open_zip(content) as archive:
        files = {path: _read(archive, info) for info, path in _entries(archive)}
    main = files.get(PurePosixPath(ENTRY_POINT))
    if main is None:
        nested = sorted(str(p) for p in files if p.name == ENTRY_POINT)
        hint = f" (found {nested[0]}: zip the folder's contents, not the folder)" if nested else ""
        raise BotFileError("no_entry_point", f"no {ENTRY_POINT} at the archive's root{hint}")
    _compile(main, ENTRY_POINT)
    return files


def unpack_bot(ref: BotRef, cache_dir: Path) -> Path:
    """The bot's folder, `cache_dir/<sha256>/` with `main.py`, unpacked once and read-only."""
    if ref.kind == "builtin":
        raise ValueError(f"built-in bot {ref.name!r} has no files to unpack")
    content = ref.content()  # checks the bytes against ref.sha256
    if not _SHA256.fullmatch(ref.sha256):
        raise ValueError(f"bot {ref.name!r}: malformed sha256")
    kind = check_bot_file(ref.name, content)
    if kind != ref.kind:
        raise BotFileError("wrong_type", f"{ref.name}: sent as {ref.kind}, but is a {kind}")
    target = cache_dir / ref.sha256
    if (target / ENTRY_POINT).is_file():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    files = _check_archive(content) if kind == "zip" else {PurePosixPath(ENTRY_POINT): content}
    staging = Path(tempfile.mkdtemp(prefix=f".{ref.sha256[:16]}-", dir=cache_dir))
    try:
        _write_tree(staging, files)
        os.rename(staging, target)
    except OSError:
        _remove_tree(staging)
        if not (target / ENTRY_POINT).is_file():
            raise
        # Another worker unpacked the same bot first; its copy is identical.
    return target


def _write_tree(root: Path, files: dict[PurePosixPath, bytes]) -> None:
    for rel, data in files.items():
        dest = root.joinpath(*rel.parts)
        dest.parent.mkdir(parents=True, exist_ok=True)
        # O_EXCL | O_NOFOLLOW: never write through anything already there.
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        fd = os.open(dest, flags, 0o444)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
    # Folders read-only last, once everything is written; world-readable for the sandbox user.
    for folder in sorted((p for p in root.rglob("*") if p.is_dir()), reverse=True):
        folder.chmod(0o555)
    root.chmod(0o555)


def _remove_tree(root: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
            folder.chmod(0o755)  # read-only folders cannot be emptied by a non-root runner
        shutil.rmtree(root)
